import { fill } from "../markdown.ts";
import { commonNotes, templateValues, type IntegrationContext, type IntegrationDoc } from "./common.ts";

const CLIENT_CS = String.raw`// License checks for @@APP_ID@@ against @@SERVER_URL@@ (.NET 8: HttpClient, System.Text.Json, SHA256).
using System.Diagnostics;
using System.Net;
using System.Net.Http.Json;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.RegularExpressions;
using Microsoft.Win32;

namespace Licensing;

public enum LicenseStatus
{
    Valid,           // run
    OfflineGrace,    // run: the server is unreachable, the last good validation is recent
    NeedsKey,        // ask for a (new) key
    Expired,         // offer renewal
    TrialExpired,    // offer to buy
    Revoked,         // stop
    TooManyMachines, // tell the user to release a machine
    Unreachable,     // no server and no recent validation
    Error,           // anything else; see Message
}

public sealed record LicenseOutcome(LicenseStatus Status, string Message, bool Trial = false, int TrialDaysRemaining = 0)
{
    public bool Allowed => Status is LicenseStatus.Valid or LicenseStatus.OfflineGrace;
}

/// <summary>Answers of /activate, /validate and /deactivate (one record for all three; absent fields stay null).</summary>
public sealed record LicenseAnswer(
    [property: JsonPropertyName("code")] string? Code,
    [property: JsonPropertyName("detail")] string? Detail,
    [property: JsonPropertyName("valid")] bool? Valid,
    [property: JsonPropertyName("activated")] bool? Activated,
    [property: JsonPropertyName("expires_at")] DateTimeOffset? ExpiresAt,
    [property: JsonPropertyName("trial")] bool? Trial,
    [property: JsonPropertyName("trial_days_remaining")] int? TrialDaysRemaining,
    [property: JsonPropertyName("max_machines")] int? MaxMachines,
    [property: JsonPropertyName("active_machines")] int? ActiveMachines);

internal sealed record ProblemDocument(
    [property: JsonPropertyName("code")] string? Code,
    [property: JsonPropertyName("detail")] string? Detail);

internal sealed class LicenseState
{
    public string? LicenseKey { get; set; }
    public string? Fingerprint { get; set; }
    /// <summary>The last good validation; null when there is none to fall back on.</summary>
    public DateTimeOffset? ValidatedAt { get; set; }
    public DateTimeOffset? ExpiresAt { get; set; }
}

/// <summary>No usable answer: network error, timeout, HTTP 5xx, or 429 with a long Retry-After.</summary>
public sealed class LicenseServerUnavailableException(string message, Exception? inner = null) : Exception(message, inner);

/// <summary>HTTP 4xx with an RFC 9457 problem document.</summary>
public sealed class LicenseRequestRejectedException(int status, string code, string detail) : Exception(detail)
{
    public int Status { get; } = status;
    public string Code { get; } = code;
    public string Detail { get; } = detail;
}

public static partial class MachineFingerprint
{
    /// <summary>Lowercase hex SHA-256 of "&lt;CPU brand&gt;|&lt;OS identifier&gt;".</summary>
    public static string Compute()
    {
        var input = $"{CpuBrand().Trim()}|{OsIdentifier().Trim()}";
        return Convert.ToHexString(SHA256.HashData(Encoding.UTF8.GetBytes(input))).ToLowerInvariant();
    }

    private static string CpuBrand()
    {
        if (OperatingSystem.IsWindows())
        {
            using var key = Registry.LocalMachine.OpenSubKey(@"HARDWARE\DESCRIPTION\System\CentralProcessor\0");
            return key?.GetValue("ProcessorNameString") as string ?? throw new InvalidOperationException("ProcessorNameString not found");
        }
        if (OperatingSystem.IsMacOS()) return Run("sysctl", "-n", "machdep.cpu.brand_string");
        foreach (var line in File.Exists("/proc/cpuinfo") ? File.ReadLines("/proc/cpuinfo") : Array.Empty<string>())
        {
            var parts = line.Split(':', 2);
            if (parts.Length == 2 && parts[0].Trim() is "model name" or "Hardware" && parts[1].Trim().Length > 0)
                return parts[1].Trim();
        }
        return RuntimeInformation.ProcessArchitecture.ToString();
    }

    private static string OsIdentifier()
    {
        if (OperatingSystem.IsWindows())
        {
            using var hklm = RegistryKey.OpenBaseKey(RegistryHive.LocalMachine, RegistryView.Registry64);
            using var key = hklm.OpenSubKey(@"SOFTWARE\Microsoft\Cryptography");
            return key?.GetValue("MachineGuid") as string ?? throw new InvalidOperationException("MachineGuid not found");
        }
        if (OperatingSystem.IsMacOS())
        {
            var match = PlatformUuid().Match(Run("ioreg", "-rd1", "-c", "IOPlatformExpertDevice"));
            return match.Success ? match.Groups[1].Value : throw new InvalidOperationException("IOPlatformUUID not found");
        }
        foreach (var path in new[] { "/etc/machine-id", "/var/lib/dbus/machine-id" })
        {
            if (File.Exists(path) && File.ReadAllText(path).Trim() is { Length: > 0 } id) return id;
        }
        throw new InvalidOperationException("no /etc/machine-id on this system");
    }

    private static string Run(string program, params string[] args)
    {
        var start = new ProcessStartInfo(program) { RedirectStandardOutput = true, UseShellExecute = false, CreateNoWindow = true };
        foreach (var arg in args) start.ArgumentList.Add(arg);
        using var process = Process.Start(start) ?? throw new InvalidOperationException($"cannot run {program}");
        var output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        return output.Trim();
    }

    [GeneratedRegex("\"IOPlatformUUID\"\\s*=\\s*\"([^\"]+)\"")]
    private static partial Regex PlatformUuid();
}

/// <summary>
/// CheckAsync() at every start; ActivateAsync(key) when it answers NeedsKey; DeactivateAsync() to release this
/// machine. Run the app only when outcome.Allowed.
/// </summary>
public sealed partial class LicenseClient : IDisposable
{
    public const string ServerUrl = "@@SERVER_URL@@";
    public const string AppId = "@@APP_ID@@";
    public const int OfflineGraceDays = @@GRACE_DAYS@@;
    private static readonly TimeSpan OfflineGrace = TimeSpan.FromDays(OfflineGraceDays);
    /// <summary>A 429 whose Retry-After is at most this long is waited out once.</summary>
    private static readonly TimeSpan MaxRetryAfterWait = TimeSpan.FromSeconds(10);
    private static readonly JsonSerializerOptions StateJson = new() { WriteIndented = true };

    private readonly HttpClient _http;
    private readonly string _statePath;

    public LicenseClient(string? stateDirectory = null)
    {
        _http = new HttpClient { BaseAddress = new Uri(ServerUrl + "/"), Timeout = TimeSpan.FromSeconds(10) };
        _http.DefaultRequestHeaders.Accept.ParseAdd("application/json");
        var dir = stateDirectory ?? Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.ApplicationData), AppId);
        _statePath = Path.Combine(dir, "license.json");
    }

    public void Dispose() => _http.Dispose();

    [GeneratedRegex("^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$")]
    private static partial Regex KeyPattern();

    // ------------------------------------------------------------ public API

    /// <summary>Validates the stored key (re-activating this machine when needed); NeedsKey when there is none.</summary>
    public async Task<LicenseOutcome> CheckAsync(CancellationToken ct = default)
    {
        if (!TryFingerprint(out var fingerprint, out var failure)) return failure!;
        var state = LoadState();
        if (state.LicenseKey is null || state.Fingerprint != fingerprint)
            return new(LicenseStatus.NeedsKey, "A license key is required to use this app.");
        return await CheckKeyAsync(state.LicenseKey, fingerprint, state, newlyEntered: false, ct);
    }

    /// <summary>Activates a key the user entered on this machine, validates it and stores it.</summary>
    public async Task<LicenseOutcome> ActivateAsync(string enteredKey, CancellationToken ct = default)
    {
        var key = (enteredKey ?? "").Trim().ToUpperInvariant();
        if (!KeyPattern().IsMatch(key))
            return new(LicenseStatus.NeedsKey, "That does not look like a license key: it has the form XXXX-XXXX-XXXX-XXXX.");
        if (!TryFingerprint(out var fingerprint, out var failure)) return failure!;
        return await CheckKeyAsync(key, fingerprint, LoadState(), newlyEntered: true, ct);
    }

    /// <summary>Releases this machine's seat so the key can be used elsewhere, and forgets the key here.</summary>
    public async Task<LicenseOutcome> DeactivateAsync(CancellationToken ct = default)
    {
        var state = LoadState();
        if (state.LicenseKey is null) return new(LicenseStatus.NeedsKey, "No license is activated on this machine.");
        if (!TryFingerprint(out var fingerprint, out var failure)) return failure!;
        try
        {
            var answer = await PostAsync("deactivate", new { license_key = state.LicenseKey, machine_fingerprint = fingerprint }, ct);
            if (answer.Code is "DEACTIVATED" or "NOT_ACTIVATED" or "NOT_FOUND")
            {
                ClearState();
                return new(LicenseStatus.NeedsKey, "This machine has been released; its seat is free again.");
            }
            return Refusal(answer);
        }
        catch (LicenseServerUnavailableException e)
        {
            return new(LicenseStatus.Unreachable, $"Could not reach the license server ({e.Message}). Try again when online.");
        }
        catch (LicenseRequestRejectedException e)
        {
            return new(LicenseStatus.Error, $"The license server refused the request ({e.Code}): {e.Detail}");
        }
    }

    // ------------------------------------------------------------ decisions

    private static bool TryFingerprint(out string fingerprint, out LicenseOutcome? failure)
    {
        try
        {
            fingerprint = MachineFingerprint.Compute();
            failure = null;
            return true;
        }
        catch (Exception e) when (e is InvalidOperationException or IOException or UnauthorizedAccessException or System.ComponentModel.Win32Exception)
        {
            fingerprint = "";
            failure = new(LicenseStatus.Error, $"Could not identify this machine: {e.Message}");
            return false;
        }
    }

    private async Task<LicenseOutcome> CheckKeyAsync(string key, string fingerprint, LicenseState state, bool newlyEntered, CancellationToken ct)
    {
        var body = new { license_key = key, machine_fingerprint = fingerprint, plugin_id = AppId };
        LicenseAnswer answer;
        try
        {
            var activated = false;
            if (newlyEntered)
            {
                var activation = await PostAsync("activate", body, ct);
                if (activation.Activated != true) return Refusal(activation);
                activated = true;
            }
            answer = await PostAsync("validate", body, ct);
            if (!activated && answer.Code is "NO_MACHINE" or "FINGERPRINT_SCOPE_MISMATCH")
            {
                // The key is fine but this machine is not (or no longer) activated: take a seat, then validate again.
                var activation = await PostAsync("activate", body, ct);
                if (activation.Activated != true) return Refusal(activation);
                answer = await PostAsync("validate", body, ct);
            }
        }
        catch (LicenseServerUnavailableException e)
        {
            return newlyEntered
                ? new(LicenseStatus.Unreachable, $"Could not reach the license server to activate ({e.Message}). Check your connection and try again.")
                : Offline(state, key, fingerprint, e.Message);
        }
        catch (LicenseRequestRejectedException e)
        {
            return new(LicenseStatus.Error, $"The license server refused the request ({e.Code}): {e.Detail}");
        }

        if (answer.Valid == true && answer.Code == "VALID")
        {
            SaveState(new LicenseState { LicenseKey = key, Fingerprint = fingerprint, ValidatedAt = DateTimeOffset.UtcNow, ExpiresAt = answer.ExpiresAt });
            if (answer.Trial == true)
            {
                var days = answer.TrialDaysRemaining ?? 0;
                return new(LicenseStatus.Valid, $"Trial license: {days} day(s) left.", Trial: true, TrialDaysRemaining: days);
            }
            return new(LicenseStatus.Valid, "License valid.");
        }
        var outcome = Refusal(answer);
        if (outcome.Status is LicenseStatus.NeedsKey or LicenseStatus.Revoked or LicenseStatus.TrialExpired)
        {
            ClearState(); // the next launch asks for a (new) key
        }
        else if (state.LicenseKey == key)
        {
            SaveState(new LicenseState { LicenseKey = key, Fingerprint = fingerprint }); // keep the key, drop the offline grace
        }
        return outcome;
    }

    /// <summary>The outcome of a /validate or /activate answer that does not allow running.</summary>
    private static LicenseOutcome Refusal(LicenseAnswer answer) => answer.Code switch
    {
        "NOT_FOUND" => new(LicenseStatus.NeedsKey, "This license key was not found. Check it and enter it again."),
        "PRODUCT_MISMATCH" => new(LicenseStatus.NeedsKey, "This license key belongs to a different product. Enter the key for this app."),
        "REVOKED" => new(LicenseStatus.Revoked, "This license has been revoked by the seller. Contact the seller if you think this is a mistake."),
        "EXPIRED" => new(LicenseStatus.Expired, "This license has expired. Renew it to keep using the app."),
        "TRIAL_EXPIRED" => new(LicenseStatus.TrialExpired, "Your trial has ended. Buy a license to keep using the app."),
        "TOO_MANY_MACHINES" => new(LicenseStatus.TooManyMachines,
            $"This license is already active on {answer.ActiveMachines} of {answer.MaxMachines} machines. Release one (Deactivate in the app on that machine, or from your purchase page) and try again."),
        "NO_MACHINE" or "FINGERPRINT_SCOPE_MISMATCH" => new(LicenseStatus.Error, "This license is not activated on this machine and activation did not succeed."),
        _ => new(LicenseStatus.Error, $"Unexpected answer from the license server ({answer.Code}): {answer.Detail}"),
    };

    private static LicenseOutcome Offline(LicenseState state, string key, string fingerprint, string reason)
    {
        var now = DateTimeOffset.UtcNow;
        if (state.LicenseKey == key && state.Fingerprint == fingerprint && state.ValidatedAt is { } validatedAt)
        {
            var age = now - validatedAt;
            // A clock set back (negative age) or a license that has run out since does not get the grace period.
            if (age >= TimeSpan.Zero && age < OfflineGrace && (state.ExpiresAt is null || state.ExpiresAt > now))
            {
                var daysLeft = (int)Math.Ceiling((OfflineGrace - age).TotalDays);
                return new(LicenseStatus.OfflineGrace, $"Could not reach the license server ({reason}). Running offline for up to {daysLeft} more day(s).");
            }
        }
        return new(LicenseStatus.Unreachable, $"Could not reach the license server ({reason}). Connect to the internet to verify your license.");
    }

    // ------------------------------------------------------------ HTTP

    private async Task<LicenseAnswer> PostAsync(string endpoint, object body, CancellationToken ct)
    {
        for (var attempt = 0; ; attempt++)
        {
            HttpResponseMessage response;
            try
            {
                response = await _http.PostAsJsonAsync(endpoint, body, ct);
            }
            catch (HttpRequestException e)
            {
                throw new LicenseServerUnavailableException($"cannot reach {ServerUrl}: {e.Message}", e);
            }
            catch (TaskCanceledException e) when (!ct.IsCancellationRequested)
            {
                throw new LicenseServerUnavailableException("the license server did not answer in time", e);
            }
            using (response)
            {
                var status = (int)response.StatusCode;
                if (response.StatusCode == HttpStatusCode.TooManyRequests)
                {
                    var wait = RetryAfter(response);
                    if (attempt == 0 && wait <= MaxRetryAfterWait)
                    {
                        await Task.Delay(wait, ct);
                        continue;
                    }
                    throw new LicenseServerUnavailableException($"too many requests; retry in {Math.Ceiling(wait.TotalSeconds)} s");
                }
                if (response.IsSuccessStatusCode)
                {
                    try
                    {
                        var answer = await response.Content.ReadFromJsonAsync<LicenseAnswer>(ct);
                        return answer is { Code: not null } ? answer : throw new LicenseServerUnavailableException("unexpected answer from the license server");
                    }
                    catch (JsonException e)
                    {
                        throw new LicenseServerUnavailableException("unreadable answer from the license server", e);
                    }
                }
                ProblemDocument? problem = null;
                try
                {
                    problem = await response.Content.ReadFromJsonAsync<ProblemDocument>(ct);
                }
                catch (Exception e) when (e is JsonException or NotSupportedException or InvalidOperationException)
                {
                    // not a problem document
                }
                var detail = problem?.Detail ?? $"HTTP {status}";
                if (status >= 500) throw new LicenseServerUnavailableException($"server error {status}: {detail}");
                throw new LicenseRequestRejectedException(status, problem?.Code ?? $"http_{status}", detail);
            }
        }
    }

    private static TimeSpan RetryAfter(HttpResponseMessage response)
    {
        var header = response.Headers.RetryAfter;
        if (header?.Delta is { } delta) return delta;
        if (header?.Date is { } date) return date - DateTimeOffset.UtcNow > TimeSpan.Zero ? date - DateTimeOffset.UtcNow : TimeSpan.Zero;
        return TimeSpan.FromSeconds(60);
    }

    // ------------------------------------------------------------ local state

    private LicenseState LoadState()
    {
        try
        {
            return File.Exists(_statePath) ? JsonSerializer.Deserialize<LicenseState>(File.ReadAllText(_statePath)) ?? new() : new();
        }
        catch (Exception e) when (e is IOException or JsonException or UnauthorizedAccessException)
        {
            return new();
        }
    }

    private void SaveState(LicenseState state)
    {
        try
        {
            Directory.CreateDirectory(Path.GetDirectoryName(_statePath)!);
            var tmp = _statePath + ".tmp";
            File.WriteAllText(tmp, JsonSerializer.Serialize(state, StateJson));
            File.Move(tmp, _statePath, overwrite: true);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            Debug.WriteLine($"could not save the license state: {e.Message}");
        }
    }

    private void ClearState()
    {
        try
        {
            File.Delete(_statePath);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            Debug.WriteLine($"could not delete the license state: {e.Message}");
        }
    }
}
`;

