import { buyAndActivateNote, commonNotes, publicKeySetupStep, type IntegrationContext, type IntegrationDoc } from "./common.ts";
import { sourceFile, type KeyEntrySyntax } from "./sources.ts";

const KEYS: KeyEntrySyntax = { line: (id, key) => `    {"${id}", "${key}"},`, comment: (t) => `/* ${t} */` };

export function cIntegration(ctx: IntegrationContext): IntegrationDoc {
  return {
    title: "C",
    intro: `License checks for a C app (\`${ctx.appId}\`) with libcurl and OpenSSL (\`EVP_Digest\` for the fingerprint, \`EVP_DigestVerify\` with Ed25519 for signed offline license files), against ${ctx.serverUrl}.`,
    setup: [
      "Install the libraries (OpenSSL 1.1.1 or newer, for Ed25519): Debian/Ubuntu `sudo apt install libcurl4-openssl-dev libssl-dev`, Fedora `sudo dnf install libcurl-devel openssl-devel`, macOS `brew install curl openssl@3`, Windows `vcpkg install curl openssl`.",
      publicKeySetupStep(ctx, "near the top of `license.c`"),
      "Add `license.h`, `license.c`, `license_file.h` and `license_file.c` (the signed license file check) to your project and link with `-lcurl -lcrypto` (Windows: also `advapi32`). For example: `cc -std=c99 -Wall -O2 main.c license.c license_file.c -lcurl -lcrypto -o app`.",
      "Call `license_global_init(APP_VERSION)` once with your app's version (`main.c` defines `APP_VERSION`; build with `-DAPP_VERSION='\"1.4.2\"'` to set it), then `license_check(NULL)` at every start; when it answers `LICENSE_NEEDS_KEY`, ask for the key and call `license_check(key)`. Run the app only when `outcome.allowed` is non-zero.",
    ],
    files: [
      sourceFile("license.h", "c", "c/license.h", ctx),
      sourceFile("license.c", "c", "c/license.c", ctx, KEYS),
      sourceFile("license_file.h", "c", "shared/license_file.h", ctx),
      sourceFile("license_file.c", "c", "shared/license_file.c", ctx),
      sourceFile("main.c", "c", "c/main.c", ctx),
    ],
    notes: [
      ...commonNotes(ctx),
      buyAndActivateNote(
        ctx,
        "`license_buy_and_activate(&options, key)` (in `license.h`: `options.open_url` shows the address, `options.wait` waits between polls and can cancel; NULL options print and sleep)",
        "It blocks while the buyer is in the browser: run it off the UI thread. `./app --buy` runs it.",
      ),
    ],
  };
}
