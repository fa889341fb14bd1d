/* License checks for com.example.app against http://localhost:3000 (libcurl + OpenSSL). */
#ifndef LICENSE_H
#define LICENSE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    LICENSE_VALID,             /* run */
    LICENSE_OFFLINE_GRACE,     /* run: the server is unreachable; the signed license file (or recent validation) allows it */
    LICENSE_NEEDS_KEY,         /* ask for a (new) key */
    LICENSE_EXPIRED,           /* offer renewal */
    LICENSE_TRIAL_EXPIRED,     /* offer to buy */
    LICENSE_REVOKED,           /* stop */
    LICENSE_TOO_MANY_MACHINES, /* tell the user to release a machine */
    LICENSE_UNREACHABLE,       /* no server and no recent validation */
    LICENSE_ERROR              /* anything else; see message */
} license_status;

typedef struct {
    license_status status;
    int allowed;              /* non-zero: the app may run */
    int trial;                /* non-zero for a trial license */
    int trial_days_remaining;
    char message[512];        /* for the user */
} license_outcome;

/*
 * Call once at startup / shutdown (wraps curl_global_init / curl_global_cleanup). app_version is your app's version
 * ("1.4.2"; NULL: none), sent with the host name and platform when this machine is activated, so the buyer and you
 * can tell machines apart.
 */
int license_global_init(const char *app_version);
void license_global_cleanup(void);

/*
 * Checks the license. entered_key == NULL validates the stored key (status LICENSE_NEEDS_KEY when there is none);
 * a key the user typed is activated on this machine, validated and stored.
 */
license_outcome license_check(const char *entered_key);

/*
 * Buying and activating from inside the app (OAuth device authorization, RFC 8628): the app asks the server for a
 * short code, the buyer opens the address shown with it in a browser and buys a license there (or picks one they
 * hold), and the app waits until the license arrives, activated on this machine. All members may be NULL/0.
 */
typedef struct {
    /* Shows or opens the address the buyer goes to (it carries the code, also given on its own to show beside it).
     * NULL: printed on stdout. */
    void (*open_url)(const char *url, const char *user_code, void *context);
    /* Waits the given seconds between polls; returns non-zero to stop waiting (the user cancelled). NULL: sleeps. */
    int (*wait)(int seconds, void *context);
    void *context; /* passed to both */
} license_buy_options;

/*
 * Starts a purchase for this machine, shows its address (options->open_url), waits for the buyer to finish in the
 * browser, then stores and validates the license key exactly as license_check(key) would, writing it into key_out
 * (when not NULL) on success. Blocks until then, the buyer declines, or the request expires (15 minutes): call it
 * from a worker thread in a GUI app.
 */
license_outcome license_buy_and_activate(const license_buy_options *options, char key_out[20]);

/* Releases this machine's seat and forgets the stored key. */
license_outcome license_deactivate(void);

/* Writes the 64-character lowercase hex fingerprint and a NUL into out. Returns 0 on success. */
int license_machine_fingerprint(char out[65]);

/*
 * Checks a signed offline license file (the text of license.lic) against LICENSE_PUBLIC_KEYS, this machine's
 * fingerprint, APP_ID, the license key (NULL: any) and the time now (Unix seconds; negative: skip the issued_at /
 * expires_at window, for a file the server has just issued). Returns NULL when the app may run on it (and sets
 * *expires_at when not NULL), otherwise why not.
 */
const char *license_verify_file(const char *text, const char *fingerprint, const char *key, long long now,
                                long long *expires_at);

#ifdef __cplusplus
}
#endif
#endif /* LICENSE_H */
