/* License checks for com.example.app against http://localhost:3000.
 * Build: cc -c license.c; link with -lcurl -lcrypto (Windows: also advapi32). */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#if defined(__APPLE__) && !defined(_DARWIN_C_SOURCE)
#define _DARWIN_C_SOURCE
#endif

#include "license.h"
#include "license_file.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <openssl/evp.h> /* EVP_Digest (SHA-256); Ed25519 is in license_file.c: OpenSSL 1.1.1 or newer */

#ifdef _WIN32
#include <windows.h>
#include <direct.h>
#define PATH_SEP "\\"
#define make_dir(path) _mkdir(path)
#define sleep_seconds(s) Sleep((DWORD)(s) * 1000)
#else
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#define PATH_SEP "/"
#define make_dir(path) mkdir(path, 0700)
#define sleep_seconds(s) sleep((unsigned)(s))
#endif
#ifdef __APPLE__
#include <sys/sysctl.h>
#endif

#define SERVER_URL "http://localhost:3000"
#define APP_ID "com.example.app"
#define OFFLINE_GRACE_DAYS 7
#define OFFLINE_GRACE_SECONDS ((long long)OFFLINE_GRACE_DAYS * 24 * 60 * 60)
#define HTTP_TIMEOUT_SECONDS 10L
/* A 429 whose Retry-After is at most this long is waited out once; a longer one counts as "unavailable". */
#define MAX_RETRY_AFTER_WAIT_SECONDS 10
#define MAX_RESPONSE_BYTES (64 * 1024)
/* What /activate accepts for the machine's name and the app's version, in characters (see clean_text). */
#define MACHINE_NAME_MAX_CHARS 100
#define APP_VERSION_MAX_CHARS 64
/* Buying from inside the app: the grant type the token endpoint is polled with (RFC 8628). */
#define DEVICE_GRANT_TYPE "urn:ietf:params:oauth:grant-type:device_code"
/* Network failures in a row while waiting for the buyer before giving up. */
#define DEVICE_MAX_FAILURES 3

/* This build's OS and CPU, named as releases name platforms: windows-x64, macos-arm64, linux-x64, ... */
#if defined(_WIN32)
#define PLATFORM_OS "windows"
#elif defined(__APPLE__)
#define PLATFORM_OS "macos"
#elif defined(__linux__)
#define PLATFORM_OS "linux"
#else
#define PLATFORM_OS "other"
#endif
#if defined(__x86_64__) || defined(__amd64__) || defined(_M_X64)
#define PLATFORM_ARCH "x64"
#elif defined(__aarch64__) || defined(_M_ARM64)
#define PLATFORM_ARCH "arm64"
#elif defined(__i386__) || defined(_M_IX86)
#define PLATFORM_ARCH "x86"
#else
#define PLATFORM_ARCH "other"
#endif
#define PLATFORM PLATFORM_OS "-" PLATFORM_ARCH

/* ---- LICENSE_PUBLIC_KEYS: the service's Ed25519 public key(s), embedded at build time (never fetched at run time).
 * key-id (the license file's "key-id" line) -> base64url of the raw 32-byte key. When the service rotates its key,
 * add the new key-id and keep the old one until the files it signed have expired. With no usable key here, the app
 * does not fetch license files and keeps the unsigned OFFLINE_GRACE_DAYS grace instead. */
static const license_public_key LICENSE_PUBLIC_KEYS[] = {
    {"did:web:localhost%3A3000#ed25519-1", ""}, /* placeholder: replace "" with the key printed by the command in the setup steps */
};
#define LICENSE_PUBLIC_KEY_COUNT (sizeof LICENSE_PUBLIC_KEYS / sizeof LICENSE_PUBLIC_KEYS[0])

/* ------------------------------------------------------------------ small helpers */

static license_outcome outcome(license_status status, const char *fmt, ...) {
    license_outcome o;
    va_list args;
    memset(&o, 0, sizeof o);
    o.status = status;
    o.allowed = status == LICENSE_VALID || status == LICENSE_OFFLINE_GRACE;
    va_start(args, fmt);
    vsnprintf(o.message, sizeof o.message, fmt, args);
    va_end(args);
    return o;
}

static void trim(char *s) {
    size_t len = strlen(s), start = 0;
    while (len > 0 && isspace((unsigned char)s[len - 1])) s[--len] = '\0';
    while (s[start] && isspace((unsigned char)s[start])) start++;
    if (start > 0) memmove(s, s + start, len - start + 1);
}

/* Upper-cases and trims a typed key; returns 1 when it has the form XXXX-XXXX-XXXX-XXXX. */
static int normalize_key(const char *in, char out[20]) {
    char buf[64];
    size_t i;
    snprintf(buf, sizeof buf, "%s", in);
    trim(buf);
    if (strlen(buf) != 19) return 0;
    for (i = 0; i < 19; i++) {
        char c = (char)toupper((unsigned char)buf[i]);
        if (i % 5 == 4) {
            if (c != '-') return 0;
        } else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) {
            return 0;
        }
        out[i] = c;
    }
    out[19] = '\0';
    return 1;
}

static int json_true(const char *json, const char *name) {
    char v[8];
    return license_json_get(json, name, v, sizeof v) && strcmp(v, "true") == 0;
}

