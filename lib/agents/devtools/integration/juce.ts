import { buyAndActivateNote, commonNotes, publicKeySetupStep, type IntegrationContext, type IntegrationDoc } from "./common.ts";
import { sourceFile, type KeyEntrySyntax } from "./sources.ts";

const KEYS: KeyEntrySyntax = { line: (id, key) => `    { "${id}", "${key}" },`, comment: (t) => `// ${t}` };

export function juceIntegration(ctx: IntegrationContext): IntegrationDoc {
  return {
    title: "JUCE",
    intro: `License checks for a JUCE plugin or app (\`${ctx.appId}\`) with \`juce::WebInputStream\`, \`juce::SHA256\`, \`juce::PropertiesFile\`, and OpenSSL's Ed25519 for signed offline license files, against ${ctx.serverUrl}.`,
    setup: [
      "JUCE 7 or 8. Add the modules `juce_core`, `juce_cryptography`, `juce_data_structures`, `juce_events` and `juce_gui_basics` (CMake: `target_link_libraries(MyPlugin PRIVATE juce::juce_cryptography juce::juce_data_structures juce::juce_gui_basics)`; Projucer: tick `juce_cryptography`).",
      "On Linux JUCE's HTTP needs libcurl: `sudo apt install libcurl4-openssl-dev` and `JUCE_USE_CURL=1` (the default for apps; plugins set it with `target_compile_definitions(MyPlugin PRIVATE JUCE_USE_CURL=1)`).",
      "JUCE has no Ed25519, so license files are verified with OpenSSL 1.1.1 or newer (`EVP_DigestVerify`): `find_package(OpenSSL REQUIRED)` and `target_link_libraries(MyPlugin PRIVATE OpenSSL::Crypto)`; Debian/Ubuntu `sudo apt install libssl-dev`, macOS `brew install openssl@3`, Windows `vcpkg install openssl` (link it statically into a plugin so hosts need no DLL).",
      publicKeySetupStep(ctx, "near the top of `LicenseManager.cpp`"),
      "Add `LicenseManager.h`, `LicenseManager.cpp`, `LicenseGate.h`, and `license_file.h` and `license_file.c` (the signed license file check, plain C shared with the C and C++ integrations) to your sources. The licensing functions block on the network, so never call them from the audio or message thread: `LicenseGate` runs them on a background thread and reports on the message thread. The app version they send on activation is `licensing::defaultAppVersion()`: a plugin's `JucePlugin_VersionString`, else the running `JUCEApplication`'s version; in a Projucer project pass `ProjectInfo::versionString` as `LicenseGate`'s second argument.",
      "In a plugin, keep processing in a safe mode (bypassed or silent) until the gate reports `allowed()`; each plugin instance may check once, and the state file is shared by all instances.",
    ],
    files: [
      sourceFile("Source/LicenseManager.h", "cpp", "juce/Source/LicenseManager.h", ctx),
      sourceFile("Source/LicenseManager.cpp", "cpp", "juce/Source/LicenseManager.cpp", ctx, KEYS),
      sourceFile("Source/license_file.h", "c", "shared/license_file.h", ctx),
      sourceFile("Source/license_file.c", "c", "shared/license_file.c", ctx),
      sourceFile("Source/LicenseGate.h", "cpp", "juce/Source/LicenseGate.h", ctx),
    ],
    notes: [
      ...commonNotes(ctx),
      buyAndActivateNote(
        ctx,
        "`licensing::buyAndActivate(appVersion, options)` (`options.openUrl` shows the address, by default opened in the browser; `options.wait` waits between polls and can cancel; the outcome's `licenseKey` holds the key)",
        'It blocks while the buyer is in the browser: never call it on the audio or message thread. `LicenseGate`\'s key prompt has a "Buy a license" button that runs it in the background (`licenseGate.buyLicense()` from your own button).',
      ),
    ],
  };
}
