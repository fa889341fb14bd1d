import { buyAndActivateNote, commonNotes, publicKeySetupStep, type IntegrationContext, type IntegrationDoc } from "./common.ts";
import { filledSource, fromLine, integrationSource, sourceFile, type KeyEntrySyntax } from "./sources.ts";

const KEYS: KeyEntrySyntax = { line: (id, key) => `    ("${id}", "${key}"),`, comment: (t) => `// ${t}` };

/** The license module, shared with the Tauri integration. */
export function rustLicenseModule(ctx: IntegrationContext): string {
  return filledSource("rust/src/license.rs", ctx, KEYS);
}

export function rustIntegration(ctx: IntegrationContext): IntegrationDoc {
  return {
    title: "Rust",
    intro: `License checks for a Rust app (\`${ctx.appId}\`) with \`ureq\` 2, \`sha2\`, \`serde_json\` and \`ring\` (Ed25519 for signed offline license files), against ${ctx.serverUrl}.`,
    setup: [
      "Rust 1.73 or newer. Add the dependencies: `cargo add ureq@2 sha2@0.10 serde_json ring && cargo add serde --features derive`, or paste the `[dependencies]` below into `Cargo.toml`. The code is written for ureq 2.x (ureq 3 changed the request API) and uses only `ring::signature::UnparsedPublicKey` with `ED25519`, the same in ring 0.16 and 0.17.",
      publicKeySetupStep(ctx, "near the top of `src/license.rs`"),
      'Save `src/license.rs`, add `mod license;` to `main.rs`, and call `license::check_license(APP_VERSION)` at every start and `license::activate_license(&key, APP_VERSION)` when it answers `Status::NeedsKey` (`main.rs` takes `APP_VERSION` from `Cargo.toml`: `env!("CARGO_PKG_VERSION")`). The calls block (up to 10 s per request): in a GUI app run them on a worker thread.',
      "`cargo run` runs the example below; `cargo run -- --deactivate` releases this machine.",
    ],
    files: [
      { path: "Cargo.toml", lang: "toml", code: fromLine(integrationSource("rust/Cargo.toml"), "[dependencies]") },
      { path: "src/license.rs", lang: "rust", code: rustLicenseModule(ctx) },
      sourceFile("src/main.rs", "rust", "rust/src/main.rs", ctx),
    ],
    notes: [
      ...commonNotes(ctx),
      buyAndActivateNote(
        ctx,
        "`license::buy_and_activate(APP_VERSION, open_url, wait)` (`open_url(url, user_code)` shows the address, `license::print_purchase_url` prints it; `wait(pause)` returns false to cancel, `license::sleep_between_polls` just sleeps; the outcome's `license_key` holds the key)",
        "It blocks while the buyer is in the browser: run it off the UI thread. `cargo run -- --buy` runs it.",
      ),
    ],
  };
}
