import { commonNotes, publicKeySetupStep, type IntegrationContext, type IntegrationDoc } from "./common.ts";
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
      "Merge `main.js` into your own main script (it asks for the key in a small sandboxed window, opens `index.html` when licensed, and adds License → Release this machine).",
    ],
    files: [sourceFile("license.js", "javascript", "electron/license.js", ctx, KEYS), sourceFile("main.js", "javascript", "electron/main.js", ctx)],
    notes: commonNotes(ctx),
  };
}
