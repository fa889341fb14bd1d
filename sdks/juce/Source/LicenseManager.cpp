// License checks for com.example.app against http://localhost:3000. Link OpenSSL's libcrypto (Ed25519 verification).
#include "LicenseManager.h"
#include "license_file.h" // the signed license file check, shared with the C and C++ integrations

#include <map>
#include <memory>
#include <string>

namespace licensing
{
namespace
{
const juce::String serverUrl { "http://localhost:3000" };
const juce::String appId { "com.example.app" };
constexpr int offlineGraceDays = 7;
constexpr juce::int64 offlineGraceMs = (juce::int64) offlineGraceDays * 24 * 60 * 60 * 1000;
constexpr int httpTimeoutMs = 10000;
// A 429 whose Retry-After is at most this long is waited out once; a longer one counts as "unavailable".
constexpr int maxRetryAfterWaitSeconds = 10;

// ---- LICENSE_PUBLIC_KEYS: the service's Ed25519 public key(s), embedded at build time (never fetched at run time).
// key-id (the license file's "key-id" line) -> base64url of the raw 32-byte key. When the service rotates its key,
// add the new key-id and keep the old one until the files it signed have expired. With no usable key here, the app
// does not fetch license files and keeps the unsigned offlineGraceDays grace instead.
const license_public_key LICENSE_PUBLIC_KEYS[] {
    { "did:web:localhost%3A3000#ed25519-1", "" }, // placeholder: replace "" with the key printed by the command in the setup steps
};
constexpr int licenseFileMaxBytes = LICENSE_FILE_MAX_BYTES;
// What /activate accepts for the machine's name and the app's version, in characters (see cleanText).
constexpr int machineNameMaxChars = 100;
constexpr int appVersionMaxChars = 64;
// Buying from inside the app: the grant type the token endpoint is polled with (RFC 8628), and how many network
// failures in a row end the wait for the buyer.
const juce::String deviceGrantType { "urn:ietf:params:oauth:grant-type:device_code" };
constexpr int deviceMaxFailures = 3;

// This build's OS and CPU, named as releases name platforms: windows-x64, macos-arm64, linux-x64, ...
const juce::String platformName
{
   #if JUCE_WINDOWS
    "windows-"
   #elif JUCE_MAC
    "macos-"
   #elif JUCE_LINUX
    "linux-"
   #else
    "other-"
   #endif
   #if JUCE_INTEL && JUCE_64BIT
    "x64"
   #elif JUCE_ARM && JUCE_64BIT
    "arm64"
   #elif JUCE_INTEL
    "x86"
   #else
    "other"
   #endif
};

Outcome make (Status status, const juce::String& message)
{
    Outcome o;
    o.status = status;
    o.message = message;
    return o;
}

//==============================================================================
juce::String osIdentifier()
{
   #if JUCE_WINDOWS
    return juce::WindowsRegistry::getValue ("HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Cryptography\\MachineGuid", {},
                                            juce::WindowsRegistry::WoW64_64bit).trim();
   #elif JUCE_MAC
    juce::ChildProcess ioreg;
    if (! ioreg.start (juce::StringArray { "ioreg", "-rd1", "-c", "IOPlatformExpertDevice" }, juce::ChildProcess::wantStdOut))
        return {};
    const auto output = ioreg.readAllProcessOutput();
    return output.fromFirstOccurrenceOf ("\"IOPlatformUUID\"", false, false)
                 .fromFirstOccurrenceOf ("\"", false, false)
                 .upToFirstOccurrenceOf ("\"", false, false)
                 .trim();
   #else
    for (auto* path : { "/etc/machine-id", "/var/lib/dbus/machine-id" })
    {
        const auto id = juce::File (path).loadFileAsString().trim();
        if (id.isNotEmpty())
            return id;
    }
    return {};
   #endif
}

//==============================================================================
// The state file: <user settings dir>/com.example.app/com.example.app.license (XML), saved explicitly after each change.
std::unique_ptr<juce::PropertiesFile> openState()
{
    juce::PropertiesFile::Options options;
    options.applicationName = appId;
    options.folderName = appId;
    options.filenameSuffix = ".license";
    options.osxLibrarySubFolder = "Application Support";
    options.storageFormat = juce::PropertiesFile::storeAsXML;
    options.millisecondsBeforeSaving = -1;
    return std::make_unique<juce::PropertiesFile> (options);
}

void saveGoodValidation (const juce::String& key, const juce::String& fingerprint, const juce::var& answer)
{
    auto state = openState();
    state->setValue ("licenseKey", key);
    state->setValue ("fingerprint", fingerprint);
    state->setValue ("validatedAt", juce::Time::currentTimeMillis());
    state->setValue ("expiresAt", answer["expires_at"].isString() ? answer["expires_at"].toString() : juce::String());
    state->saveIfNeeded();
}

/** The signed license file, next to the state file. */
juce::File licenseFile() { return openState()->getFile().getSiblingFile ("license.lic"); }

/** Forgets the key, the cached validation and the license file. */
void clearState()
{
    auto state = openState();
    state->clear();
    state->saveIfNeeded();
    state->getFile().deleteFile();
    licenseFile().deleteFile();
}

//==============================================================================
// Signed offline license files.

bool hasEmbeddedPublicKey()
{
    return license_file_has_key (LICENSE_PUBLIC_KEYS, std::size (LICENSE_PUBLIC_KEYS)) != 0;
}

/** Milliseconds since the epoch of an ISO 8601 time, or 0 when it is not one. */
juce::int64 isoMs (const juce::var& value)
{
    return value.isString() ? juce::Time::fromISO8601 (value.toString()).toMilliseconds() : 0;
}

/** The JSON payload of a license file (read only after license_file_verify has accepted the file). */
juce::var licenseFilePayload (const juce::String& text)
{
    for (const auto& line : juce::StringArray::fromLines (text))
    {
        if (! line.trim().startsWith ("payload: "))
            continue;

        auto b64 = line.trim().substring (9).replaceCharacters ("-_", "+/");
        while (b64.length() % 4 != 0)
            b64 << "=";

        juce::MemoryOutputStream out;
        if (juce::Base64::convertFromBase64 (out, b64))
            return juce::JSON::parse (out.toString());
    }

    return {};
}

/** Checks a license file; an empty string when this machine may run on it now, otherwise why not. */
juce::String checkLicenseFile (const juce::String& text, const juce::String& fingerprint, const juce::String& key,
                               juce::int64 nowMs, juce::var& payload)
{
    long long expires = 0;
    const auto utf8 = text.toStdString();
    const char* why = license_file_verify (utf8.c_str(), LICENSE_PUBLIC_KEYS, std::size (LICENSE_PUBLIC_KEYS), appId.toRawUTF8(),
                                           fingerprint.toRawUTF8(), key.isEmpty() ? nullptr : key.toRawUTF8(),
                                           nowMs < 0 ? -1 : nowMs / 1000, &expires);
    if (why != nullptr)
        return why;

    payload = licenseFilePayload (text);
    return {};
}

/** GETs /api/license-file for this activated machine; empty when there is no usable answer. */
juce::String fetchLicenseFile (const juce::String& key, const juce::String& fingerprint)
{
    const auto url = juce::URL (serverUrl + "/api/license-file")
                         .withParameter ("key", key)
                         .withParameter ("fingerprint", fingerprint)
                         .withParameter ("plugin_id", appId);
    juce::WebInputStream stream (url, false);
    stream.withExtraHeaders ("Accept: text/plain").withConnectionTimeout (httpTimeoutMs).withNumRedirectsToFollow (0);

    if (! stream.connect (nullptr) || stream.getStatusCode() != 200)
        return {};

    const auto text = stream.readEntireStreamAsString();
    return text.getNumBytesAsUTF8() <= (size_t) licenseFileMaxBytes ? text : juce::String();
}

/** After a good validation: fetches this machine's license file and stores it when it verifies. */
void refreshLicenseFile (const juce::String& key, const juce::String& fingerprint)
{
    if (! hasEmbeddedPublicKey())
        return; // nothing could verify it

    const auto text = fetchLicenseFile (key, fingerprint);
    juce::var payload;

    if (text.isNotEmpty() && checkLicenseFile (text, fingerprint, key, -1, payload).isEmpty()) // a slow clock must not refuse it
    {
        const auto file = licenseFile();
        juce::TemporaryFile tmp (file);

        if (tmp.getFile().replaceWithText (text, false, false, "\n"))
            tmp.overwriteTargetFileWithTemporary(); // otherwise the previous file stays
    }
}

//==============================================================================
struct Response
{
    enum class Kind { ok, unavailable, rejected } kind = Kind::unavailable;
    juce::var json;
    juce::String reason; // unavailable: why; rejected: "code: detail"
    juce::String code;   // rejected: the problem's code (or, failing that, its RFC 8628 error)
};

/** A 2xx answer without a code member counts as unavailable when needsCode (the device endpoints' answers have none). */
Response post (const juce::String& endpoint, const juce::var& body, bool needsCode = true)
{
    const auto payload = juce::JSON::toString (body, true);

    for (int attempt = 0; attempt < 2; ++attempt)
    {
        juce::WebInputStream stream (juce::URL (serverUrl + endpoint).withPOSTData (payload), true);
        stream.withExtraHeaders ("Content-Type: application/json\r\nAccept: application/json")
              .withConnectionTimeout (httpTimeoutMs)
              .withNumRedirectsToFollow (0);

        Response r;

        if (! stream.connect (nullptr) || stream.getStatusCode() == 0)
        {
            r.reason = "cannot reach " + serverUrl;
            return r;
        }

        const int status = stream.getStatusCode();
        const auto text = stream.readEntireStreamAsString();
        const auto json = juce::JSON::parse (text);

        if (status == 429)
        {
            const auto retryAfter = stream.getResponseHeaders()["Retry-After"].trim();
            const int wait = retryAfter.containsOnly ("0123456789") && retryAfter.isNotEmpty() ? retryAfter.getIntValue() : 60;

            if (attempt == 0 && wait <= maxRetryAfterWaitSeconds)
            {
                juce::Thread::sleep (wait * 1000);
                continue;
            }

            r.reason = "too many requests; retry in " + juce::String (wait) + " s";
            return r;
        }

        if (status >= 200 && status < 300)
        {
            if (needsCode && ! json["code"].isString())
            {
                r.reason = "unexpected answer from the license server";
                return r;
            }

            r.kind = Response::Kind::ok;
            r.json = json;
            return r;
        }

        const auto code = json["code"].isString()  ? json["code"].toString()
                        : json["error"].isString() ? json["error"].toString()
                                                   : "http_" + juce::String (status);
        const auto detail = json["detail"].isString() ? json["detail"].toString() : "HTTP " + juce::String (status);

        if (status >= 500)
        {
            r.reason = "server error " + juce::String (status) + ": " + detail;
            return r;
        }

        r.kind = Response::Kind::rejected;
        r.reason = code + ": " + detail;
        r.code = code;
        return r;
    }

    return { Response::Kind::unavailable, {}, "too many requests", {} };
}

/**
 * At most maxChars characters as the server counts them (UTF-16 units: a character beyond U+FFFF counts two), without
 * the control characters the server refuses (U+0000-U+001F, U+007F-U+009F).
 */
juce::String cleanText (const juce::String& text, int maxChars)
{
    juce::String out;
    int chars = 0;

    for (auto p = text.getCharPointer(); ! p.isEmpty();)
    {
        const auto c = p.getAndAdvance();

        if (c < 0x20 || (c >= 0x7f && c <= 0x9f))
            continue;

        const int width = c > 0xffff ? 2 : 1;

        if (chars + width > maxChars)
            break;

        out += c;
        chars += width;
    }

    return out;
}

/** What the buyer and the seller see about this machine (empty values left out); juce::JSON escapes every value. */
void addMachineDetails (juce::DynamicObject& body, const juce::String& appVersion)
{
    const std::pair<const char*, juce::String> details[] {
        { "machine_name", cleanText (juce::SystemStats::getComputerName(), machineNameMaxChars) },
        { "platform", platformName },
        { "app_version", cleanText (appVersion, appVersionMaxChars) },
    };

    for (const auto& [name, value] : details)
        if (value.isNotEmpty())
            body.setProperty (name, value);
}

/** appVersion is sent (with the other machine details) only to /activate. */
Response call (const juce::String& endpoint, const juce::String& key, const juce::String& fingerprint,
               const juce::String& appVersion = {})
{
    juce::DynamicObject::Ptr body (new juce::DynamicObject());
    body->setProperty ("license_key", key);
    body->setProperty ("machine_fingerprint", fingerprint);

    if (endpoint != "/deactivate")
        body->setProperty ("plugin_id", appId);

    if (endpoint == "/activate")
        addMachineDetails (*body, appVersion);

    return post (endpoint, juce::var (body.get()));
}

//==============================================================================
juce::String codeOf (const juce::var& answer) { return answer["code"].toString(); }

/** The outcome of a /validate or /activate answer that does not allow running. */
Outcome refusal (const juce::var& answer)
{
    const auto code = codeOf (answer);

    if (code == "NOT_FOUND")          return make (Status::needsKey, "This license key was not found. Check it and enter it again.");
    if (code == "PRODUCT_MISMATCH")   return make (Status::needsKey, "This license key belongs to a different product. Enter the key for this app.");
    if (code == "REVOKED")            return make (Status::revoked, "This license has been revoked by the seller. Contact the seller if you think this is a mistake.");
    if (code == "EXPIRED")            return make (Status::expired, "This license has expired. Renew it to keep using the app.");
    if (code == "TRIAL_EXPIRED")      return make (Status::trialExpired, "Your trial has ended. Buy a license to keep using the app.");
    if (code == "TOO_MANY_MACHINES")
        return make (Status::tooManyMachines,
                     "This license is already active on " + answer["active_machines"].toString() + " of " + answer["max_machines"].toString()
                         + " machines. Release one (Deactivate in the app on that machine, or from your purchase page) and try again.");
    if (code == "NO_MACHINE" || code == "FINGERPRINT_SCOPE_MISMATCH")
        return make (Status::error, "This license is not activated on this machine and activation did not succeed.");

    return make (Status::error, "Unexpected answer from the license server (" + code + "): " + answer["detail"].toString());
}

Outcome offline (const juce::String& key, const juce::String& fingerprint, const juce::String& reason)
{
    const auto now = juce::Time::currentTimeMillis();

    if (hasEmbeddedPublicKey())
    {
        // A key is embedded: only a verified license file lets the app run offline.
        const auto file = licenseFile();
        juce::var payload;
        const auto why = ! file.existsAsFile() ? juce::String ("no license file")
                       : file.getSize() > licenseFileMaxBytes ? juce::String ("malformed license file (size)")
                       : checkLicenseFile (file.loadFileAsString(), fingerprint, key, now, payload);

        if (why.isNotEmpty())
            return make (Status::unreachable, "Could not reach the license server (" + reason + "). No valid offline license file: " + why
                                                  + ". Connect to the internet to verify your license.");

        const auto daysLeft = (isoMs (payload["expires_at"]) - now + 86399999) / 86400000;
        auto o = make (Status::offlineGrace, "Could not reach the license server (" + reason + "). Running offline on this machine's signed license file for up to "
                                                 + juce::String (daysLeft) + " more day(s).");
        o.trial = (bool) payload["license"]["trial"];
        o.trialDaysRemaining = o.trial ? (int) daysLeft : 0;
        return o;
    }

    auto state = openState();
    const auto validatedAt = (juce::int64) state->getValue ("validatedAt", "0").getLargeIntValue();

    if (state->getValue ("licenseKey") == key && state->getValue ("fingerprint") == fingerprint && validatedAt > 0)
    {
        const auto age = now - validatedAt;
        const auto expiresAt = state->getValue ("expiresAt");
        const bool stillLicensed = expiresAt.isEmpty() || juce::Time::fromISO8601 (expiresAt).toMilliseconds() > now;

        // A clock set back (age < 0) or a license that has run out since does not get the grace period.
        if (age >= 0 && age < offlineGraceMs && stillLicensed)
        {
            const auto daysLeft = (offlineGraceMs - age + 86399999) / 86400000;
            return make (Status::offlineGrace, "Could not reach the license server (" + reason + "). Running offline for up to "
                                                   + juce::String (daysLeft) + " more day(s).");
        }
    }

    return make (Status::unreachable, "Could not reach the license server (" + reason + "). Connect to the internet to verify your license.");
}

Outcome checkKey (const juce::String& key, const juce::String& fingerprint, bool newlyEntered, const juce::String& appVersion)
{
    bool activated = false;

    if (newlyEntered)
    {
        const auto activation = call ("/activate", key, fingerprint, appVersion);

        if (activation.kind == Response::Kind::unavailable)
            return make (Status::unreachable, "Could not reach the license server to activate (" + activation.reason + "). Check your connection and try again.");
        if (activation.kind == Response::Kind::rejected)
            return make (Status::error, "The license server refused the request (" + activation.reason + ").");
        if (! (bool) activation.json["activated"])
            return refusal (activation.json);

        activated = true;
    }

    auto answer = call ("/validate", key, fingerprint);

    if (answer.kind == Response::Kind::ok && ! activated
        && (codeOf (answer.json) == "NO_MACHINE" || codeOf (answer.json) == "FINGERPRINT_SCOPE_MISMATCH"))
    {
        // The key is fine but this machine is not (or no longer) activated: take a seat, then validate again.
        const auto activation = call ("/activate", key, fingerprint, appVersion);

        if (activation.kind == Response::Kind::ok && ! (bool) activation.json["activated"])
            return refusal (activation.json);

        answer = activation.kind == Response::Kind::ok ? call ("/validate", key, fingerprint) : activation;
    }

    if (answer.kind == Response::Kind::unavailable)
        return offline (key, fingerprint, answer.reason);
    if (answer.kind == Response::Kind::rejected)
        return make (Status::error, "The license server refused the request (" + answer.reason + ").");

    if ((bool) answer.json["valid"] && codeOf (answer.json) == "VALID")
    {
        saveGoodValidation (key, fingerprint, answer.json);
        refreshLicenseFile (key, fingerprint);

        if ((bool) answer.json["trial"])
        {
            const int days = (int) answer.json["trial_days_remaining"];
            auto o = make (Status::valid, "Trial license: " + juce::String (days) + " day(s) left.");
            o.trial = true;
            o.trialDaysRemaining = days;
            return o;
        }

        return make (Status::valid, "License valid.");
    }

    auto o = refusal (answer.json);

    if (o.status == Status::needsKey || o.status == Status::revoked || o.status == Status::trialExpired)
    {
        clearState(); // the next launch asks for a (new) key
    }
    else
    {
        auto state = openState(); // keep the key, drop the offline grace
        if (state->getValue ("licenseKey") == key)
        {
            state->removeValue ("validatedAt");
            state->saveIfNeeded();
            licenseFile().deleteFile();
        }
    }

    return o;
}

/** Upper-cased and trimmed key, or empty when it is not XXXX-XXXX-XXXX-XXXX. */
juce::String normaliseKey (const juce::String& typed)
{
    const auto key = typed.trim().toUpperCase();

    if (key.length() != 19)
        return {};

    for (int i = 0; i < key.length(); ++i)
    {
        const auto c = key[i];
        const bool ok = (i % 5 == 4) ? c == '-' : ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'));

        if (! ok)
            return {};
    }

    return key;
}
} // namespace

//==============================================================================
juce::String machineFingerprint()
{
    const auto os = osIdentifier();

    if (os.isEmpty())
        return {};

    const auto input = juce::SystemStats::getCpuModel().trim() + "|" + os;
    return juce::SHA256 (input.toUTF8()).toHexString();
}

juce::String verifyLicenseFile (const juce::String& text, const juce::String& fingerprint, const juce::String& key,
                                juce::int64 nowMs, juce::int64* expiresAtMs)
{
    juce::var payload;
    const auto why = checkLicenseFile (text, fingerprint, key, nowMs, payload);

    if (why.isEmpty() && expiresAtMs != nullptr)
        *expiresAtMs = isoMs (payload["expires_at"]);

    return why;
}

juce::String defaultAppVersion()
{
   #if defined (JucePlugin_VersionString)
    return JucePlugin_VersionString;
   #else
    if (auto* app = juce::JUCEApplicationBase::getInstance())
        return app->getApplicationVersion();

    return {};
   #endif
}

Outcome checkLicense (const juce::String& appVersion)
{
    const auto fingerprint = machineFingerprint();

    if (fingerprint.isEmpty())
        return make (Status::error, "Could not identify this machine.");

    auto state = openState();
    const auto key = state->getValue ("licenseKey");

    if (key.isEmpty() || state->getValue ("fingerprint") != fingerprint)
        return make (Status::needsKey, "A license key is required to use this app.");

    state.reset();
    return checkKey (key, fingerprint, false, appVersion);
}

Outcome activateLicense (const juce::String& enteredKey, const juce::String& appVersion)
{
    const auto key = normaliseKey (enteredKey);

    if (key.isEmpty())
        return make (Status::needsKey, "That does not look like a license key: it has the form XXXX-XXXX-XXXX-XXXX.");

    const auto fingerprint = machineFingerprint();

    if (fingerprint.isEmpty())
        return make (Status::error, "Could not identify this machine.");

    return checkKey (key, fingerprint, true, appVersion);
}

Outcome buyAndActivate (const juce::String& appVersion, const BuyOptions& options)
{
    const auto fingerprint = machineFingerprint();

    if (fingerprint.isEmpty())
        return make (Status::error, "Could not identify this machine.");

    // The same machine details as an activation: the license arrives activated on this machine.
    juce::DynamicObject::Ptr body (new juce::DynamicObject());
    body->setProperty ("plugin_id", appId);
    body->setProperty ("machine_fingerprint", fingerprint);
    addMachineDetails (*body, appVersion);
    const auto start = post ("/api/v1/device/authorize", juce::var (body.get()), false);

    if (start.kind == Response::Kind::unavailable)
        return make (Status::unreachable, "Could not reach the license server to start the purchase (" + start.reason + "). Check your connection and try again.");
    if (start.kind == Response::Kind::rejected)
        return make (Status::error, "The license server refused the request (" + start.reason + ").");

    const auto deviceCode = start.json["device_code"].toString();
    const auto url = start.json["verification_uri_complete"].toString();
    const auto userCode = start.json["user_code"].toString();

    if (deviceCode.isEmpty() || url.isEmpty())
        return make (Status::error, "Unexpected answer from the license server.");

    int interval = (int) start.json["interval"];
    if (interval < 1)
        interval = 5;
    const int expiresIn = (int) start.json["expires_in"];
    const auto deadline = juce::Time::getMillisecondCounterHiRes() + 1000.0 * (expiresIn > 0 ? expiresIn : 900);

    if (options.openUrl)
    {
        options.openUrl (url, userCode);
    }
    else
    {
        juce::Logger::writeToLog ("To buy and activate, open " + url + " in your browser and check that it shows the code " + userCode + ".");
        juce::URL (url).launchInDefaultBrowser();
    }

    juce::DynamicObject::Ptr poll (new juce::DynamicObject());
    poll->setProperty ("grant_type", deviceGrantType);
    poll->setProperty ("device_code", deviceCode);

    for (int failures = 0;;)
    {
        const bool keepWaiting = options.wait ? options.wait (interval)
                                              : (juce::Thread::sleep (interval * 1000), ! juce::Thread::currentThreadShouldExit());

        if (! keepWaiting)
            return make (Status::error, "Buying was cancelled.");
        if (juce::Time::getMillisecondCounterHiRes() > deadline)
            return make (Status::error, "The purchase was not finished in time (expired_token). Start again to buy.");

        const auto token = post ("/api/v1/device/token", juce::var (poll.get()), false);

        if (token.kind == Response::Kind::unavailable)
        {
            // The buyer may be paying right now: a short outage is waited out.
            if (++failures < deviceMaxFailures)
                continue;

            return make (Status::unreachable, "Lost the license server while waiting for the purchase (" + token.reason
                                                  + "). Start again when online; a license you bought is in your account.");
        }

        failures = 0;

        if (token.kind == Response::Kind::rejected)
        {
            if (token.code == "authorization_pending")
                continue;

            if (token.code == "slow_down")
            {
                interval += 5; // as RFC 8628 asks
                continue;
            }

            if (token.code == "access_denied")
                return make (Status::error, "The purchase was declined in the browser (access_denied).");
            if (token.code == "expired_token")
                return make (Status::error, "The purchase was not finished in time (expired_token). Start again to buy.");
            if (token.code == "invalid_grant")
                return make (Status::error, "The license server does not know this purchase (invalid_grant). Start again to buy.");

            return make (Status::error, "The license server refused the request (" + token.reason + ").");
        }

        // Approved: the license is activated on this machine. Store it first, so a failed validation keeps the key.
        const auto key = normaliseKey (token.json["license_key"].toString());

        if (key.isEmpty())
            return make (Status::error, "Unexpected answer from the license server.");

        {
            auto state = openState();
            state->clear();
            state->setValue ("licenseKey", key);
            state->setValue ("fingerprint", fingerprint);
            state->saveIfNeeded();
        }

        auto o = checkKey (key, fingerprint, false, appVersion);

        if (o.allowed())
            o.licenseKey = key;

        return o;
    }
}

Outcome deactivateThisMachine()
{
    const auto key = openState()->getValue ("licenseKey");

    if (key.isEmpty())
        return make (Status::needsKey, "No license is activated on this machine.");

    const auto answer = call ("/deactivate", key, machineFingerprint());

    if (answer.kind == Response::Kind::unavailable)
        return make (Status::unreachable, "Could not reach the license server (" + answer.reason + "). Try again when online.");
    if (answer.kind == Response::Kind::rejected)
        return make (Status::error, "The license server refused the request (" + answer.reason + ").");

    const auto code = codeOf (answer.json);

    if (code == "DEACTIVATED" || code == "NOT_ACTIVATED" || code == "NOT_FOUND")
    {
        clearState();
        return make (Status::needsKey, "This machine has been released; its seat is free again.");
    }

    return refusal (answer.json);
}
} // namespace licensing
