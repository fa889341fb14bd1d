/* The signed offline license file check shared by the C, C++ and JUCE integrations (license_file.c). */
#ifndef LICENSE_FILE_H
#define LICENSE_FILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LICENSE_FILE_FORMAT "ilm-license-file/1"
#define LICENSE_FILE_MAX_BYTES (16 * 1024)
/* How far this machine's clock may be behind the server's when a license file's issued_at is checked. */
#define LICENSE_FILE_CLOCK_SKEW_SECONDS 300

/* One entry of LICENSE_PUBLIC_KEYS: the license file's key-id and the base64url of the raw 32-byte Ed25519 key.
 * Entries whose key does not decode to 32 bytes (the empty placeholder) are ignored. */
typedef struct {
    const char *key_id;
    const char *public_key;
} license_public_key;

/* 1 when keys holds at least one usable key (otherwise nothing could verify a license file). */
int license_file_has_key(const license_public_key *keys, size_t key_count);

/*
 * Checks a signed offline license file (the text of license.lic) against keys, app_id, this machine's fingerprint,
 * the license key (NULL: any) and the time now (Unix seconds; negative: skip the issued_at / expires_at window, for
 * a file the server has just issued). Returns NULL when the app may run on it (and sets *expires_at when not NULL),
 * otherwise why not.
 */
const char *license_file_verify(const char *text, const license_public_key *keys, size_t key_count, const char *app_id,
                                const char *fingerprint, const char *key, long long now, long long *expires_at);

/* Copies the top-level member name of a JSON object into out: strings unescaped, other scalars verbatim
 * (true, false, null, numbers). Returns 1 when found. */
int license_json_get(const char *json, const char *name, char *out, size_t outlen);

/* Seconds since the epoch of an ISO 8601 UTC time such as 2026-01-31T12:00:00.000Z; -1 when unreadable. */
long long license_parse_iso8601(const char *s);

#ifdef __cplusplus
}
#endif
#endif /* LICENSE_FILE_H */
