import { buyAndActivateNote, commonNotes, publicKeySetupStep, updateCheckNote, type IntegrationContext, type IntegrationDoc } from "./common.ts";
import { sourceFile, type KeyEntrySyntax } from "./sources.ts";

const KEYS: KeyEntrySyntax = { line: (id, key) => `  '${id}': '${key}',`, comment: (t) => `// ${t}` };

export function electronIntegration(ctx: IntegrationContext): IntegrationDoc {
  return {
    title: "Electron",
    intro: `License checks in Electron's main process for \`${ctx.appId}\` (Node's \`crypto\`, \`fetch\`, \`os\`, \`child_process\`), against ${ctx.serverUrl}.`,
    setup: [
      "Electron 28 or newer (Node 18+ with global `fetch` and `AbortSignal.timeout`); nothing else to install: `npm install --save-dev electron` if you have not yet.",
      "Save `license.js` next to your main script; it stores `license.json` and the signed license file `license.lic` under `app.getPath('userData')`. Never check the license in the renderer: the main process decides whether to open the app's window. License files are verified with Node's `crypto.verify(null, …)` and an Ed25519 `KeyObject` made from the embedded raw key (`crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' })`).",
      publicKeySetupStep(ctx, "near the top of `license.js`"),
      "Merge `main.js` into your own main script (`createLicenseClient({ stateDir, appVersion: app.getVersion() })`; `appVersion` defaults to `app.getVersion()` in Electron's main process) (it asks for the key in a small sandboxed window, opens `index.html` when licensed, and adds License → Release this machine).",
      [
        "Updates: after a valid check, ask for the newest release this license may install and download it verified (size, SHA-256 and the service's Ed25519 signature, with the keys in `LICENSE_PUBLIC_KEYS`); `main.js` offers it once per launch. `checkForUpdate` resolves to `null` when up to date and rejects with an `UpdateError` carrying the server's problem `code` (`license_refunded`, `release_not_entitled`, …) or a verification failure's:",
        "",
        "```javascript",
        "const { createLicenseClient, downloadUpdate, UpdateError } = require('./license');",
        "",
        "const license = createLicenseClient({ stateDir: app.getPath('userData') });",
        "try {",
        "  // platform defaults to currentPlatform() (e.g. 'macos-arm64'; pass 'macos-universal' for a universal build), channel to 'stable'",
        "  const update = await license.checkForUpdate({ currentVersion: app.getVersion() });",
        "  if (update) {",
        "    const file = path.join(app.getPath('downloads'), update.filename);",
        "    const sha256 = await downloadUpdate(update, file); // written only once verified",
        "  }",
        "} catch (error) {",
        "  if (error instanceof UpdateError) console.warn('No update (' + error.code + '): ' + error.detail);",
        "  else throw error;",
        "}",
        "```",
      ].join("\n"),
    ],
    files: [sourceFile("license.js", "javascript", "electron/license.js", ctx, KEYS), sourceFile("main.js", "javascript", "electron/main.js", ctx)],
    notes: [
      ...commonNotes(ctx),
      updateCheckNote(ctx),
      buyAndActivateNote(
        ctx,
        "`await license.buyAndActivate({ openUrl: (url) => shell.openExternal(url) })` (by default the address is printed; it rejects with a `DeviceFlowError` whose `code` is the server's)",
        "It returns a promise: the main process stays responsive while it polls.",
      ),
    ],
  };
}
