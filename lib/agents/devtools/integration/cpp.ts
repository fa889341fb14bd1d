import { buyAndActivateNote, commonNotes, publicKeySetupStep, type IntegrationContext, type IntegrationDoc } from "./common.ts";
import { sourceFile, type KeyEntrySyntax } from "./sources.ts";

const KEYS: KeyEntrySyntax = { line: (id, key) => `    {"${id}", "${key}"},`, comment: (t) => `// ${t}` };

export function cppIntegration(ctx: IntegrationContext): IntegrationDoc {
  return {
    title: "C++",
    intro: `License checks for a C++17 app (\`${ctx.appId}\`) with libcurl and OpenSSL (SHA-256, and Ed25519 for signed offline license files), against ${ctx.serverUrl}.`,
    setup: [
      "Install the libraries (OpenSSL 1.1.1 or newer, for Ed25519): Debian/Ubuntu `sudo apt install libcurl4-openssl-dev libssl-dev`, Fedora `sudo dnf install libcurl-devel openssl-devel`, macOS `brew install curl openssl@3`, Windows `vcpkg install curl openssl`.",
      publicKeySetupStep(ctx, "near the top of `license_client.cpp`"),
      "Add `license_client.hpp`, `license_client.cpp`, and `license_file.h` and `license_file.c` (the signed license file check, plain C that also compiles as C++) to your project. CMake: `project(app C CXX)`, `find_package(CURL REQUIRED)`, `find_package(OpenSSL REQUIRED)`, `target_compile_features(app PRIVATE cxx_std_17)`, `target_link_libraries(app PRIVATE CURL::libcurl OpenSSL::Crypto)`. By hand: `cc -std=c99 -O2 -c license_file.c && c++ -std=c++17 -O2 main.cpp license_client.cpp license_file.o -lcurl -lcrypto -o app`.",
      "Keep a `licensing::CurlGlobal` alive in `main()`, call `licensing::checkLicense(APP_VERSION)` at every start, and `licensing::activateLicense(key, APP_VERSION)` when it answers `Status::NeedsKey`, with your app's version (`main.cpp` defines `APP_VERSION`; build with `-DAPP_VERSION='\"1.4.2\"'` to set it). Run only when `outcome.allowed()`.",
    ],
    files: [
      sourceFile("license_client.hpp", "cpp", "cpp/license_client.hpp", ctx),
      sourceFile("license_client.cpp", "cpp", "cpp/license_client.cpp", ctx, KEYS),
      sourceFile("license_file.h", "c", "shared/license_file.h", ctx),
      sourceFile("license_file.c", "c", "shared/license_file.c", ctx),
      sourceFile("main.cpp", "cpp", "cpp/main.cpp", ctx),
    ],
    notes: [
      ...commonNotes(ctx),
      buyAndActivateNote(
        ctx,
        "`licensing::buyAndActivate(APP_VERSION, options)` (`options.openUrl` shows the address, by default printed; `options.wait` waits between polls and can cancel; the outcome's `licenseKey` holds the key)",
        "It blocks while the buyer is in the browser: run it off the UI thread. `./app --buy` runs it.",
      ),
    ],
  };
}
