/* Your app's entry point: check the license before anything else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "license.h"

#ifndef APP_VERSION
#define APP_VERSION "1.0.0" /* the version of this build (or -DAPP_VERSION='"1.0.0"') */
#endif

int main(int argc, char **argv) {
    license_outcome o;
    int attempt;
    const char *from_env = getenv("LICENSE_KEY");

    if (license_global_init(APP_VERSION) != 0) {
        fprintf(stderr, "could not initialise libcurl\n");
        return 1;
    }
    if (argc > 1 && strcmp(argv[1], "--deactivate") == 0) {
        o = license_deactivate();
        printf("%s\n", o.message);
        license_global_cleanup();
        return o.status == LICENSE_NEEDS_KEY ? 0 : 1;
    }

    if (argc > 1 && strcmp(argv[1], "--buy") == 0) {
        /* Buy a license in the browser and activate it here (or: offer this when license_check needs a key). */
        char key[20];
        o = license_buy_and_activate(NULL, key);
        printf("%s\n", o.message);
        if (o.allowed) printf("License key: %s\n", key);
        license_global_cleanup();
        return o.allowed ? 0 : 1;
    }

    o = license_check(NULL);
    for (attempt = 0; o.status == LICENSE_NEEDS_KEY && attempt < 3; attempt++) {
        char key[64];
        if (attempt == 0 && from_env && from_env[0]) {
            snprintf(key, sizeof key, "%s", from_env);
        } else {
            printf("%s\nLicense key (XXXX-XXXX-XXXX-XXXX): ", o.message);
            fflush(stdout);
            if (!fgets(key, sizeof key, stdin)) break;
        }
        o = license_check(key);
    }
    printf("%s\n", o.message);
    license_global_cleanup();
    if (!o.allowed) return 1;

    /* ... start the app ... */
    return 0;
}
