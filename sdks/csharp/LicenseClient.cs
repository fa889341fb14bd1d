// License checks for com.example.app against http://localhost:3000 (.NET 8: HttpClient, System.Text.Json, SHA256; Ed25519
// from the BouncyCastle.Cryptography package, for signed offline license files).
using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Http.Json;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.RegularExpressions;
using Microsoft.Win32;
using Org.BouncyCastle.Crypto.Parameters;
using Org.BouncyCastle.Crypto.Signers;

namespace Licensing;

public enum LicenseStatus
{
    Valid,           // run
    OfflineGrace,    // run: the server is unreachable; the signed license file (or a recent validation) allows it
    NeedsKey,        // ask for a (new) key
    Expired,         // offer renewal
    TrialExpired,    // offer to buy
    Revoked,         // stop
    TooManyMachines, // tell the user to release a machine
    Unreachable,     // no server and no recent validation
    Error,           // anything else; see Message
}

/// <summary>LicenseKey: the key BuyAndActivateAsync received and stored (null otherwise).</summary>
public sealed record LicenseOutcome(LicenseStatus Status, string Message, bool Trial = false, int TrialDaysRemaining = 0, string? LicenseKey = null)
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
    [property: JsonPropertyName("error")] string? Error,
    [property: JsonPropertyName("detail")] string? Detail);

/// <summary>POST /api/v1/device/authorize's answer (buying from inside the app).</summary>
internal sealed record DeviceAuthorization(
    [property: JsonPropertyName("device_code")] string? DeviceCode,
    [property: JsonPropertyName("user_code")] string? UserCode,
    [property: JsonPropertyName("verification_uri_complete")] string? VerificationUriComplete,
    [property: JsonPropertyName("expires_in")] int? ExpiresIn,
    [property: JsonPropertyName("interval")] int? Interval);

/// <summary>POST /api/v1/device/token's answer once the buyer is done: the license, activated on this machine.</summary>
internal sealed record DeviceToken([property: JsonPropertyName("license_key")] string? LicenseKey);

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

