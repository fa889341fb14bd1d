/* The signed offline license file check (ilm-license-file/1), shared by the C, C++ and JUCE integrations so the three
 * verify the same way. Plain C99 that also compiles as C++ (JUCE and C++ builds may compile it with a C++ compiler).
 * Needs OpenSSL 1.1.1 or newer (Ed25519 through EVP_DigestVerify). */
#include "license_file.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

static void trim(char *s) {
    size_t len = strlen(s), start = 0;
    while (len > 0 && isspace((unsigned char)s[len - 1])) s[--len] = '\0';
    while (s[start] && isspace((unsigned char)s[start])) start++;
    if (start > 0) memmove(s, s + start, len - start + 1);
}

/* Seconds since the epoch of an ISO 8601 UTC time such as 2026-01-31T12:00:00.000Z; -1 when unreadable. */
long long license_parse_iso8601(const char *s) {
    int y, mo, d, h, mi, sec;
    long long days;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &sec) != 6) return -1;
    /* days from civil (Howard Hinnant's algorithm) */
    y -= mo <= 2;
    {
        long long era = (y >= 0 ? y : y - 399) / 400;
        long long yoe = y - era * 400;
        long long doy = (153LL * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        days = era * 146097 + doe - 719468;
    }
    return days * 86400 + h * 3600LL + mi * 60LL + sec;
}

/* ------------------------------------------------------------------ minimal JSON reader */

static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

static void put_utf8(char **o, char *end, unsigned cp) {
    char tmp[4];
    int n = 0, i;
    if (cp < 0x80) tmp[n++] = (char)cp;
    else if (cp < 0x800) { tmp[n++] = (char)(0xC0 | (cp >> 6)); tmp[n++] = (char)(0x80 | (cp & 0x3F)); }
    else { tmp[n++] = (char)(0xE0 | (cp >> 12)); tmp[n++] = (char)(0x80 | ((cp >> 6) & 0x3F)); tmp[n++] = (char)(0x80 | (cp & 0x3F)); }
    for (i = 0; i < n && *o < end; i++) *(*o)++ = tmp[i];
}

/* Reads the JSON string at p (its opening quote) into out (may be NULL); returns the position after it, or NULL. */
static const char *json_string(const char *p, char *out, size_t outlen) {
    char *o = out, *end = out ? out + outlen - 1 : NULL;
    if (*p != '"') return NULL;
    for (p++; *p && *p != '"'; p++) {
        char c = *p;
        if (c == '\\') {
            p++;
            switch (*p) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                unsigned cp = 0;
                int i;
                for (i = 1; i <= 4; i++) {
                    if (!isxdigit((unsigned char)p[i])) return NULL;
                    cp = cp * 16 + (unsigned)(isdigit((unsigned char)p[i]) ? p[i] - '0' : (tolower((unsigned char)p[i]) - 'a' + 10));
                }
                p += 4;
                if (out) put_utf8(&o, end, (cp >= 0xD800 && cp <= 0xDFFF) ? (unsigned)'?' : cp);
                continue;
            }
            case '\0': return NULL;
            default: c = *p; break; /* \" \\ \/ */
            }
        }
        if (out && o < end) *o++ = c;
    }
    if (*p != '"') return NULL;
    if (out) *o = '\0';
    return p + 1;
}

/* Skips one JSON value; returns the position after it, or NULL. */
static const char *json_skip(const char *p) {
    p = skip_ws(p);
    if (*p == '"') return json_string(p, NULL, 0);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        while (*p) {
            if (*p == '"') {
                p = json_string(p, NULL, 0);
                if (!p) return NULL;
                continue;
            }
            if (*p == '{' || *p == '[') depth++;
            else if (*p == '}' || *p == ']') {
                if (--depth == 0) return p + 1;
            }
            p++;
        }
        return NULL;
    }
    while (*p && *p != ',' && *p != '}' && *p != ']' && !isspace((unsigned char)*p)) p++;
    return p;
}

/*
 * Copies the top-level member name of a JSON object into out: strings unescaped, other scalars verbatim
 * (true, false, null, numbers). Returns 1 when found.
 */