static long json_long(const char *json, const char *name, long fallback) {
    char v[32];
    char *end;
    long n;
    if (!license_json_get(json, name, v, sizeof v)) return fallback;
    n = strtol(v, &end, 10);
    return end == v ? fallback : n;
}

/* ------------------------------------------------------------------ machine fingerprint */

#if !defined(_WIN32) && !defined(__APPLE__)
static int read_line_file(const char *path, char *out, size_t outlen) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    if (!fgets(out, (int)outlen, f)) out[0] = '\0';
    fclose(f);
    trim(out);
    return out[0] != '\0';
}

/* The value of the first "name : value" line of /proc/cpuinfo whose name is wanted. */
static int cpuinfo_field(const char *wanted, char *out, size_t outlen) {
    char line[512];
    int found = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon) continue;
        *colon = '\0';
        trim(line);
        if (strcmp(line, wanted) == 0) {
            snprintf(out, outlen, "%s", colon + 1);
            trim(out);
            found = out[0] != '\0';
        }
    }
    fclose(f);
    return found;
}
#endif

static int cpu_brand(char *out, size_t outlen) {
#if defined(_WIN32)
    DWORD size = (DWORD)outlen;
    if (RegGetValueA(HKEY_LOCAL_MACHINE, "HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0", "ProcessorNameString",
                     RRF_RT_REG_SZ, NULL, out, &size) != ERROR_SUCCESS) return 0;
#elif defined(__APPLE__)
    size_t size = outlen;
    if (sysctlbyname("machdep.cpu.brand_string", out, &size, NULL, 0) != 0) return 0;
#else
    struct utsname u;
    if (!cpuinfo_field("model name", out, outlen) && !cpuinfo_field("Hardware", out, outlen) &&
        !cpuinfo_field("Model", out, outlen)) {
        if (uname(&u) != 0) return 0;
        snprintf(out, outlen, "%s", u.machine);
    }
#endif
    trim(out);
    return out[0] != '\0';
}

static int os_identifier(char *out, size_t outlen) {
#if defined(_WIN32)
    DWORD size = (DWORD)outlen;
    if (RegGetValueA(HKEY_LOCAL_MACHINE, "SOFTWARE\\Microsoft\\Cryptography", "MachineGuid",
                     RRF_RT_REG_SZ | RRF_SUBKEY_WOW6464KEY, NULL, out, &size) != ERROR_SUCCESS) return 0;
#elif defined(__APPLE__)
    char line[512];
    int found = 0;
    FILE *p = popen("ioreg -rd1 -c IOPlatformExpertDevice", "r");
    if (!p) return 0;
    while (fgets(line, sizeof line, p)) {
        char *at = strstr(line, "\"IOPlatformUUID\"");
        char *open, *close;
        if (found || !at) continue;
        open = strchr(at + 16, '"');
        close = open ? strchr(open + 1, '"') : NULL;
        if (open && close) {
            *close = '\0';
            snprintf(out, outlen, "%s", open + 1);
            found = 1;
        }
    }
    pclose(p);
    if (!found) return 0;
#else
    if (!read_line_file("/etc/machine-id", out, outlen) && !read_line_file("/var/lib/dbus/machine-id", out, outlen))
        return 0;
#endif
    trim(out);
    return out[0] != '\0';
}

int license_machine_fingerprint(char out[65]) {
    char cpu[256], os[256], input[520];
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0, i;
    if (!cpu_brand(cpu, sizeof cpu) || !os_identifier(os, sizeof os)) return -1;
    snprintf(input, sizeof input, "%s|%s", cpu, os);
    if (EVP_Digest(input, strlen(input), digest, &len, EVP_sha256(), NULL) != 1 || len != 32) return -1;
    for (i = 0; i < len; i++) snprintf(out + 2 * i, 3, "%02x", digest[i]);
    out[64] = '\0';
    return 0;
}

/* ------------------------------------------------------------------ machine details (sent on activation) */

/*
 * Copies UTF-8 text (NULL: none) to out (outlen > 0), keeping at most max_chars characters as the server counts them (UTF-16
 * units: a character beyond U+FFFF counts two) and never cutting one in two. Control characters (U+0000-U+001F,
 * U+007F-U+009F, which the server refuses) and bytes that are not UTF-8 are left out.
 */
static void clean_text(const char *in, size_t max_chars, char *out, size_t outlen) {
    const unsigned char *p = (const unsigned char *)(in ? in : "");
    size_t used = 0, chars = 0;
    while (*p) {
        unsigned long cp;
        size_t len, i, width;
        if (p[0] < 0x80) cp = p[0], len = 1;
        else if ((p[0] & 0xE0) == 0xC0) cp = p[0] & 0x1Fu, len = 2;
        else if ((p[0] & 0xF0) == 0xE0) cp = p[0] & 0x0Fu, len = 3;
        else if ((p[0] & 0xF8) == 0xF0) cp = p[0] & 0x07u, len = 4;
        else { p++; continue; } /* a stray continuation byte or an invalid lead byte */
        for (i = 1; i < len && (p[i] & 0xC0) == 0x80; i++) cp = (cp << 6) | (p[i] & 0x3Fu);
        if (i < len) { p++; continue; } /* a sequence cut short (the terminating NUL stops the loop above) */
        p += len;
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            continue; /* overlong, or not a character */
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) continue;
        width = cp > 0xFFFF ? 2 : 1;
        if (chars + width > max_chars || used + len >= outlen) break;
        memcpy(out + used, p - len, len);
        used += len;
        chars += width;
    }
    out[used] = '\0';
}

