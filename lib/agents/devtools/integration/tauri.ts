import { buyAndActivateNote, commonNotes, publicKeySetupStep, type IntegrationContext, type IntegrationDoc } from "./common.ts";
import { rustLicenseModule } from "./rust.ts";
import { sourceFile } from "./sources.ts";

// src-tauri/src/license.rs is the Rust integration's module (sdks/rust/src/license.rs), not a copy.
export function tauriIntegration(ctx: IntegrationContext): IntegrationDoc {
  return {
    title: "Tauri",
    intro: `License checks for a Tauri 2 app (\`${ctx.appId}\`): the check runs in Rust with \`ureq\` 2, \`sha2\` and \`ring\` (Ed25519 for signed offline license files), the web view shows the outcome, against ${ctx.serverUrl}.`,
    setup: [
      "In `src-tauri`: `cargo add ureq@2 sha2@0.10 serde_json ring tauri-plugin-opener@2 && cargo add serde --features derive` (Tauri 2 is already there; the opener plugin opens the purchase page in the system browser). In the front end: `npm install @tauri-apps/api@2`.",
      publicKeySetupStep(ctx, "near the top of `src-tauri/src/license.rs`"),
      "Save `src-tauri/src/license.rs`, and merge the commands, `.plugin(tauri_plugin_opener::init())` and `.manage(LicenseGate::default())` into your `src-tauri/src/lib.rs` (they send the app's version from `tauri.conf.json` when activating). The state file lives in the OS configuration directory under the app id.",
      "Save `src/license.js` and call `gateApp(root, startApp)` from your front end's entry point. Guard licensed features in Rust with `gate.ensure_allowed()?`: code in the web view is easy to change, the Rust binary less so.",
    ],
    files: [
      sourceFile("src-tauri/Cargo.toml", "toml", "tauri/src-tauri/Cargo.toml", ctx),
      { path: "src-tauri/src/license.rs", lang: "rust", code: rustLicenseModule(ctx) },
      sourceFile("src-tauri/src/lib.rs", "rust", "tauri/src-tauri/src/lib.rs", ctx),
      sourceFile("src/license.js", "javascript", "tauri/src/license.js", ctx),
      sourceFile("src/main.js", "javascript", "tauri/src/main.js", ctx),
    ],
    notes: [
      ...commonNotes(ctx),
      buyAndActivateNote(
        ctx,
        "the `buy_license` command (`buyLicense()` in `src/license.js`; it runs `license::buy_and_activate` in Rust, opens the address in the system browser with `tauri-plugin-opener` and sends it to the web view as the `license-purchase` event)",
        "The command runs it on Tauri's thread pool; `gateApp`'s key form has a \"Buy a license\" button that runs it.",
      ),
    ],
  };
}