/// <summary>A license file that does not allow running offline; the message says why.</summary>
public sealed class LicenseFileInvalidException(string message) : Exception(message);

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
    public const string ServerUrl = "http://localhost:3000";
    public const string AppId = "com.example.app";
    public const int OfflineGraceDays = 7;
    private static readonly TimeSpan OfflineGrace = TimeSpan.FromDays(OfflineGraceDays);
    /// <summary>A 429 whose Retry-After is at most this long is waited out once.</summary>
    private static readonly TimeSpan MaxRetryAfterWait = TimeSpan.FromSeconds(10);
    private static readonly JsonSerializerOptions StateJson = new() { WriteIndented = true };

    // ---- LICENSE_PUBLIC_KEYS: the service's Ed25519 public key(s), embedded at build time (never fetched at run time).
    // key-id (the license file's "key-id" line) -> base64url of the raw 32-byte key. When the service rotates its key,
    // add the new key-id and keep the old one until the files it signed have expired. With no usable key here, the app
    // does not fetch license files and keeps the unsigned OfflineGraceDays grace instead.
    public static readonly IReadOnlyDictionary<string, string> LICENSE_PUBLIC_KEYS = new Dictionary<string, string>
    {
        ["did:web:localhost%3A3000#ed25519-1"] = "", // placeholder: replace "" with the key printed by the command in the setup steps
    };
    public const string LicenseFileFormat = "ilm-license-file/1";
    private const string LicenseFileEndpoint = "/api/license-file";
    private const int LicenseFileMaxBytes = 16 * 1024;
    /// <summary>How far this machine's clock may be behind the server's when a license file's issued_at is checked.</summary>
    private static readonly TimeSpan ClockSkew = TimeSpan.FromMinutes(5);
    /// <summary>What /activate accepts for the machine's name and the app's version, in characters (see CleanText).</summary>
    private const int MachineNameMaxChars = 100;
    private const int AppVersionMaxChars = 64;
    // Buying from inside the app: the grant type the token endpoint is polled with (RFC 8628), and how many network
    // failures in a row end the wait for the buyer.
    private const string DeviceGrantType = "urn:ietf:params:oauth:grant-type:device_code";
    private const int DeviceMaxFailures = 3;

    private readonly HttpClient _http;
    private readonly string _statePath;
    private readonly string _licenseFilePath;
    private readonly string _appVersion;

    /// <summary>
    /// appVersion (default: the entry assembly's version, the project's &lt;Version&gt;) is sent with the machine's name
    /// and platform when this machine is activated, so the buyer and you can tell machines apart.
    /// </summary>
    public LicenseClient(string? stateDirectory = null, string? appVersion = null)
    {
        _appVersion = CleanText(appVersion ?? EntryAssemblyVersion() ?? "", AppVersionMaxChars);
        _http = new HttpClient { BaseAddress = new Uri(ServerUrl + "/"), Timeout = TimeSpan.FromSeconds(10) };
        _http.DefaultRequestHeaders.Accept.ParseAdd("application/json");
        var dir = stateDirectory ?? Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.ApplicationData), AppId);
        _statePath = Path.Combine(dir, "license.json");
        _licenseFilePath = Path.Combine(dir, "license.lic");
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

    /// <summary>
    /// Buys and activates from inside the app (OAuth device authorization, RFC 8628): asks the server for a short code,
    /// calls openUrl(address, code) so the buyer can open the address in a browser and buy a license there (or pick one
    /// they hold; default: both printed on the console), then polls until the license arrives, activated on this
    /// machine, and stores and validates it exactly as ActivateAsync does (the outcome's LicenseKey holds it).
    /// Cancelling ct stops waiting; otherwise it ends when the buyer declines or the request expires (15 minutes).
    /// </summary>
    public async Task<LicenseOutcome> BuyAndActivateAsync(Action<string, string>? openUrl = null, CancellationToken ct = default)
    {
        if (!TryFingerprint(out var fingerprint, out var failure)) return failure!;
        DeviceAuthorization start;
        try
        {
            // The same machine details as an activation: the license arrives activated on this machine.
            start = await SendAsync<DeviceAuthorization>("api/v1/device/authorize", MachineBody(fingerprint), ct);
        }
        catch (LicenseServerUnavailableException e)
        {
            return new(LicenseStatus.Unreachable, $"Could not reach the license server to start the purchase ({e.Message}). Check your connection and try again.");
        }
        catch (LicenseRequestRejectedException e)
        {
            return new(LicenseStatus.Error, $"The license server refused the request ({e.Code}): {e.Detail}");
        }
        if (start.DeviceCode is null || start.VerificationUriComplete is null)
            return new(LicenseStatus.Error, "Unexpected answer from the license server.");
        var interval = TimeSpan.FromSeconds(start.Interval is > 0 ? start.Interval.Value : 5);
        var deadline = DateTimeOffset.UtcNow.AddSeconds(start.ExpiresIn is > 0 ? start.ExpiresIn.Value : 900);
        (openUrl ?? PrintPurchaseUrl)(start.VerificationUriComplete, start.UserCode ?? "");

        var poll = new { grant_type = DeviceGrantType, device_code = start.DeviceCode };
        DeviceToken token;
        for (var failures = 0; ;)
        {
            try
            {
                await Task.Delay(interval, ct);
                if (DateTimeOffset.UtcNow > deadline)
                    return new(LicenseStatus.Error, "The purchase was not finished in time (expired_token). Start again to buy.");
                token = await SendAsync<DeviceToken>("api/v1/device/token", poll, ct);
                break;
            }
            catch (OperationCanceledException) when (ct.IsCancellationRequested)
            {
                return new(LicenseStatus.Error, "Buying was cancelled.");
            }
            catch (LicenseServerUnavailableException e)
            {
                // The buyer may be paying right now: a short outage is waited out.
                if (++failures >= DeviceMaxFailures)
                    return new(LicenseStatus.Unreachable, $"Lost the license server while waiting for the purchase ({e.Message}). Start again when online; a license you bought is in your account.");
            }
            catch (LicenseRequestRejectedException e)
            {
                failures = 0;
                switch (e.Code)
                {
                    case "authorization_pending":
                        break;
                    case "slow_down":
                        interval += TimeSpan.FromSeconds(5); // as RFC 8628 asks
                        break;
                    case "access_denied":
                        return new(LicenseStatus.Error, "The purchase was declined in the browser (access_denied).");
                    case "expired_token":
                        return new(LicenseStatus.Error, "The purchase was not finished in time (expired_token). Start again to buy.");
                    case "invalid_grant":
                        return new(LicenseStatus.Error, "The license server does not know this purchase (invalid_grant). Start again to buy.");
                    default:
                        return new(LicenseStatus.Error, $"The license server refused the request ({e.Code}): {e.Detail}");
                }
            }
        }

        // Approved: the license is activated on this machine. Store it first, so a failed validation keeps the key.
        var key = (token.LicenseKey ?? "").Trim().ToUpperInvariant();
        if (!KeyPattern().IsMatch(key)) return new(LicenseStatus.Error, "Unexpected answer from the license server.");
        var stored = new LicenseState { LicenseKey = key, Fingerprint = fingerprint };
        SaveState(stored);
        var outcome = await CheckKeyAsync(key, fingerprint, stored, newlyEntered: false, ct);
        return outcome.Allowed ? outcome with { LicenseKey = key } : outcome;
    }

    private static void PrintPurchaseUrl(string url, string userCode) =>
        Console.WriteLine($"To buy and activate, open {url} in your browser and check that it shows the code {userCode}.");

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

    /// <summary>The running app's version: its informational version without build metadata ("1.4.2+abc" is "1.4.2").</summary>
    private static string? EntryAssemblyVersion()
    {
        var assembly = Assembly.GetEntryAssembly();
        var informational = assembly?.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion;
        return informational?.Split('+')[0] ?? assembly?.GetName().Version?.ToString();
    }

    /// <summary>
    /// text without control characters (the server refuses them), cut to maxChars characters as the server counts them
    /// (UTF-16 units) without cutting a surrogate pair in two.
    /// </summary>
    private static string CleanText(string text, int maxChars)
    {
        var clean = new StringBuilder();
        foreach (var rune in text.EnumerateRunes())
        {
            if (Rune.IsControl(rune)) continue;
            if (clean.Length + rune.Utf16SequenceLength > maxChars) break;
            clean.Append(rune.ToString());
        }
        return clean.ToString();
    }

    /// <summary>This machine's name (Environment.MachineName); empty when the system cannot tell.</summary>
    private static string MachineName()
    {
        try
        {
            return Environment.MachineName;
        }
        catch (InvalidOperationException)
        {
            return "";
        }
    }

    /// <summary>This process's OS and CPU, named as releases name platforms: windows-x64, macos-arm64, linux-x64, ...</summary>
    private static string PlatformName()
    {
        var os = OperatingSystem.IsWindows() ? "windows" : OperatingSystem.IsMacOS() ? "macos" : OperatingSystem.IsLinux() ? "linux" : "other";
        var arch = RuntimeInformation.ProcessArchitecture switch
        {
            Architecture.X64 => "x64",
            Architecture.Arm64 => "arm64",
            Architecture.X86 => "x86",
            var other => other.ToString().ToLowerInvariant(),
        };
        return $"{os}-{arch}";
    }

    /// <summary>The /activate body: the key, this machine and product, and what the buyer and seller see about the machine.</summary>
    private Dictionary<string, string> ActivationBody(string key, string fingerprint)
    {
        var body = MachineBody(fingerprint);
        body["license_key"] = key;
        return body;
    }

    /// <summary>This machine and product, and what the buyer and seller see about the machine (empty values left out).</summary>
    private Dictionary<string, string> MachineBody(string fingerprint)
    {
        var body = new Dictionary<string, string> { ["machine_fingerprint"] = fingerprint, ["plugin_id"] = AppId };
        var details = new[]
        {
            ("machine_name", CleanText(MachineName(), MachineNameMaxChars)),
            ("platform", PlatformName()),
            ("app_version", _appVersion),
        };
        foreach (var (name, value) in details)
            if (value.Length > 0) body[name] = value;
        return body;
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
                var activation = await PostAsync("activate", ActivationBody(key, fingerprint), ct);
                if (activation.Activated != true) return Refusal(activation);
                activated = true;
            }
            answer = await PostAsync("validate", body, ct);
            if (!activated && answer.Code is "NO_MACHINE" or "FINGERPRINT_SCOPE_MISMATCH")
            {
                // The key is fine but this machine is not (or no longer) activated: take a seat, then validate again.
                var activation = await PostAsync("activate", ActivationBody(key, fingerprint), ct);
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
            await RefreshLicenseFileAsync(key, fingerprint, ct);
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
            DeleteLicenseFile();
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

    private LicenseOutcome Offline(LicenseState state, string key, string fingerprint, string reason)
    {
        var now = DateTimeOffset.UtcNow;
        if (EmbeddedPublicKeys().Count > 0)
        {
            // A key is embedded: only a verified license file lets the app run offline.
            try
            {
                var text = ReadLicenseFile() ?? throw new LicenseFileInvalidException("no license file");
                var payload = VerifyLicenseFile(text, fingerprint, key, now);
                var expires = DateTimeOffset.Parse(payload.GetProperty("expires_at").GetString()!, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal);
                var daysLeft = (int)Math.Ceiling((expires - now).TotalDays);
                var trial = payload.GetProperty("license").TryGetProperty("trial", out var t) && t.ValueKind == JsonValueKind.True;
                return new(LicenseStatus.OfflineGrace, $"Could not reach the license server ({reason}). Running offline on this machine's signed license file for up to {daysLeft} more day(s).",
                    Trial: trial, TrialDaysRemaining: trial ? daysLeft : 0);
            }
            catch (LicenseFileInvalidException e)
            {
                return new(LicenseStatus.Unreachable, $"Could not reach the license server ({reason}). No valid offline license file: {e.Message}. Connect to the internet to verify your license.");
            }
        }
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

    // ------------------------------------------------------------ signed offline license files

    [GeneratedRegex("^[A-Za-z0-9_-]*$")]
    private static partial Regex Base64UrlAlphabet();

    /// <summary>Unpadded base64url (.NET 8 has no decoder for it).</summary>
    private static bool TryBase64UrlDecode(string text, out byte[] bytes)
    {
        bytes = Array.Empty<byte>();
        if (text.Length % 4 == 1 || !Base64UrlAlphabet().IsMatch(text)) return false;
        var padded = text.Replace('-', '+').Replace('_', '/') + new string('=', (4 - text.Length % 4) % 4);
        try
        {
            bytes = Convert.FromBase64String(padded);
            return true;
        }
        catch (FormatException)
        {
            return false;
        }
    }

    /// <summary>The usable entries of LICENSE_PUBLIC_KEYS, raw (placeholders and malformed keys are skipped).</summary>
    private static Dictionary<string, byte[]> EmbeddedPublicKeys()
    {
        var keys = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        foreach (var (keyId, b64) in LICENSE_PUBLIC_KEYS)
        {
            if (TryBase64UrlDecode(b64, out var raw) && raw.Length == 32) keys[keyId] = raw;
        }
        return keys;
    }

    private static bool Ed25519Verify(byte[] publicKey, byte[] message, byte[] signature)
    {
        try
        {
            var verifier = new Ed25519Signer();
            verifier.Init(false, new Ed25519PublicKeyParameters(publicKey, 0));
            verifier.BlockUpdate(message, 0, message.Length);
            return verifier.VerifySignature(signature);
        }
        catch (ArgumentException)
        {
            return false; // not a valid public key
        }
    }

    /// <summary>
    /// The payload of a license file that lets this machine run at <paramref name="now"/>; throws
    /// LicenseFileInvalidException otherwise. Checks the armour and format line, the key-id against LICENSE_PUBLIC_KEYS,
    /// the Ed25519 signature over the exact bytes "ilm-license-file/1." + payload, then the fingerprint, AppId, the key
    /// (null: any) and the file's time window (<paramref name="now"/> null: skipped, for a file the server has just
    /// issued, which a clock running a few minutes slow would refuse for now).
    /// </summary>
    public static JsonElement VerifyLicenseFile(string text, string fingerprint, string? licenseKey, DateTimeOffset? now)
    {
        static string? Str(JsonElement e, string name) =>
            e.ValueKind == JsonValueKind.Object && e.TryGetProperty(name, out var v) && v.ValueKind == JsonValueKind.String ? v.GetString() : null;
        static DateTimeOffset? Time(string? value) =>
            value is not null && DateTimeOffset.TryParse(value, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal, out var t) ? t : null;

        if (text.Length > LicenseFileMaxBytes) throw new LicenseFileInvalidException("malformed license file (size)");
        var lines = text.Replace("
", "
").Split('
').Select(l => l.Trim()).Where(l => l.Length > 0).ToArray();
        if (lines.Length != 6 || lines[0] != "-----BEGIN LICENSE FILE-----" || lines[5] != "-----END LICENSE FILE-----")
            throw new LicenseFileInvalidException("malformed license file (armour)");
        var names = new[] { "format", "key-id", "payload", "signature" };
        var header = new string[4];
        for (var i = 0; i < 4; i++)
        {
            var prefix = names[i] + ": ";
            if (!lines[i + 1].StartsWith(prefix, StringComparison.Ordinal))
                throw new LicenseFileInvalidException($"malformed license file (expected the {names[i]} line)");
            header[i] = lines[i + 1][prefix.Length..].Trim();
        }
        var (format, keyId, payloadB64, signatureB64) = (header[0], header[1], header[2], header[3]);
        if (format != LicenseFileFormat) throw new LicenseFileInvalidException($"unsupported license file format "{format}"");
        if (!EmbeddedPublicKeys().TryGetValue(keyId, out var publicKey)) throw new LicenseFileInvalidException($"unknown signing key "{keyId}"");
        if (!TryBase64UrlDecode(signatureB64, out var signature) || signature.Length != 64 || !TryBase64UrlDecode(payloadB64, out var payloadBytes))
            throw new LicenseFileInvalidException("malformed license file (base64url)");
        // The signed bytes: "ilm-license-file/1." followed by the payload line's value, exactly as it is in the file.
        if (!Ed25519Verify(publicKey, Encoding.ASCII.GetBytes(LicenseFileFormat + "." + payloadB64), signature))
            throw new LicenseFileInvalidException("signature does not verify");

        JsonElement payload;
        try
        {
            using var document = JsonDocument.Parse(payloadBytes);
            payload = document.RootElement.Clone();
        }
        catch (JsonException)
        {
            throw new LicenseFileInvalidException("malformed license file payload");
        }
        if (payload.ValueKind != JsonValueKind.Object
            || !payload.TryGetProperty("license", out var license) || license.ValueKind != JsonValueKind.Object
            || !payload.TryGetProperty("machine", out var machine) || machine.ValueKind != JsonValueKind.Object)
            throw new LicenseFileInvalidException("malformed license file payload");
        if (Str(payload, "format") != LicenseFileFormat || Str(payload, "key_id") != keyId)
            throw new LicenseFileInvalidException("the payload's format or key-id differs from the file's");
        if (Str(machine, "fingerprint") != fingerprint) throw new LicenseFileInvalidException("issued for another machine");
        if (Str(license, "plugin_id") != AppId) throw new LicenseFileInvalidException("issued for another product");
        if (licenseKey is not null && Str(license, "key") != licenseKey) throw new LicenseFileInvalidException("issued for another license key");
        var issued = Time(Str(payload, "issued_at"));
        var expires = Time(Str(payload, "expires_at"));
        var licenseEndsText = Str(license, "expires_at");
        var licenseEnds = Time(licenseEndsText);
        if (issued is null || expires is null || (licenseEndsText is not null && licenseEnds is null))
            throw new LicenseFileInvalidException("malformed license file payload (issued_at, expires_at)");
        if (now is null) return payload;
        if (now + ClockSkew < issued) throw new LicenseFileInvalidException("the clock is set before the license file was issued");
        if (now >= expires || (licenseEnds is not null && now >= licenseEnds))
            throw new LicenseFileInvalidException("the license file has expired");
        return payload;
    }

    /// <summary>The stored license file, or null when there is none.</summary>
    private string? ReadLicenseFile()
    {
        try
        {
            var info = new FileInfo(_licenseFilePath);
            if (!info.Exists) return null;
            if (info.Length > LicenseFileMaxBytes) throw new LicenseFileInvalidException("malformed license file (size)");
            return File.ReadAllText(_licenseFilePath, Encoding.ASCII);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>After a good validation: fetches this machine's license file and stores it when it verifies.</summary>
    private async Task RefreshLicenseFileAsync(string key, string fingerprint, CancellationToken ct)
    {
        if (EmbeddedPublicKeys().Count == 0) return; // nothing could verify it
        try
        {
            // The key is checked, the fingerprint is hex and AppId is URL-safe: nothing to escape.
            using var response = await _http.GetAsync($"{LicenseFileEndpoint.TrimStart('/')}?key={key}&fingerprint={fingerprint}&plugin_id={AppId}", ct);
            if (response.StatusCode != HttpStatusCode.OK) return;
            var text = await response.Content.ReadAsStringAsync(ct);
            VerifyLicenseFile(text, fingerprint, key, now: null); // just issued: the window is the server's
            Directory.CreateDirectory(Path.GetDirectoryName(_licenseFilePath)!);
            var tmp = _licenseFilePath + ".tmp";
            File.WriteAllText(tmp, text, Encoding.ASCII);
            File.Move(tmp, _licenseFilePath, overwrite: true);
        }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested)
        {
            // timed out: the previous file stays
        }
        catch (Exception e) when (e is HttpRequestException or LicenseFileInvalidException or IOException or UnauthorizedAccessException)
        {
            Debug.WriteLine($"no new license file: {e.Message}"); // the previous file stays
        }
    }

    private void DeleteLicenseFile()
    {
        try
        {
            File.Delete(_licenseFilePath);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            Debug.WriteLine($"could not delete the license file: {e.Message}");
        }
    }

    // ------------------------------------------------------------ HTTP

    private async Task<LicenseAnswer> PostAsync(string endpoint, object body, CancellationToken ct)
    {
        var answer = await SendAsync<LicenseAnswer>(endpoint, body, ct);
        return answer is { Code: not null } ? answer : throw new LicenseServerUnavailableException("unexpected answer from the license server");
    }

    /// <summary>
    /// POSTs JSON to ServerUrl + endpoint and reads a 2xx answer as T. Throws LicenseServerUnavailableException (network,
    /// 5xx, 429, unreadable answer) or LicenseRequestRejectedException (other 4xx: the problem's code, or its RFC 8628 error).
    /// </summary>
    private async Task<T> SendAsync<T>(string endpoint, object body, CancellationToken ct) where T : class
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
                        var answer = await response.Content.ReadFromJsonAsync<T>(ct);
                        return answer ?? throw new LicenseServerUnavailableException("unexpected answer from the license server");
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
                throw new LicenseRequestRejectedException(status, problem?.Code ?? problem?.Error ?? $"http_{status}", detail);
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

    /// <summary>Forgets the key, the cached validation and the license file.</summary>
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
        DeleteLicenseFile();
    }
}