/* This machine's host name, cleaned (see clean_text); empty when unavailable. */
static void host_name(char *out, size_t outlen) {
    char raw[1024];
#if defined(_WIN32)
    wchar_t wide[256];
    DWORD size = sizeof wide / sizeof wide[0];
    if (!GetComputerNameExW(ComputerNameDnsHostname, wide, &size) ||
        WideCharToMultiByte(CP_UTF8, 0, wide, -1, raw, (int)sizeof raw, NULL, NULL) == 0)
        raw[0] = '\0';
#else
    if (gethostname(raw, sizeof raw - 1) != 0) raw[0] = '\0';
    raw[sizeof raw - 1] = '\0'; /* POSIX leaves a name that did not fit unterminated */
#endif
    clean_text(raw, MACHINE_NAME_MAX_CHARS, out, outlen);
}

/* The app's version from license_global_init, cleaned. */
static char app_version[APP_VERSION_MAX_CHARS * 4 + 1];

/*
 * Appends ,"name":"value" to the JSON object being built in out (without its closing brace) when value is not empty:
 * quotes and backslashes escaped, and any control character as \u00XX. Returns 0 when it does not fit.
 */
static int json_append_string(char *out, size_t outlen, const char *name, const char *value) {
    size_t n = strlen(out);
    const unsigned char *p;
    int w;
    if (!value[0]) return 1;
    w = snprintf(out + n, outlen - n, ",\"%s\":\"", name);
    if (w < 0 || (size_t)w >= outlen - n) return 0;
    n += (size_t)w;
    for (p = (const unsigned char *)value; *p; p++) {
        if (n + 7 >= outlen) return 0; /* room for \u00XX, the closing quote and the NUL */
        if (*p == '"' || *p == '\\') {
            out[n++] = '\\';
            out[n++] = (char)*p;
        } else if (*p < 0x20) {
            n += (size_t)snprintf(out + n, outlen - n, "\\u%04x", *p);
        } else {
            out[n++] = (char)*p;
        }
    }
    out[n++] = '"';
    out[n] = '\0';
    return 1;
}

/* ------------------------------------------------------------------ local state */

typedef struct {
    char key[20];
    char fingerprint[65];
    long long validated_at; /* 0: never validated on this machine */
    char expires_at[40];    /* empty: perpetual */
} license_state;

/* Creates a directory and its missing parents; returns 1 when it exists afterwards. */
static int make_dirs(const char *path) {
    char partial[1024];
    size_t i, len = strlen(path);
    if (len == 0 || len >= sizeof partial) return 0;
    for (i = 1; i <= len; i++) {
        if (path[i] == '/' || path[i] == '\\' || path[i] == '\0') {
            memcpy(partial, path, i);
            partial[i] = '\0';
            if (partial[i - 1] != ':' && make_dir(partial) != 0 && errno != EEXIST) return 0;
        }
    }
    return 1;
}

/* <config dir>/<APP_ID>/<name>: %APPDATA%, ~/Library/Application Support, or $XDG_CONFIG_HOME or ~/.config. */
static int app_file_path(const char *name, char *out, size_t outlen, int create_dirs) {
    char dir[1024];
    const char *base;
#if defined(_WIN32)
    base = getenv("APPDATA");
    if (!base || !base[0]) return 0;
    snprintf(dir, sizeof dir, "%s", base);
#elif defined(__APPLE__)
    base = getenv("HOME");
    if (!base || !base[0]) return 0;
    snprintf(dir, sizeof dir, "%s/Library/Application Support", base);
#else
    base = getenv("XDG_CONFIG_HOME");
    if (base && base[0]) {
        snprintf(dir, sizeof dir, "%s", base);
    } else {
        base = getenv("HOME");
        if (!base || !base[0]) return 0;
        snprintf(dir, sizeof dir, "%s/.config", base);
    }
#endif
    if (strlen(dir) + strlen(APP_ID) + strlen(name) + 3 >= outlen) return 0;
    snprintf(out, outlen, "%s" PATH_SEP "%s", dir, APP_ID);
    if (create_dirs && !make_dirs(out)) return 0;
    strcat(out, PATH_SEP);
    strcat(out, name);
    return 1;
}

static int state_path(char *out, size_t outlen, int create_dirs) {
    return app_file_path("license.state", out, outlen, create_dirs);
}

/* The signed license file, next to the state. */
static int license_file_path(char *out, size_t outlen, int create_dirs) {
    return app_file_path("license.lic", out, outlen, create_dirs);
}

static int load_state(license_state *s) {
    char path[1100], line[256];
    FILE *f;
    memset(s, 0, sizeof *s);
    if (!state_path(path, sizeof path, 0) || !(f = fopen(path, "r"))) return 0;
    while (fgets(line, sizeof line, f)) {
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = '\0';
        trim(eq + 1);
        if (strcmp(line, "key") == 0) snprintf(s->key, sizeof s->key, "%s", eq + 1);
        else if (strcmp(line, "fingerprint") == 0) snprintf(s->fingerprint, sizeof s->fingerprint, "%s", eq + 1);
        else if (strcmp(line, "validated_at") == 0) s->validated_at = strtoll(eq + 1, NULL, 10);
        else if (strcmp(line, "expires_at") == 0) snprintf(s->expires_at, sizeof s->expires_at, "%s", eq + 1);
    }
    fclose(f);
    return s->key[0] != '\0';
}

