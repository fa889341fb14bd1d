import { buyAndActivateNote, commonNotes, publicKeySetupStep, type IntegrationContext, type IntegrationDoc } from "./common.ts";
import { sourceFile, type KeyEntrySyntax } from "./sources.ts";

const KEYS: KeyEntrySyntax = { line: (id, key) => `        ["${id}"] = "${key}",`, comment: (t) => `// ${t}` };

export function csharpIntegration(ctx: IntegrationContext): IntegrationDoc {
  return {
    title: "C#",
    intro: `License checks for a .NET 8 app (\`${ctx.appId}\`) with \`HttpClient\`, \`System.Text.Json\`, \`SHA256\`, and BouncyCastle's Ed25519 for signed offline license files, against ${ctx.serverUrl}.`,
    setup: [
      "Target `net8.0` (or `net8.0-windows` for WPF/WinForms) with `<Nullable>enable</Nullable>` and `<ImplicitUsings>enable</ImplicitUsings>`. .NET 8 has no Ed25519, so add the managed (no native library) BouncyCastle package: `dotnet add package BouncyCastle.Cryptography --version 2.*` (it verifies with `Ed25519Signer` and `Ed25519PublicKeyParameters`). `Microsoft.Win32.Registry` is part of .NET 8 and only called on Windows.",
      publicKeySetupStep(ctx, "in `LicenseClient.cs`"),
      "Add `LicenseClient.cs` to the project. Create one `LicenseClient` (its `appVersion` defaults to the entry assembly's version, the project's `<Version>`), `await CheckAsync()` at every start and `ActivateAsync(key)` when it answers `NeedsKey`; run only when `outcome.Allowed`. In WPF/WinForms show the messages in your own dialog instead of the console.",
      "`dotnet run` runs the example `Program.cs`; `dotnet run -- --deactivate` releases this machine.",
    ],
    files: [
      sourceFile("LicenseClient.cs", "csharp", "csharp/LicenseClient.cs", ctx, KEYS),
      sourceFile("Program.cs", "csharp", "csharp/Program.cs", ctx),
    ],
    notes: [
      ...commonNotes(ctx),
      buyAndActivateNote(
        ctx,
        "`await license.BuyAndActivateAsync(openUrl, ct)` (`openUrl(url, userCode)` shows the address, by default printed; cancelling `ct` stops waiting; the outcome's `LicenseKey` holds the key)",
        "`dotnet run -- --buy` runs it.",
      ),
    ],
  };
}
