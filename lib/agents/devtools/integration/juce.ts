import { fill } from "../markdown.ts";
import { commonNotes, publicKeyLines, publicKeySetupStep, templateValues, type IntegrationContext, type IntegrationDoc } from "./common.ts";

const MANAGER_H = String.raw`// License checks for @@APP_ID@@ against @@SERVER_URL@@ (JUCE 7 or 8: juce_core, juce_cryptography,
// juce_data_structures; OpenSSL 1.1.1+ for Ed25519). Every function blocks on the network: call them from a
// background thread (see LicenseGate.h).
#pragma once

#include <juce_core/juce_core.h>
#include <juce_cryptography/juce_cryptography.h>
#include <juce_data_structures/juce_data_structures.h>

namespace licensing
{
enum class Status
{
    valid,           // run
    offlineGrace,    // run: the server is unreachable; the signed license file (or a recent validation) allows it
    needsKey,        // ask for a (new) key
    expired,         // offer renewal
    trialExpired,    // offer to buy
    revoked,         // stop
    tooManyMachines, // tell the user to release a machine
    unreachable,     // no server and no recent validation
    error            // anything else; see message
};

struct Outcome
{
    Status status = Status::error;
    juce::String message; // for the user
    bool trial = false;
    int trialDaysRemaining = 0;

    bool allowed() const noexcept { return status == Status::valid || status == Status::offlineGrace; }
};

/** Validates the stored key (re-activating this machine when needed); Status::needsKey when there is none. */
Outcome checkLicense();

/** Activates a key the user entered on this machine, validates it and stores it. */
Outcome activateLicense (const juce::String& enteredKey);

/** Releases this machine's seat so the key can be used elsewhere, and forgets the key here. */
Outcome deactivateThisMachine();

/** Lowercase hex SHA-256 of "<CPU brand>|<OS identifier>"; empty when the OS identifier is unavailable. */
juce::String machineFingerprint();

/**
 * Checks a signed offline license file (the text of license.lic) against LICENSE_PUBLIC_KEYS, the fingerprint, the
 * app id, the license key (empty: any) and the time nowMs (negative: skip the issued_at/expires_at window, for a file
 * the server has just issued). Returns an empty string when the app may run on it (and sets *expiresAtMs when not
 * null), otherwise why not.
 */
juce::String verifyLicenseFile (const juce::String& text, const juce::String& fingerprint, const juce::String& key,
                                juce::int64 nowMs, juce::int64* expiresAtMs = nullptr);
} // namespace licensing
`;