/* Writes text to path through a temporary file, so a crash never leaves half a file. */
static int write_file_atomically(const char *path, const char *text) {
    char tmp[1110];
    FILE *f;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (!(f = fopen(tmp, "wb"))) return 0;
    fputs(text, f);
    if (fclose(f) != 0) return 0;
#ifdef _WIN32
    return MoveFileExA(tmp, path, MOVEFILE_REPLACE_EXISTING) != 0;
#else
    return rename(tmp, path) == 0;
#endif
}

static int save_state(const license_state *s) {
    char path[1100], text[400];
    if (!state_path(path, sizeof path, 1)) return 0;
    snprintf(text, sizeof text, "key=%s\nfingerprint=%s\nvalidated_at=%lld\nexpires_at=%s\n", s->key, s->fingerprint,
             s->validated_at, s->expires_at);
    return write_file_atomically(path, text);
}

static void remove_license_file(void) {
    char path[1100];
    if (license_file_path(path, sizeof path, 0)) remove(path);
}

/* Forgets the key, the cached validation and the license file. */
static void clear_state(void) {
    char path[1100];
    if (state_path(path, sizeof path, 0)) remove(path);
    remove_license_file();
}

/* The stored license file as a NUL-terminated string (free it), or NULL. */
static char *read_license_file(void) {
    char path[1100], *text;
    size_t n;
    FILE *f;
    if (!license_file_path(path, sizeof path, 0) || !(f = fopen(path, "rb"))) return NULL;
    text = (char *)malloc(LICENSE_FILE_MAX_BYTES + 2);
    n = text ? fread(text, 1, LICENSE_FILE_MAX_BYTES + 1, f) : 0;
    fclose(f);
    if (!text || n > LICENSE_FILE_MAX_BYTES) {
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

/* ------------------------------------------------------------------ signed offline license files */

/* The check itself is in license_file.c, shared with the C++ and JUCE integrations. */
const char *license_verify_file(const char *text, const char *fingerprint, const char *key, long long now,
                                long long *expires_at) {
    return license_file_verify(text, LICENSE_PUBLIC_KEYS, LICENSE_PUBLIC_KEY_COUNT, APP_ID, fingerprint, key, now,
                               expires_at);
}

/* ------------------------------------------------------------------ HTTP */

typedef enum { HTTP_OK, HTTP_UNAVAILABLE, HTTP_REJECTED } http_result;

typedef struct {
    char *data;
    size_t len;
} buffer;

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *userdata) {
    buffer *b = (buffer *)userdata;
    size_t n = size * nmemb;
    char *grown;
    if (b->len + n > MAX_RESPONSE_BYTES) return 0; /* aborts the transfer */
    grown = (char *)realloc(b->data, b->len + n + 1);
    if (!grown) return 0;
    b->data = grown;
    memcpy(b->data + b->len, ptr, n);
    b->len += n;
    b->data[b->len] = '\0';
    return n;
}

/*
 * POSTs a JSON body to SERVER_URL + path; a 429 with a short Retry-After is waited out once. Returns 0 with the HTTP
 * status in *status, the body in *data (free it; NULL when empty) and a 429's Retry-After in *retry_after, or -1 with
 * the network error in error.
 */
static int http_post(const char *path, const char *body, long *status, char **data, long long *retry_after,
                     char *error, size_t errlen) {
    int attempt;
    *data = NULL;
    for (attempt = 0; attempt < 2; attempt++) {
        char url[512], curl_error[CURL_ERROR_SIZE] = "";
        buffer b = {NULL, 0};
        curl_off_t retry = -1;
        struct curl_slist *headers = NULL;
        CURLcode rc;
        CURL *curl = curl_easy_init();
        if (!curl) {
            snprintf(error, errlen, "could not start an HTTP request");
            return -1;
        }
        *status = 0;
        snprintf(url, sizeof url, "%s%s", SERVER_URL, path);
        headers = curl_slist_append(headers, "Content-Type: application/json");
        headers = curl_slist_append(headers, "Accept: application/json");
        curl_easy_setopt(curl, CURLOPT_URL, url);
        curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(curl, CURLOPT_TIMEOUT, HTTP_TIMEOUT_SECONDS);
        curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, &b);
        curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_error);
        rc = curl_easy_perform(curl);
        if (rc == CURLE_OK) {
            curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
            curl_easy_getinfo(curl, CURLINFO_RETRY_AFTER, &retry);
        }
        curl_slist_free_all(headers);
        curl_easy_cleanup(curl);

        if (rc != CURLE_OK) {
            snprintf(error, errlen, "cannot reach %s: %s", SERVER_URL, curl_error[0] ? curl_error : curl_easy_strerror(rc));
            free(b.data);
            return -1;
        }
        *retry_after = retry >= 0 ? (long long)retry : 60;
        if (*status == 429 && attempt == 0 && *retry_after <= MAX_RETRY_AFTER_WAIT_SECONDS) {
            free(b.data);
            sleep_seconds(*retry_after);
            continue;
        }
        *data = b.data;
        return 0;
    }
    return 0; /* not reached: the second attempt always returns */
}

