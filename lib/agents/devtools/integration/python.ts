import { buyAndActivateNote, commonNotes, publicKeySetupStep, updateCheckNote, type IntegrationContext, type IntegrationDoc } from "./common.ts";
import { sourceFile, type KeyEntrySyntax } from "./sources.ts";

const KEYS: KeyEntrySyntax = { line: (id, key) => `    "${id}": "${key}",`, comment: (t) => `# ${t}` };

export function pythonIntegration(ctx: IntegrationContext): IntegrationDoc {
  return {
    title: "Python",
    intro: `Drop-in license checks for a Python app (\`${ctx.appId}\`), standard library only, against ${ctx.serverUrl}.`,
    setup: [
      "Python 3.9 or newer; no packages to install (`urllib.request`, `hashlib`, `json`, `platform`, `subprocess`; `winreg` on Windows). License files are verified with the `cryptography` package when it is importable (`pip install cryptography`: faster) and otherwise with the built-in pure-Python Ed25519 verifier (RFC 8032); `ed25519_backend()` tells which.",
      publicKeySetupStep(ctx, "near the top of `license_check.py`"),
      "Save `license_check.py` next to your entry point and call `check_license(app_version=APP_VERSION)` with this build's version before the app starts (`main.py` does). `python3 license_check.py [--app-version 1.4.2]` runs the check on its own; `python3 license_check.py --deactivate` releases this machine.",
      "The key is asked for on the terminal (or taken from the `LICENSE_KEY` environment variable on first run); pass your own `ask_key(reason)` callback to show a dialog instead.",
      [
        "Updates: after a valid check, ask for the newest release this license may install and download it verified (size, SHA-256 and the service's Ed25519 signature, with the keys in `LICENSE_PUBLIC_KEYS`); `main.py` does it once per launch. `check_for_update` returns `None` when up to date and raises `UpdateFailed` with the server's problem `code` (`license_refunded`, `release_not_entitled`, …) or a verification failure's:",
        "",
        "```python",
        "from pathlib import Path",
        "",
        "from license_check import UpdateFailed, check_for_update, download_update",
        "",
        "try:",
        '    update = check_for_update("1.0.0")  # this build\'s version; platform defaults to current_platform(), channel to "stable"',
        "    if update is not None:",
        '        print(f"Version {update.version} is available:\\n{update.notes}")',
        '        sha256 = download_update(update, Path.home() / "Downloads" / update.filename)  # written only once verified',
        "except UpdateFailed as error:",
        '    print(f"No update ({error.code}): {error.detail}")',
        "```",
        "",
        "From the command line: `python3 license_check.py --check-update 1.0.0 [--platform linux-x64] [--channel beta] [--download PATH]`.",
      ].join("\n"),
    ],
    files: [sourceFile("license_check.py", "python", "python/license_check.py", ctx, KEYS), sourceFile("main.py", "python", "python/main.py", ctx)],
    notes: [
      ...commonNotes(ctx),
      updateCheckNote(ctx),
      buyAndActivateNote(
        ctx,
        "`buy_and_activate(open_url=webbrowser.open, app_version=APP_VERSION)` (`open_url(url)` shows the address; by default it is printed; it raises `DeviceFlowFailed` whose `code` is the server's)",
        "`python3 license_check.py --buy [--app-version 1.4.2]` runs it.",
      ),
    ],
  };
}