const MANAGER_CPP = String.raw`// License checks for @@APP_ID@@ against @@SERVER_URL@@. Link OpenSSL's libcrypto (Ed25519 verification).
#include "LicenseManager.h"

#include <map>
#include <memory>
#include <string>

#include <openssl/evp.h> // EVP_DigestVerify with Ed25519: OpenSSL 1.1.1 or newer

namespace licensing
{
namespace
{
const juce::String serverUrl { "@@SERVER_URL@@" };
const juce::String appId { "@@APP_ID@@" };
constexpr int offlineGraceDays = @@GRACE_DAYS@@;
constexpr juce::int64 offlineGraceMs = (juce::int64) offlineGraceDays * 24 * 60 * 60 * 1000;
constexpr int httpTimeoutMs = 10000;
// A 429 whose Retry-After is at most this long is waited out once; a longer one counts as "unavailable".
constexpr int maxRetryAfterWaitSeconds = 10;

// ---- LICENSE_PUBLIC_KEYS: the service's Ed25519 public key(s), embedded at build time (never fetched at run time).
// key-id (the license file's "key-id" line) -> base64url of the raw 32-byte key. When the service rotates its key,
// add the new key-id and keep the old one until the files it signed have expired. With no usable key here, the app
// does not fetch license files and keeps the unsigned offlineGraceDays grace instead.
const std::map<juce::String, juce::String> LICENSE_PUBLIC_KEYS {
@@PUBLIC_KEYS@@
};
const juce::String licenseFileFormat { "@@LICENSE_FILE_FORMAT@@" };
constexpr int licenseFileMaxBytes = 16 * 1024;
// How far this machine's clock may be behind the server's when a license file's issued_at is checked.
constexpr juce::int64 clockSkewMs = 5 * 60 * 1000;

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
// The state file: <user settings dir>/@@APP_ID@@/@@APP_ID@@.license (XML), saved explicitly after each change.
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

/** Unpadded base64url as bytes, or false (bad character or length). */
bool base64UrlDecode (const juce::String& text, std::string& out)
{
    out.clear();
    if (text.length() % 4 == 1)
        return false;

    juce::uint32 acc = 0;
    int bits = 0;

    for (auto p = text.getCharPointer(); ! p.isEmpty(); ++p)
    {
        const auto c = *p;
        int v = -1;
        if (c >= 'A' && c <= 'Z')      v = (int) (c - 'A');
        else if (c >= 'a' && c <= 'z') v = (int) (c - 'a') + 26;
        else if (c >= '0' && c <= '9') v = (int) (c - '0') + 52;
        else if (c == '-')             v = 62;
        else if (c == '_')             v = 63;

        if (v < 0)
            return false;

        acc = ((acc << 6) | (juce::uint32) v) & 0xFFFFFF;
        bits += 6;

        if (bits >= 8)
        {
            bits -= 8;
            out += (char) ((acc >> bits) & 0xFF);
        }
    }

    return true;
}

/** The usable entries of LICENSE_PUBLIC_KEYS, raw (placeholders and malformed keys are skipped). */
std::map<juce::String, std::string> embeddedPublicKeys()
{
    std::map<juce::String, std::string> keys;

    for (const auto& [keyId, b64] : LICENSE_PUBLIC_KEYS)
    {
        std::string raw;
        if (base64UrlDecode (b64, raw) && raw.size() == 32)
            keys.emplace (keyId, raw);
    }

    return keys;
}

bool ed25519Verify (const std::string& publicKey, const std::string& message, const std::string& signature)
{
    std::unique_ptr<EVP_PKEY, decltype (&EVP_PKEY_free)> key (
        EVP_PKEY_new_raw_public_key (EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*> (publicKey.data()), publicKey.size()),
        &EVP_PKEY_free);
    std::unique_ptr<EVP_MD_CTX, decltype (&EVP_MD_CTX_free)> ctx (EVP_MD_CTX_new(), &EVP_MD_CTX_free);

    return key != nullptr && ctx != nullptr
        && EVP_DigestVerifyInit (ctx.get(), nullptr, nullptr, nullptr, key.get()) == 1
        && EVP_DigestVerify (ctx.get(), reinterpret_cast<const unsigned char*> (signature.data()), signature.size(),
                             reinterpret_cast<const unsigned char*> (message.data()), message.size()) == 1;
}

/** Milliseconds since the epoch of an ISO 8601 time, or 0 when it is not one. */
juce::int64 isoMs (const juce::var& value)
{
    return value.isString() ? juce::Time::fromISO8601 (value.toString()).toMilliseconds() : 0;
}

/** Checks a license file; an empty string when this machine may run on it now, otherwise why not. */
juce::String checkLicenseFile (const juce::String& text, const juce::String& fingerprint, const juce::String& key,
                               juce::int64 nowMs, juce::var& payload)
{
    if (text.getNumBytesAsUTF8() > (size_t) licenseFileMaxBytes)
        return "malformed license file (size)";

    auto lines = juce::StringArray::fromLines (text);
    lines.trim();
    lines.removeEmptyStrings();

    if (lines.size() != 6 || lines[0] != "-----BEGIN LICENSE FILE-----" || lines[5] != "-----END LICENSE FILE-----")
        return "malformed license file (armour)";

    const char* names[] = { "format", "key-id", "payload", "signature" };
    juce::StringArray header;

    for (int i = 0; i < 4; ++i)
    {
        const auto prefix = juce::String (names[i]) + ": ";

        if (! lines[i + 1].startsWith (prefix))
            return "malformed license file (expected the " + juce::String (names[i]) + " line)";

        header.add (lines[i + 1].substring (prefix.length()).trim());
    }

    const auto& format = header[0];
    const auto& keyId = header[1];
    const auto& payloadB64 = header[2];

    if (format != licenseFileFormat)
        return "unsupported license file format " + format.quoted();

    const auto keys = embeddedPublicKeys();
    const auto publicKey = keys.find (keyId);

    if (publicKey == keys.end())
        return "unknown signing key " + keyId.quoted();

    std::string signature, payloadBytes;

    if (! base64UrlDecode (header[3], signature) || signature.size() != 64 || ! base64UrlDecode (payloadB64, payloadBytes))
        return "malformed license file (base64url)";

    // The signed bytes: "ilm-license-file/1." followed by the payload line's value, exactly as it is in the file.
    if (! ed25519Verify (publicKey->second, (licenseFileFormat + "." + payloadB64).toStdString(), signature))
        return "signature does not verify";

    payload = juce::JSON::parse (juce::String::fromUTF8 (payloadBytes.data(), (int) payloadBytes.size()));
    const auto license = payload["license"];
    const auto machine = payload["machine"];

    if (! payload.isObject() || ! license.isObject() || ! machine.isObject())
        return "malformed license file payload";
    if (payload["format"].toString() != licenseFileFormat || payload["key_id"].toString() != keyId)
        return "the payload's format or key-id differs from the file's";
    if (! machine["fingerprint"].isString() || machine["fingerprint"].toString() != fingerprint)
        return "issued for another machine";
    if (! license["plugin_id"].isString() || license["plugin_id"].toString() != appId)
        return "issued for another product";
    if (key.isNotEmpty() && (! license["key"].isString() || license["key"].toString() != key))
        return "issued for another license key";

    const auto issued = isoMs (payload["issued_at"]);
    const auto expires = isoMs (payload["expires_at"]);
    const auto licenseEnds = isoMs (license["expires_at"]);

    if (issued == 0 || expires == 0 || (! license["expires_at"].isVoid() && licenseEnds == 0))
        return "malformed license file payload (issued_at, expires_at)";
    if (nowMs < 0)
        return {}; // just issued: the window is the server's
    if (nowMs + clockSkewMs < issued)
        return "the clock is set before the license file was issued";
    if (nowMs >= expires || (licenseEnds != 0 && nowMs >= licenseEnds))
        return "the license file has expired";

    return {};
}

/** GETs @@LICENSE_FILE_ENDPOINT@@ for this activated machine; empty when there is no usable answer. */
juce::String fetchLicenseFile (const juce::String& key, const juce::String& fingerprint)
{
    const auto url = juce::URL (serverUrl + "@@LICENSE_FILE_ENDPOINT@@")
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
    if (embeddedPublicKeys().empty())
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
};

Response post (const juce::String& endpoint, const juce::var& body)
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
            if (! json["code"].isString())
            {
                r.reason = "unexpected answer from the license server";
                return r;
            }

            r.kind = Response::Kind::ok;
            r.json = json;
            return r;
        }

        const auto code = json["code"].isString() ? json["code"].toString() : "http_" + juce::String (status);
        const auto detail = json["detail"].isString() ? json["detail"].toString() : "HTTP " + juce::String (status);

        if (status >= 500)
        {
            r.reason = "server error " + juce::String (status) + ": " + detail;
            return r;
        }

        r.kind = Response::Kind::rejected;
        r.reason = code + ": " + detail;
        return r;
    }

    return { Response::Kind::unavailable, {}, "too many requests" };
}

Response call (const juce::String& endpoint, const juce::String& key, const juce::String& fingerprint)
{
    juce::DynamicObject::Ptr body (new juce::DynamicObject());
    body->setProperty ("license_key", key);
    body->setProperty ("machine_fingerprint", fingerprint);

    if (endpoint != "/deactivate")
        body->setProperty ("plugin_id", appId);

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

    if (! embeddedPublicKeys().empty())
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

Outcome checkKey (const juce::String& key, const juce::String& fingerprint, bool newlyEntered)
{
    bool activated = false;

    if (newlyEntered)
    {
        const auto activation = call ("/activate", key, fingerprint);

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
        const auto activation = call ("/activate", key, fingerprint);

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

Outcome checkLicense()
{
    const auto fingerprint = machineFingerprint();

    if (fingerprint.isEmpty())
        return make (Status::error, "Could not identify this machine.");

    auto state = openState();
    const auto key = state->getValue ("licenseKey");

    if (key.isEmpty() || state->getValue ("fingerprint") != fingerprint)
        return make (Status::needsKey, "A license key is required to use this app.");

    state.reset();
    return checkKey (key, fingerprint, false);
}

Outcome activateLicense (const juce::String& enteredKey)
{
    const auto key = normaliseKey (enteredKey);

    if (key.isEmpty())
        return make (Status::needsKey, "That does not look like a license key: it has the form XXXX-XXXX-XXXX-XXXX.");

    const auto fingerprint = machineFingerprint();

    if (fingerprint.isEmpty())
        return make (Status::error, "Could not identify this machine.");

    return checkKey (key, fingerprint, true);
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
`;