/*
 * POSTs a JSON body to SERVER_URL + path. HTTP_OK: *answer holds the JSON (free it). HTTP_REJECTED: a 4xx problem,
 * its code and detail in error. HTTP_UNAVAILABLE: network error, 5xx or 429; the reason is in error.
 */
static http_result post_json(const char *path, const char *body, char **answer, char *error, size_t errlen) {
    long status = 0;
    long long retry_after = 0;
    char *data = NULL, code[64] = "", detail[300] = "";
    *answer = NULL;
    if (http_post(path, body, &status, &data, &retry_after, error, errlen) != 0) return HTTP_UNAVAILABLE;
    if (status == 429) {
        free(data);
        snprintf(error, errlen, "too many requests; retry in %lld s", retry_after);
        return HTTP_UNAVAILABLE;
    }
    if (status >= 200 && status < 300) {
        if (!data || !license_json_get(data, "code", code, sizeof code)) {
            snprintf(error, errlen, "unexpected answer from the license server");
            free(data);
            return HTTP_UNAVAILABLE;
        }
        *answer = data;
        return HTTP_OK;
    }
    if (!data || !license_json_get(data, "code", code, sizeof code)) snprintf(code, sizeof code, "http_%ld", status);
    if (!data || !license_json_get(data, "detail", detail, sizeof detail)) snprintf(detail, sizeof detail, "HTTP %ld", status);
    free(data);
    if (status >= 500) {
        snprintf(error, errlen, "server error %ld: %s", status, detail);
        return HTTP_UNAVAILABLE;
    }
    snprintf(error, errlen, "%s: %s", code, detail);
    return HTTP_REJECTED;
}

/*
 * POSTs a JSON body to one of the device endpoints (buying from inside the app). HTTP_OK: *answer holds the 2xx JSON
 * (free it). HTTP_REJECTED: a 4xx problem, its code (or, failing that, its RFC 8628 error) in code and its detail in
 * error. HTTP_UNAVAILABLE: network error, 5xx or 429; the reason is in error.
 */
static http_result post_device(const char *path, const char *body, char **answer, char *code, size_t codelen,
                               char *error, size_t errlen) {
    long status = 0;
    long long retry_after = 0;
    char *data = NULL;
    *answer = NULL;
    code[0] = '\0';
    if (http_post(path, body, &status, &data, &retry_after, error, errlen) != 0) return HTTP_UNAVAILABLE;
    if (status >= 200 && status < 300 && data) {
        *answer = data;
        return HTTP_OK;
    }
    if (status == 429 || status >= 500 || status < 400 || !data) {
        if (status == 429) snprintf(error, errlen, "too many requests; retry in %lld s", retry_after);
        else snprintf(error, errlen, "HTTP %ld", status);
        free(data);
        return HTTP_UNAVAILABLE;
    }
    if (!license_json_get(data, "code", code, codelen) && !license_json_get(data, "error", code, codelen))
        snprintf(code, codelen, "http_%ld", status);
    if (!license_json_get(data, "detail", error, errlen)) snprintf(error, errlen, "HTTP %ld", status);
    free(data);
    return HTTP_REJECTED;
}

/* GETs SERVER_URL /api/license-file for this activated machine; the file's text (free it), or NULL. */
static char *fetch_license_file(const char *key, const char *fingerprint) {
    char url[2600], curl_error[CURL_ERROR_SIZE] = "";
    buffer b = {NULL, 0};
    long status = 0;
    CURLcode rc;
    CURL *curl = curl_easy_init();
    if (!curl) return NULL;
    /* The key is checked, the fingerprint is hex and APP_ID is URL-safe: nothing to escape. */
    snprintf(url, sizeof url, "%s/api/license-file?key=%s&fingerprint=%s&plugin_id=%s", SERVER_URL, key,
             fingerprint, APP_ID);
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, HTTP_TIMEOUT_SECONDS);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_error);
    rc = curl_easy_perform(curl);
    if (rc == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(curl);
    if (rc != CURLE_OK || status != 200 || !b.data || b.len > LICENSE_FILE_MAX_BYTES) {
        free(b.data);
        return NULL;
    }
    return b.data;
}

/*
 * Calls /activate, /validate or /deactivate. The key is checked and the fingerprint is hex, so they need no escaping;
 * /activate also sends the machine's details (host name, platform, app version), escaped.
 */
static http_result call(const char *endpoint, const char *key, const char *fingerprint, char **answer, char *error,
                        size_t errlen) {
    char body[2048], name[MACHINE_NAME_MAX_CHARS * 4 + 1];
    if (strcmp(endpoint, "/deactivate") == 0) {
        snprintf(body, sizeof body, "{\"license_key\":\"%s\",\"machine_fingerprint\":\"%s\"}", key, fingerprint);
    } else {
        snprintf(body, sizeof body, "{\"license_key\":\"%s\",\"machine_fingerprint\":\"%s\",\"plugin_id\":\"%s\"", key,
                 fingerprint, APP_ID);
        if (strcmp(endpoint, "/activate") == 0) {
            host_name(name, sizeof name);
            /* The buffer holds the longest details; a body that did not fit would not be JSON, so it is never sent. */
            if (!json_append_string(body, sizeof body, "machine_name", name) ||
                !json_append_string(body, sizeof body, "platform", PLATFORM) ||
                !json_append_string(body, sizeof body, "app_version", app_version)) {
                snprintf(error, errlen, "the activation request is too long");
                return HTTP_REJECTED;
            }
        }
        snprintf(body + strlen(body), sizeof body - strlen(body), "}");
    }
    return post_json(endpoint, body, answer, error, errlen);
}

