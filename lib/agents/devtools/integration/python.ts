import { commonNotes, publicKeySetupStep, type IntegrationContext, type IntegrationDoc } from "./common.ts";
import { sourceFile, type KeyEntrySyntax } from "./sources.ts";

const KEYS: KeyEntrySyntax = { line: (id, key) => `    "${id}": "${key}",`, comment: (t) => `# ${t}` };

export function pythonIntegration(ctx: IntegrationContext): IntegrationDoc {
  return {
    title: "Python",
    intro: `Drop-in license checks for a Python app (\`${ctx.appId}\`), standard library only, against ${ctx.serverUrl}.`,
    setup: [
      "Python 3.9 or newer; no packages to install (`urllib.request`, `hashlib`, `json`, `platform`, `subprocess`; `winreg` on Windows). License files are verified with the `cryptography` package when it is importable (`pip install cryptography`: faster) and otherwise with the built-in pure-Python Ed25519 verifier (RFC 8032); `ed25519_backend()` tells which.",
      publicKeySetupStep(ctx, "near the top of `license_check.py`"),
      "Save `license_check.py` next to your entry point and call `check_license()` before the app starts. `python3 license_check.py` runs the check on its own; `python3 license_check.py --deactivate` releases this machine.",
      "The key is asked for on the terminal (or taken from the `LICENSE_KEY` environment variable on first run); pass your own `ask_key(reason)` callback to show a dialog instead.",
    ],
    files: [sourceFile("license_check.py", "python", "python/license_check.py", ctx, KEYS), sourceFile("main.py", "python", "python/main.py", ctx)],
    notes: commonNotes(ctx),
  };
}