const GATE_H = String.raw`// LicenseGate: runs the license check off the message thread and asks for the key in an AlertWindow.
// Use it from your plugin editor or main window:
//
//     LicenseGate licenseGate { [this] (const licensing::Outcome& o) { setLicensed (o.allowed()); } };
//     ... in the constructor: licenseGate.start (this);
//
// Keep the processor running in a safe mode (e.g. bypass or silence) until allowed() is true.
#pragma once

#include <juce_gui_basics/juce_gui_basics.h>
#include "LicenseManager.h"

class LicenseGate
{
public:
    using Callback = std::function<void (const licensing::Outcome&)>;

    explicit LicenseGate (Callback onResult) : onResult (std::move (onResult)) {}

    ~LicenseGate() { *alive = false; }

    /** Checks the stored key in the background; asks for a key over parentComponent when needed. */
    void start (juce::Component* parentComponent)
    {
        parent = parentComponent;
        runInBackground ([] { return licensing::checkLicense(); });
    }

    /** For a "Release this machine" menu item. */
    void releaseThisMachine()
    {
        runInBackground ([] { return licensing::deactivateThisMachine(); });
    }

private:
    void runInBackground (std::function<licensing::Outcome()> job)
    {
        juce::Thread::launch ([alive = alive, job = std::move (job), this]
        {
            const auto outcome = job();
            juce::MessageManager::callAsync ([alive, outcome, this]
            {
                if (*alive)
                    handle (outcome);
            });
        });
    }

    void handle (const licensing::Outcome& outcome)
    {
        if (outcome.status == licensing::Status::needsKey && attempts++ < 3)
        {
            askForKey (outcome.message);
            return;
        }

        if (! outcome.allowed() || outcome.status == licensing::Status::offlineGrace || outcome.trial)
            juce::AlertWindow::showMessageBoxAsync (outcome.allowed() ? juce::MessageBoxIconType::InfoIcon
                                                                      : juce::MessageBoxIconType::WarningIcon,
                                                    "License", outcome.message);

        if (onResult)
            onResult (outcome);
    }

    void askForKey (const juce::String& message)
    {
        prompt = std::make_unique<juce::AlertWindow> ("Activate", message, juce::MessageBoxIconType::QuestionIcon, parent);
        prompt->addTextEditor ("key", {}, "License key (XXXX-XXXX-XXXX-XXXX):");
        prompt->addButton ("Activate", 1, juce::KeyPress (juce::KeyPress::returnKey));
        prompt->addButton ("Cancel", 0, juce::KeyPress (juce::KeyPress::escapeKey));
        prompt->enterModalState (true, juce::ModalCallbackFunction::create ([this, alive = alive] (int result)
        {
            if (! *alive)
                return;

            const auto key = prompt->getTextEditorContents ("key");
            prompt.reset();

            if (result == 1)
                runInBackground ([key] { return licensing::activateLicense (key); });
            else if (onResult)
                onResult (licensing::Outcome { licensing::Status::needsKey, "A license key is required to use this app.", false, 0 });
        }), false);
    }

    Callback onResult;
    juce::Component* parent = nullptr;
    std::unique_ptr<juce::AlertWindow> prompt;
    std::shared_ptr<bool> alive = std::make_shared<bool> (true);
    int attempts = 0;

    JUCE_DECLARE_NON_COPYABLE (LicenseGate)
};
`;