const PROGRAM_CS = String.raw`// Program.cs: check the license before anything else.
using Licensing;

using var license = new LicenseClient();

if (args.Length > 0 && args[0] == "--deactivate")
{
    var released = await license.DeactivateAsync();
    Console.WriteLine(released.Message);
    return released.Status == LicenseStatus.NeedsKey ? 0 : 1;
}

var outcome = await license.CheckAsync();
var fromEnvironment = Environment.GetEnvironmentVariable("LICENSE_KEY");
for (var attempt = 0; outcome.Status == LicenseStatus.NeedsKey && attempt < 3; attempt++)
{
    string? key;
    if (attempt == 0 && !string.IsNullOrWhiteSpace(fromEnvironment))
    {
        key = fromEnvironment;
    }
    else
    {
        Console.WriteLine(outcome.Message);
        Console.Write("License key (XXXX-XXXX-XXXX-XXXX): ");
        key = Console.ReadLine();
        if (key is null) break;
    }
    outcome = await license.ActivateAsync(key);
}

Console.WriteLine(outcome.Message);
if (!outcome.Allowed) return 1;

// ... start the app ...
return 0;
`;

export function csharpIntegration(ctx: IntegrationContext): IntegrationDoc {
  const v = templateValues(ctx);
  return {
    title: "C#",
    intro: `License checks for a .NET 8 app (\`${ctx.appId}\`) with \`HttpClient\`, \`System.Text.Json\` and \`SHA256\`, against ${ctx.serverUrl}.`,
    setup: [
      "Target `net8.0` (or `net8.0-windows` for WPF/WinForms) with `<Nullable>enable</Nullable>` and `<ImplicitUsings>enable</ImplicitUsings>`; no NuGet packages are needed (`Microsoft.Win32.Registry` is part of .NET 8 and only called on Windows).",
      "Add `LicenseClient.cs` to the project. Create one `LicenseClient`, `await CheckAsync()` at every start and `ActivateAsync(key)` when it answers `NeedsKey`; run only when `outcome.Allowed`. In WPF/WinForms show the messages in your own dialog instead of the console.",
      "`dotnet run` runs the example `Program.cs`; `dotnet run -- --deactivate` releases this machine.",
    ],
    files: [
      { path: "LicenseClient.cs", lang: "csharp", code: fill(CLIENT_CS, v) },
      { path: "Program.cs", lang: "csharp", code: fill(PROGRAM_CS, v) },
    ],
    notes: commonNotes(ctx),
  };
}