int license_json_get(const char *json, const char *name, char *out, size_t outlen) {
    char key[64];
    const char *p = skip_ws(json);
    if (*p != '{') return 0;
    p = skip_ws(p + 1);
    while (*p == '"') {
        p = json_string(p, key, sizeof key);
        if (!p) return 0;
        p = skip_ws(p);
        if (*p != ':') return 0;
        p = skip_ws(p + 1);
        if (strcmp(key, name) == 0) {
            if (*p == '"') return json_string(p, out, outlen) != NULL;
            {
                const char *end = json_skip(p);
                size_t n;
                if (!end) return 0;
                n = (size_t)(end - p);
                if (n >= outlen) n = outlen - 1;
                memcpy(out, p, n);
                out[n] = '\0';
                return 1;
            }
        }
        p = json_skip(p);
        if (!p) return 0;
        p = skip_ws(p);
        if (*p != ',') return 0;
        p = skip_ws(p + 1);
    }
    return 0;
}

/* ------------------------------------------------------------------ signed offline license files */

static int base64url_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
}

/* Decodes unpadded base64url; returns the number of bytes written, or -1 (bad character, length or room). */
static long base64url_decode(const char *in, size_t len, unsigned char *out, size_t outlen) {
    unsigned long acc = 0;
    size_t i, n = 0;
    int bits = 0;
    if (len % 4 == 1) return -1;
    for (i = 0; i < len; i++) {
        int v = base64url_value(in[i]);
        if (v < 0) return -1;
        acc = ((acc << 6) | (unsigned long)v) & 0xFFFFFF;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (n >= outlen) return -1;
            out[n++] = (unsigned char)((acc >> bits) & 0xFF);
        }
    }
    return (long)n;
}

/* The raw key for key_id from keys; 1 when found and usable. key_id NULL: whether any key is usable. */
static int embedded_public_key(const license_public_key *keys, size_t key_count, const char *key_id, unsigned char raw[32]) {
    size_t i;
    for (i = 0; i < key_count; i++) {
        const char *b64 = keys[i].public_key;
        unsigned char tmp[33];
        if (key_id && strcmp(keys[i].key_id, key_id) != 0) continue;
        if (base64url_decode(b64, strlen(b64), tmp, sizeof tmp) != 32) continue;
        if (raw) memcpy(raw, tmp, 32);
        return 1;
    }
    return 0;
}

int license_file_has_key(const license_public_key *keys, size_t key_count) {
    return embedded_public_key(keys, key_count, NULL, NULL);
}

static int ed25519_verify(const unsigned char public_key[32], const unsigned char *message, size_t length,
                          const unsigned char signature[64]) {
    EVP_PKEY *key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, public_key, 32);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = key && ctx && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, key) == 1 &&
             EVP_DigestVerify(ctx, signature, 64, message, length) == 1;
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(key);
    return ok;
}

/* Splits the next line off *p (ending at \n, \r\n or the end); trims it in place. NULL when there is none left. */
static char *next_line(char **p) {
    char *line = *p, *end;
    if (!line || !*line) return NULL;
    end = strchr(line, '\n');
    if (end) {
        *end = '\0';
        *p = end + 1;
    } else {
        *p = line + strlen(line);
    }
    trim(line);
    return line;
}

/* The value of a "name: value" line, or NULL. */
static const char *field_value(const char *line, const char *name) {
    size_t n = strlen(name);
    if (!line || strncmp(line, name, n) != 0 || line[n] != ':' || line[n + 1] != ' ') return NULL;
    return line + n + 2;
}

