// License checks for com.example.app against http://localhost:3000 (JUCE 7 or 8: juce_core, juce_cryptography,
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
    juce::String licenseKey; // the key buyAndActivate received and stored (empty otherwise)

    bool allowed() const noexcept { return status == Status::valid || status == Status::offlineGrace; }
};

/**
 * Your app's version as JUCE knows it: a plugin's JucePlugin_VersionString, else the running JUCEApplication's
 * getApplicationVersion(); empty when neither is there (pass ProjectInfo::versionString yourself then).
 */
juce::String defaultAppVersion();

/**
 * Validates the stored key (re-activating this machine when needed); Status::needsKey when there is none. When a
 * check activates this machine it sends appVersion (empty: none) with the computer's name and the platform, so the
 * buyer and you can tell machines apart.
 */
Outcome checkLicense (const juce::String& appVersion = defaultAppVersion());

/** Activates a key the user entered on this machine (sending appVersion as above), validates it and stores it. */
Outcome activateLicense (const juce::String& enteredKey, const juce::String& appVersion = defaultAppVersion());

/**
 * Buying and activating from inside the app (OAuth device authorization, RFC 8628): the app asks the server for a
 * short code, the buyer opens the address shown with it in a browser and buys a license there (or picks one they
 * hold), and the app waits until the license arrives, activated on this machine.
 */
struct BuyOptions
{
    /** Shows or opens the address the buyer goes to (it carries the code, also given on its own to show beside it).
        Empty: opened in the default browser, and written to the log. */
    std::function<void (const juce::String& url, const juce::String& userCode)> openUrl;
    /** Waits the given seconds between polls; returns false to stop waiting (the user cancelled). Empty: sleeps. */
    std::function<bool (int seconds)> wait;
};

/**
 * Starts a purchase for this machine (sending appVersion as above), shows its address, waits for the buyer to finish
 * in the browser, then stores and validates the key exactly as activateLicense does (outcome.licenseKey holds it).
 * Blocks until then, the buyer declines, or the request expires (15 minutes).
 */
Outcome buyAndActivate (const juce::String& appVersion = defaultAppVersion(), const BuyOptions& options = {});

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