/* ------------------------------------------------------------------ decisions */

static int code_is(const char *json, const char *expected) {
    char code[64];
    return license_json_get(json, "code", code, sizeof code) && strcmp(code, expected) == 0;
}

/* The outcome of a /validate or /activate answer that does not allow running. */
static license_outcome refusal(const char *json) {
    char code[64] = "", detail[300] = "";
    license_json_get(json, "code", code, sizeof code);
    license_json_get(json, "detail", detail, sizeof detail);
    if (strcmp(code, "NOT_FOUND") == 0)
        return outcome(LICENSE_NEEDS_KEY, "This license key was not found. Check it and enter it again.");
    if (strcmp(code, "PRODUCT_MISMATCH") == 0)
        return outcome(LICENSE_NEEDS_KEY, "This license key belongs to a different product. Enter the key for this app.");
    if (strcmp(code, "REVOKED") == 0)
        return outcome(LICENSE_REVOKED, "This license has been revoked by the seller. Contact the seller if you think this is a mistake.");
    if (strcmp(code, "EXPIRED") == 0)
        return outcome(LICENSE_EXPIRED, "This license has expired. Renew it to keep using the app.");
    if (strcmp(code, "TRIAL_EXPIRED") == 0)
        return outcome(LICENSE_TRIAL_EXPIRED, "Your trial has ended. Buy a license to keep using the app.");
    if (strcmp(code, "TOO_MANY_MACHINES") == 0)
        return outcome(LICENSE_TOO_MANY_MACHINES,
                       "This license is already active on %ld of %ld machines. Release one (Deactivate in the app on "
                       "that machine, or from your purchase page) and try again.",
                       json_long(json, "active_machines", 0), json_long(json, "max_machines", 0));
    if (strcmp(code, "NO_MACHINE") == 0 || strcmp(code, "FINGERPRINT_SCOPE_MISMATCH") == 0)
        return outcome(LICENSE_ERROR, "This license is not activated on this machine and activation did not succeed.");
    return outcome(LICENSE_ERROR, "Unexpected answer from the license server (%s): %s", code, detail);
}

/* After a good validation: fetches this machine's license file and stores it when it verifies. */
static void refresh_license_file(const char *key, const char *fingerprint) {
    char path[1100], *text;
    if (!license_file_has_key(LICENSE_PUBLIC_KEYS, LICENSE_PUBLIC_KEY_COUNT)) return; /* nothing could verify it */
    text = fetch_license_file(key, fingerprint);
    /* Just issued: the time window is the server's (a clock a few minutes slow would refuse it for now). */
    if (text && !license_verify_file(text, fingerprint, key, -1, NULL) &&
        license_file_path(path, sizeof path, 1))
        write_file_atomically(path, text); /* otherwise the previous file stays */
    free(text);
}

static license_outcome offline(const license_state *s, const char *key, const char *fingerprint, const char *reason) {
    long long now = (long long)time(NULL);
    if (license_file_has_key(LICENSE_PUBLIC_KEYS, LICENSE_PUBLIC_KEY_COUNT)) {
        /* A key is embedded: only a verified license file lets the app run offline. */
        long long expires = 0;
        char *text = read_license_file();
        const char *why = text ? license_verify_file(text, fingerprint, key, now, &expires) : "no license file";
        free(text);
        if (why)
            return outcome(LICENSE_UNREACHABLE, "Could not reach the license server (%s). No valid offline license file: %s. Connect to the internet to verify your license.",
                           reason, why);
        return outcome(LICENSE_OFFLINE_GRACE, "Could not reach the license server (%s). Running offline on this machine's signed license file for up to %lld more day(s).",
                       reason, (expires - now + 86399) / 86400);
    }
    if (strcmp(s->key, key) == 0 && strcmp(s->fingerprint, fingerprint) == 0 && s->validated_at > 0) {
        long long age = now - s->validated_at;
        long long expires = s->expires_at[0] ? license_parse_iso8601(s->expires_at) : -1;
        /* A clock set back (age < 0) or a license that has run out since does not get the grace period. */
        if (age >= 0 && age < OFFLINE_GRACE_SECONDS && (expires < 0 || expires > now)) {
            long long days_left = (OFFLINE_GRACE_SECONDS - age + 86399) / 86400;
            return outcome(LICENSE_OFFLINE_GRACE, "Could not reach the license server (%s). Running offline for up to %lld more day(s).",
                           reason, days_left);
        }
    }
    return outcome(LICENSE_UNREACHABLE, "Could not reach the license server (%s). Connect to the internet to verify your license.",
                   reason);
}

