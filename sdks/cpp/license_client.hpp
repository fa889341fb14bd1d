// License checks for com.example.app against http://localhost:3000 (C++17, libcurl, OpenSSL).
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace licensing {

enum class Status {
    Valid,           // run
    OfflineGrace,    // run: the server is unreachable; the signed license file (or recent validation) allows it
    NeedsKey,        // ask for a (new) key
    Expired,         // offer renewal
    TrialExpired,    // offer to buy
    Revoked,         // stop
    TooManyMachines, // tell the user to release a machine
    Unreachable,     // no server and no recent validation
    Error            // anything else; see message
};

struct Outcome {
    Status status = Status::Error;
    std::string message;  // for the user
    bool trial = false;
    int trialDaysRemaining = 0;
    std::string licenseKey;  // the key buyAndActivate received and stored (empty otherwise)

    bool allowed() const { return status == Status::Valid || status == Status::OfflineGrace; }
};

// Initialises libcurl for the lifetime of the object; create one in main() before any check.
class CurlGlobal {
public:
    CurlGlobal();
    ~CurlGlobal();
    CurlGlobal(const CurlGlobal&) = delete;
    CurlGlobal& operator=(const CurlGlobal&) = delete;
};

// appVersion is your app's version ("1.4.2"; empty: none): when a check activates this machine, it is sent with the
// host name and platform, so the buyer and you can tell machines apart.

// Validates the stored key (re-activating this machine when needed); Status::NeedsKey when there is none.
Outcome checkLicense(const std::string& appVersion);
// Activates a key the user typed on this machine, validates it and stores it.
Outcome activateLicense(const std::string& enteredKey, const std::string& appVersion);

// Buying and activating from inside the app (OAuth device authorization, RFC 8628): the app asks the server for a
// short code, the buyer opens the address shown with it in a browser and buys a license there (or picks one they
// hold), and the app waits until the license arrives, activated on this machine.
struct BuyOptions {
    // Shows or opens the address the buyer goes to (it carries the code, also given on its own to show beside it).
    // Empty: printed on standard output.
    std::function<void(const std::string& url, const std::string& userCode)> openUrl;
    // Waits between polls; returns false to stop waiting (the user cancelled). Empty: sleeps.
    std::function<bool(std::chrono::seconds)> wait;
};
// Starts a purchase for this machine, shows its address, waits for the buyer to finish in the browser, then stores
// and validates the key exactly as activateLicense would (outcome.licenseKey holds it). Blocks until then, the buyer
// declines, or the request expires (15 minutes): call it from a worker thread in a GUI app.
Outcome buyAndActivate(const std::string& appVersion, const BuyOptions& options = {});
// Releases this machine's seat and forgets the stored key.
Outcome deactivateThisMachine();
// Lowercase hex SHA-256 of "<CPU brand>|<OS identifier>"; throws std::runtime_error when unavailable.
std::string machineFingerprint();

// Checks a signed offline license file (the text of license.lic) against LICENSE_PUBLIC_KEYS, the fingerprint,
// the app id, the license key (empty: any) and the time now (Unix seconds; negative: skip the issued_at/expires_at
// window, for a file the server has just issued). Returns an empty string when the app may run on it (and sets
// *expiresAt when not null), otherwise why not.
std::string verifyLicenseFile(const std::string& text, const std::string& fingerprint, const std::string& key,
                              long long now, long long* expiresAt = nullptr);

} // namespace licensing