export function juceIntegration(ctx: IntegrationContext): IntegrationDoc {
  const v = { ...templateValues(ctx), PUBLIC_KEYS: publicKeyLines(ctx, (id, key) => `    { "${id}", "${key}" },`, (t) => `// ${t}`) };
  return {
    title: "JUCE",
    intro: `License checks for a JUCE plugin or app (\`${ctx.appId}\`) with \`juce::WebInputStream\`, \`juce::SHA256\`, \`juce::PropertiesFile\`, and OpenSSL's Ed25519 for signed offline license files, against ${ctx.serverUrl}.`,
    setup: [
      "JUCE 7 or 8. Add the modules `juce_core`, `juce_cryptography`, `juce_data_structures`, `juce_events` and `juce_gui_basics` (CMake: `target_link_libraries(MyPlugin PRIVATE juce::juce_cryptography juce::juce_data_structures juce::juce_gui_basics)`; Projucer: tick `juce_cryptography`).",
      "On Linux JUCE's HTTP needs libcurl: `sudo apt install libcurl4-openssl-dev` and `JUCE_USE_CURL=1` (the default for apps; plugins set it with `target_compile_definitions(MyPlugin PRIVATE JUCE_USE_CURL=1)`).",
      "JUCE has no Ed25519, so license files are verified with OpenSSL 1.1.1 or newer (`EVP_DigestVerify`): `find_package(OpenSSL REQUIRED)` and `target_link_libraries(MyPlugin PRIVATE OpenSSL::Crypto)`; Debian/Ubuntu `sudo apt install libssl-dev`, macOS `brew install openssl@3`, Windows `vcpkg install openssl` (link it statically into a plugin so hosts need no DLL).",
      publicKeySetupStep(ctx, "near the top of `LicenseManager.cpp`"),
      "Add `LicenseManager.h`, `LicenseManager.cpp` and `LicenseGate.h` to your sources. The licensing functions block on the network, so never call them from the audio or message thread: `LicenseGate` runs them on a background thread and reports on the message thread.",
      "In a plugin, keep processing in a safe mode (bypassed or silent) until the gate reports `allowed()`; each plugin instance may check once, and the state file is shared by all instances.",
    ],
    files: [
      { path: "Source/LicenseManager.h", lang: "cpp", code: fill(MANAGER_H, v) },
      { path: "Source/LicenseManager.cpp", lang: "cpp", code: fill(MANAGER_CPP, v) },
      { path: "Source/LicenseGate.h", lang: "cpp", code: fill(GATE_H, v) },
    ],
    notes: commonNotes(ctx),
  };
}