static license_outcome check_key(const char *key, const char *fingerprint, license_state *stored, int newly_entered) {
    char error[400], *answer = NULL, *activation = NULL;
    http_result r;
    int activated = 0;
    license_outcome o;

    if (newly_entered) {
        r = call("/activate", key, fingerprint, &activation, error, sizeof error);
        if (r == HTTP_UNAVAILABLE)
            return outcome(LICENSE_UNREACHABLE, "Could not reach the license server to activate (%s). Check your connection and try again.", error);
        if (r == HTTP_REJECTED) return outcome(LICENSE_ERROR, "The license server refused the request (%s).", error);
        if (!json_true(activation, "activated")) {
            o = refusal(activation);
            free(activation);
            return o;
        }
        free(activation);
        activated = 1;
    }
    r = call("/validate", key, fingerprint, &answer, error, sizeof error);
    if (r == HTTP_OK && !activated && (code_is(answer, "NO_MACHINE") || code_is(answer, "FINGERPRINT_SCOPE_MISMATCH"))) {
        /* The key is fine but this machine is not (or no longer) activated: take a seat, then validate again. */
        free(answer);
        answer = NULL;
        r = call("/activate", key, fingerprint, &activation, error, sizeof error);
        if (r == HTTP_OK) {
            if (!json_true(activation, "activated")) {
                o = refusal(activation);
                free(activation);
                return o;
            }
            free(activation);
            r = call("/validate", key, fingerprint, &answer, error, sizeof error);
        }
    }
    if (r == HTTP_UNAVAILABLE) return offline(stored, key, fingerprint, error);
    if (r == HTTP_REJECTED) return outcome(LICENSE_ERROR, "The license server refused the request (%s).", error);

    if (json_true(answer, "valid") && code_is(answer, "VALID")) {
        license_state s;
        memset(&s, 0, sizeof s);
        snprintf(s.key, sizeof s.key, "%s", key);
        snprintf(s.fingerprint, sizeof s.fingerprint, "%s", fingerprint);
        s.validated_at = (long long)time(NULL);
        if (!license_json_get(answer, "expires_at", s.expires_at, sizeof s.expires_at) || strcmp(s.expires_at, "null") == 0)
            s.expires_at[0] = '\0';
        save_state(&s);
        refresh_license_file(key, fingerprint);
        if (json_true(answer, "trial")) {
            o = outcome(LICENSE_VALID, "Trial license: %ld day(s) left.", json_long(answer, "trial_days_remaining", 0));
            o.trial = 1;
            o.trial_days_remaining = (int)json_long(answer, "trial_days_remaining", 0);
        } else {
            o = outcome(LICENSE_VALID, "License valid.");
        }
        free(answer);
        return o;
    }
    o = refusal(answer);
    free(answer);
    if (o.status == LICENSE_NEEDS_KEY || o.status == LICENSE_REVOKED || o.status == LICENSE_TRIAL_EXPIRED) {
        clear_state(); /* the next launch asks for a (new) key */
    } else if (strcmp(stored->key, key) == 0) {
        stored->validated_at = 0; /* keep the key, drop the offline grace */
        save_state(stored);
        remove_license_file();
    }
    return o;
}