const char *license_file_verify(const char *text, const license_public_key *keys, size_t key_count, const char *app_id,
                                const char *fingerprint, const char *key, long long now, long long *expires_at) {
    char *copy, *p, *lines[6] = {NULL, NULL, NULL, NULL, NULL, NULL}, *line, *payload = NULL;
    char license[4096], machine[1024], value[256], key_id[256];
    const char *format, *kid, *payload_b64, *signature_b64, *why = NULL;
    unsigned char public_key[32], signature[65], *signed_bytes = NULL;
    long long issued, expires, license_ends = -1;
    size_t count = 0, signed_len;
    long n;

    if (!text || strlen(text) > LICENSE_FILE_MAX_BYTES) return "malformed license file (size)";
    copy = p = (char *)malloc(strlen(text) + 1);
    if (!copy) return "out of memory";
    strcpy(copy, text);
    while ((line = next_line(&p)) != NULL) {
        if (!line[0]) continue; /* blank lines around the armour */
        if (count == 6) {
            count = 7;
            break;
        }
        lines[count++] = line;
    }
    if (count != 6 || strcmp(lines[0], "-----BEGIN LICENSE FILE-----") != 0 ||
        strcmp(lines[5], "-----END LICENSE FILE-----") != 0) {
        why = "malformed license file (armour)";
        goto done;
    }
    format = field_value(lines[1], "format");
    kid = field_value(lines[2], "key-id");
    payload_b64 = field_value(lines[3], "payload");
    signature_b64 = field_value(lines[4], "signature");
    if (!format || !kid || !payload_b64 || !signature_b64) {
        why = "malformed license file (expected format, key-id, payload and signature lines)";
        goto done;
    }
    if (strcmp(format, LICENSE_FILE_FORMAT) != 0) {
        why = "unsupported license file format";
        goto done;
    }
    if (!embedded_public_key(keys, key_count, kid, public_key)) {
        why = "unknown signing key (its key-id is not in LICENSE_PUBLIC_KEYS)";
        goto done;
    }
    if (base64url_decode(signature_b64, strlen(signature_b64), signature, sizeof signature) != 64) {
        why = "malformed license file (signature)";
        goto done;
    }
    /* The signed bytes: "ilm-license-file/1." followed by the payload line's value, exactly as it is in the file. */
    signed_len = strlen(LICENSE_FILE_FORMAT) + 1 + strlen(payload_b64);
    signed_bytes = (unsigned char *)malloc(signed_len + 1);
    payload = (char *)malloc(strlen(payload_b64) + 1);
    if (!signed_bytes || !payload) {
        why = "out of memory";
        goto done;
    }
    snprintf((char *)signed_bytes, signed_len + 1, "%s.%s", LICENSE_FILE_FORMAT, payload_b64);
    n = base64url_decode(payload_b64, strlen(payload_b64), (unsigned char *)payload, strlen(payload_b64));
    if (n < 0) {
        why = "malformed license file (payload)";
        goto done;
    }
    payload[n] = '\0';
    if (!ed25519_verify(public_key, signed_bytes, signed_len, signature)) {
        why = "signature does not verify";
        goto done;
    }
    /* Signed by the service from here on: the payload is its canonical JSON. */
    if (!license_json_get(payload, "license", license, sizeof license) || license[0] != '{' ||
        !license_json_get(payload, "machine", machine, sizeof machine) || machine[0] != '{') {
        why = "malformed license file payload";
        goto done;
    }
    if (!license_json_get(payload, "format", value, sizeof value) || strcmp(value, LICENSE_FILE_FORMAT) != 0 ||
        !license_json_get(payload, "key_id", key_id, sizeof key_id) || strcmp(key_id, kid) != 0) {
        why = "the payload's format or key-id differs from the file's";
        goto done;
    }
    if (!license_json_get(machine, "fingerprint", value, sizeof value) || strcmp(value, fingerprint) != 0) {
        why = "issued for another machine";
        goto done;
    }
    if (!license_json_get(license, "plugin_id", value, sizeof value) || strcmp(value, app_id) != 0) {
        why = "issued for another product";
        goto done;
    }
    if (key && (!license_json_get(license, "key", value, sizeof value) || strcmp(value, key) != 0)) {
        why = "issued for another license key";
        goto done;
    }
    issued = license_json_get(payload, "issued_at", value, sizeof value) ? license_parse_iso8601(value) : -1;
    expires = license_json_get(payload, "expires_at", value, sizeof value) ? license_parse_iso8601(value) : -1;
    if (license_json_get(license, "expires_at", value, sizeof value) && strcmp(value, "null") != 0) {
        license_ends = license_parse_iso8601(value);
        if (license_ends < 0) issued = -1;
    }
    if (issued < 0 || expires < 0) {
        why = "malformed license file payload (issued_at, expires_at)";
        goto done;
    }
    if (now >= 0 && now + LICENSE_FILE_CLOCK_SKEW_SECONDS < issued) {
        why = "the clock is set before the license file was issued";
        goto done;
    }
    if (now >= 0 && (now >= expires || (license_ends >= 0 && now >= license_ends))) {
        why = "the license file has expired";
        goto done;
    }
    if (expires_at) *expires_at = expires;
done:
    free(copy);
    free(payload);
    free(signed_bytes);
    return why;
}
