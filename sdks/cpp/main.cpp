// Your app's entry point: check the license before anything else.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "license_client.hpp"

#ifndef APP_VERSION
#define APP_VERSION "1.0.0"  // the version of this build (or -DAPP_VERSION='"1.0.0"')
#endif

int main(int argc, char** argv) {
    licensing::CurlGlobal curl;
    if (argc > 1 && std::strcmp(argv[1], "--deactivate") == 0) {
        const auto o = licensing::deactivateThisMachine();
        std::cout << o.message << "\n";
        return o.status == licensing::Status::NeedsKey ? 0 : 1;
    }

    if (argc > 1 && std::strcmp(argv[1], "--buy") == 0) {
        // Buy a license in the browser and activate it here (or: offer this when checkLicense needs a key).
        const auto o = licensing::buyAndActivate(APP_VERSION);
        std::cout << o.message << "\n";
        if (o.allowed()) std::cout << "License key: " << o.licenseKey << "\n";
        return o.allowed() ? 0 : 1;
    }

    auto outcome = licensing::checkLicense(APP_VERSION);
    const char* fromEnv = std::getenv("LICENSE_KEY");
    for (int attempt = 0; outcome.status == licensing::Status::NeedsKey && attempt < 3; ++attempt) {
        std::string key;
        if (attempt == 0 && fromEnv && *fromEnv) {
            key = fromEnv;
        } else {
            std::cout << outcome.message << "\nLicense key (XXXX-XXXX-XXXX-XXXX): " << std::flush;
            if (!std::getline(std::cin, key)) break;
        }
        outcome = licensing::activateLicense(key, APP_VERSION);
    }
    std::cout << outcome.message << "\n";
    if (!outcome.allowed()) return 1;

    // ... start the app ...
    return 0;
}
