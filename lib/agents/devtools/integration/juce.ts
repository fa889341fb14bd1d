import { fill } from "../markdown.ts";
import { commonNotes, templateValues, type IntegrationContext, type IntegrationDoc } from "./common.ts";

const MANAGER_H = String.raw`// License checks for @@APP_ID@@ against @@SERVER_URL@@ (JUCE 7 or 8: juce_core, juce_cryptography,
// juce_data_structures). Every function blocks on the network: call them from a background thread (see LicenseGate.h).
#pragma once

#include <juce_core/juce_core.h>
#include <juce_cryptography/juce_cryptography.h>
#include <juce_data_structures/juce_data_structures.h>

namespace licensing
{
enum class Status
{
    valid,           // run
    offlineGrace,    // run: the server is unreachable, the last good validation is recent
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
} // namespace licensing
`;

const MANAGER_CPP = String.raw`// License checks for @@APP_ID@@ against @@SERVER_URL@@.
#include "LicenseManager.h"

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

void clearState()
{
    auto state = openState();
    state->clear();
    state->saveIfNeeded();
    state->getFile().deleteFile();
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
    auto state = openState();
    const auto now = juce::Time::currentTimeMillis();
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
  const v = templateValues(ctx);
  return {
    title: "JUCE",
    intro: `License checks for a JUCE plugin or app (\`${ctx.appId}\`) with \`juce::WebInputStream\`, \`juce::SHA256\` and \`juce::PropertiesFile\`, against ${ctx.serverUrl}.`,
    setup: [
      "JUCE 7 or 8. Add the modules `juce_core`, `juce_cryptography`, `juce_data_structures`, `juce_events` and `juce_gui_basics` (CMake: `target_link_libraries(MyPlugin PRIVATE juce::juce_cryptography juce::juce_data_structures juce::juce_gui_basics)`; Projucer: tick `juce_cryptography`).",
      "On Linux JUCE's HTTP needs libcurl: `sudo apt install libcurl4-openssl-dev` and `JUCE_USE_CURL=1` (the default for apps; plugins set it with `target_compile_definitions(MyPlugin PRIVATE JUCE_USE_CURL=1)`).",
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