int license_global_init(const char *version) {
    clean_text(version, APP_VERSION_MAX_CHARS, app_version, sizeof app_version);
    return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

void license_global_cleanup(void) {
    curl_global_cleanup();
}

license_outcome license_check(const char *entered_key) {
    char fingerprint[65], key[20];
    license_state stored;
    if (license_machine_fingerprint(fingerprint) != 0)
        return outcome(LICENSE_ERROR, "Could not identify this machine (CPU brand or OS identifier unavailable).");
    load_state(&stored);
    if (entered_key) {
        if (!normalize_key(entered_key, key))
            return outcome(LICENSE_NEEDS_KEY, "That does not look like a license key: it has the form XXXX-XXXX-XXXX-XXXX.");
        return check_key(key, fingerprint, &stored, 1);
    }
    if (stored.key[0] && strcmp(stored.fingerprint, fingerprint) == 0)
        return check_key(stored.key, fingerprint, &stored, 0);
    return outcome(LICENSE_NEEDS_KEY, "A license key is required to use this app.");
}

license_outcome license_deactivate(void) {
    char fingerprint[65], error[400], *answer = NULL;
    license_state stored;
    license_outcome o;
    http_result r;
    if (!load_state(&stored)) return outcome(LICENSE_NEEDS_KEY, "No license is activated on this machine.");
    if (license_machine_fingerprint(fingerprint) != 0)
        return outcome(LICENSE_ERROR, "Could not identify this machine (CPU brand or OS identifier unavailable).");
    r = call("/deactivate", stored.key, fingerprint, &answer, error, sizeof error);
    if (r == HTTP_UNAVAILABLE) return outcome(LICENSE_UNREACHABLE, "Could not reach the license server (%s). Try again when online.", error);
    if (r == HTTP_REJECTED) return outcome(LICENSE_ERROR, "The license server refused the request (%s).", error);
    if (code_is(answer, "DEACTIVATED") || code_is(answer, "NOT_ACTIVATED") || code_is(answer, "NOT_FOUND")) {
        clear_state();
        o = outcome(LICENSE_NEEDS_KEY, "This machine has been released; its seat is free again.");
    } else {
        o = refusal(answer);
    }
    free(answer);
    return o;
}

/* ------------------------------------------------------------------ buying from inside the app */

static void print_purchase_url(const char *url, const char *user_code, void *context) {
    (void)context;
    printf("To buy and activate, open %s in your browser and check that it shows the code %s.\n", url, user_code);
    fflush(stdout);
}

static int sleep_between_polls(int seconds, void *context) {
    (void)context;
    sleep_seconds(seconds);
    return 0;
}

license_outcome license_buy_and_activate(const license_buy_options *options, char key_out[20]) {
    char fingerprint[65], body[2048], name[MACHINE_NAME_MAX_CHARS * 4 + 1], error[400], code[64], *answer = NULL;
    char device_code[256], url[1024], user_code[16], got[64], key[20];
    void (*open_fn)(const char *, const char *, void *) = options && options->open_url ? options->open_url : print_purchase_url;
    int (*wait_fn)(int, void *) = options && options->wait ? options->wait : sleep_between_polls;
    void *context = options ? options->context : NULL;
    long interval;
    long long deadline;
    int failures = 0;
    license_state stored;
    http_result r;

    if (key_out) key_out[0] = '\0';
    if (license_machine_fingerprint(fingerprint) != 0)
        return outcome(LICENSE_ERROR, "Could not identify this machine (CPU brand or OS identifier unavailable).");
    /* The same machine details as an activation: the license arrives activated on this machine. */
    snprintf(body, sizeof body, "{\"plugin_id\":\"%s\",\"machine_fingerprint\":\"%s\"", APP_ID, fingerprint);
    host_name(name, sizeof name);
    if (!json_append_string(body, sizeof body, "machine_name", name) ||
        !json_append_string(body, sizeof body, "platform", PLATFORM) ||
        !json_append_string(body, sizeof body, "app_version", app_version))
        return outcome(LICENSE_ERROR, "The purchase request is too long.");
    snprintf(body + strlen(body), sizeof body - strlen(body), "}");
    r = post_device("/api/v1/device/authorize", body, &answer, code, sizeof code, error, sizeof error);
    if (r == HTTP_UNAVAILABLE)
        return outcome(LICENSE_UNREACHABLE, "Could not reach the license server to start the purchase (%s). Check your connection and try again.", error);
    if (r == HTTP_REJECTED) return outcome(LICENSE_ERROR, "The license server refused the request (%s: %s).", code, error);
    if (!license_json_get(answer, "device_code", device_code, sizeof device_code) ||
        !license_json_get(answer, "verification_uri_complete", url, sizeof url) ||
        !license_json_get(answer, "user_code", user_code, sizeof user_code)) {
        free(answer);
        return outcome(LICENSE_ERROR, "Unexpected answer from the license server.");
    }
    interval = json_long(answer, "interval", 5);
    if (interval < 1) interval = 5;
    deadline = (long long)time(NULL) + json_long(answer, "expires_in", 900);
    free(answer);

    snprintf(body, sizeof body, "{\"grant_type\":\"%s\"", DEVICE_GRANT_TYPE);
    if (!json_append_string(body, sizeof body, "device_code", device_code))
        return outcome(LICENSE_ERROR, "Unexpected answer from the license server.");
    snprintf(body + strlen(body), sizeof body - strlen(body), "}");
    open_fn(url, user_code, context);

    for (;;) {
        if (wait_fn((int)interval, context) != 0) return outcome(LICENSE_ERROR, "Buying was cancelled.");
        if ((long long)time(NULL) > deadline)
            return outcome(LICENSE_ERROR, "The purchase was not finished in time (expired_token). Start again to buy.");
        r = post_device("/api/v1/device/token", body, &answer, code, sizeof code, error, sizeof error);
        if (r == HTTP_UNAVAILABLE) {
            /* The buyer may be paying right now: a short outage is waited out. */
            if (++failures >= DEVICE_MAX_FAILURES)
                return outcome(LICENSE_UNREACHABLE, "Lost the license server while waiting for the purchase (%s). Start again when online; a license you bought is in your account.", error);
            continue;
        }
        failures = 0;
        if (r == HTTP_OK) break;
        if (strcmp(code, "authorization_pending") == 0) continue;
        if (strcmp(code, "slow_down") == 0) {
            interval += 5; /* as RFC 8628 asks */
            continue;
        }
        if (strcmp(code, "access_denied") == 0)
            return outcome(LICENSE_ERROR, "The purchase was declined in the browser (access_denied).");
        if (strcmp(code, "expired_token") == 0)
            return outcome(LICENSE_ERROR, "The purchase was not finished in time (expired_token). Start again to buy.");
        if (strcmp(code, "invalid_grant") == 0)
            return outcome(LICENSE_ERROR, "The license server does not know this purchase (invalid_grant). Start again to buy.");
        return outcome(LICENSE_ERROR, "The license server refused the request (%s: %s).", code, error);
    }

    /* Approved: the license is activated on this machine. Store it first, so a failed validation keeps the key. */
    if (!license_json_get(answer, "license_key", got, sizeof got) || !normalize_key(got, key)) {
        free(answer);
        return outcome(LICENSE_ERROR, "Unexpected answer from the license server.");
    }
    free(answer);
    memset(&stored, 0, sizeof stored);
    snprintf(stored.key, sizeof stored.key, "%s", key);
    snprintf(stored.fingerprint, sizeof stored.fingerprint, "%s", fingerprint);
    save_state(&stored);
    {
        license_outcome o = check_key(key, fingerprint, &stored, 0);
        if (key_out && o.allowed) memcpy(key_out, key, sizeof key);
        return o;
    }
}
