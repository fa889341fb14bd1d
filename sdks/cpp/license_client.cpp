// License checks for com.example.app against http://localhost:3000.
// Build with C++17; link with -lcurl -lcrypto (Windows: also advapi32).
#include "license_client.hpp"
#include "license_file.h"  // the signed license file check, shared with the C and JUCE integrations

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <vector>

#include <curl/curl.h>
#include <openssl/evp.h>  // EVP_Digest (SHA-256); Ed25519 is in license_file.c: OpenSSL 1.1.1 or newer

#if defined(_WIN32)
#include <windows.h>
#elif defined(__APPLE__)
#include <sys/sysctl.h>
#include <sys/types.h>
#else
#include <sys/utsname.h>
#endif
#if !defined(_WIN32)
#include <unistd.h>  // gethostname
#endif

namespace licensing {
namespace {

constexpr const char* kServerUrl = "http://localhost:3000";
constexpr const char* kAppId = "com.example.app";
constexpr int kOfflineGraceDays = 7;
constexpr long long kOfflineGraceSeconds = static_cast<long long>(kOfflineGraceDays) * 24 * 60 * 60;
constexpr long kHttpTimeoutSeconds = 10;
// A 429 whose Retry-After is at most this long is waited out once; a longer one counts as "unavailable".
constexpr long long kMaxRetryAfterWaitSeconds = 10;
constexpr std::size_t kMaxResponseBytes = 64 * 1024;
// What /activate accepts for the machine's name and the app's version, in characters (see cleanText).
constexpr std::size_t kMachineNameMaxChars = 100;
constexpr std::size_t kAppVersionMaxChars = 64;
// Buying from inside the app: the grant type the token endpoint is polled with (RFC 8628), and how many network
// failures in a row end the wait for the buyer.
constexpr const char* kDeviceGrantType = "urn:ietf:params:oauth:grant-type:device_code";
constexpr int kDeviceMaxFailures = 3;

// This build's OS and CPU, named as releases name platforms: windows-x64, macos-arm64, linux-x64, ...
constexpr const char* kPlatform =
#if defined(_WIN32)
    "windows-"
#elif defined(__APPLE__)
    "macos-"
#elif defined(__linux__)
    "linux-"
#else
    "other-"
#endif
#if defined(__x86_64__) || defined(__amd64__) || defined(_M_X64)
    "x64";
#elif defined(__aarch64__) || defined(_M_ARM64)
    "arm64";
#elif defined(__i386__) || defined(_M_IX86)
    "x86";
#else
    "other";
#endif

// ---- LICENSE_PUBLIC_KEYS: the service's Ed25519 public key(s), embedded at build time (never fetched at run time).
// key-id (the license file's "key-id" line) -> base64url of the raw 32-byte key. When the service rotates its key,
// add the new key-id and keep the old one until the files it signed have expired. With no usable key here, the app
// does not fetch license files and keeps the unsigned kOfflineGraceDays grace instead.
const license_public_key LICENSE_PUBLIC_KEYS[] = {
    {"did:web:localhost%3A3000#ed25519-1", ""}, // placeholder: replace "" with the key printed by the command in the setup steps
};
constexpr std::size_t kLicenseFileMaxBytes = LICENSE_FILE_MAX_BYTES;

namespace fs = std::filesystem;

Outcome make(Status status, std::string message) {
    Outcome o;
    o.status = status;
    o.message = std::move(message);
    return o;
}

std::string trim(std::string s) {
    auto notSpace = [](unsigned char c) { return !std::isspace(c); };
    s.erase(s.begin(), std::find_if(s.begin(), s.end(), notSpace));
    s.erase(std::find_if(s.rbegin(), s.rend(), notSpace).base(), s.end());
    return s;
}

long long nowSeconds() {
    using namespace std::chrono;
    return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

// Upper-cased and trimmed key, or nothing when it is not XXXX-XXXX-XXXX-XXXX.
std::optional<std::string> normalizeKey(const std::string& typed) {
    std::string key = trim(typed);
    std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (key.size() != 19) return std::nullopt;
    for (std::size_t i = 0; i < key.size(); ++i) {
        const char c = key[i];
        const bool ok = (i % 5 == 4) ? c == '-' : ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'));
        if (!ok) return std::nullopt;
    }
    return key;
}

// Seconds since the epoch of an ISO 8601 UTC time (2026-01-31T12:00:00.000Z), or nothing.
std::optional<long long> parseIso8601(const std::string& s) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
    if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &sec) != 6) return std::nullopt;
    y -= mo <= 2;  // days from civil (Howard Hinnant's algorithm)
    const long long era = (y >= 0 ? y : y - 399) / 400;
    const long long yoe = y - era * 400;
    const long long doy = (153LL * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (era * 146097 + doe - 719468) * 86400 + h * 3600LL + mi * 60LL + sec;
}

// ------------------------------------------------------------------ minimal JSON reader

// The top-level members of a JSON object: strings unescaped, other values verbatim (true, null, 12, {...}).
using JsonObject = std::map<std::string, std::string>;

class FlatJsonReader {
public:
    explicit FlatJsonReader(std::string_view text) : s_(text) {}

    std::optional<JsonObject> parse() {
        JsonObject out;
        skipWs();
        if (!eat('{')) return std::nullopt;
        skipWs();
        if (eat('}')) return out;
        while (true) {
            skipWs();
            auto name = readString();
            skipWs();
            if (!name || !eat(':')) return std::nullopt;
            skipWs();
            std::optional<std::string> value;
            if (peek() == '"') {
                value = readString();
            } else {
                const std::size_t start = i_;
                if (!skipValue()) return std::nullopt;
                value = std::string(s_.substr(start, i_ - start));
            }
            if (!value) return std::nullopt;
            out[*name] = *value;
            skipWs();
            if (eat('}')) return out;
            if (!eat(',')) return std::nullopt;
        }
    }

private:
    std::string_view s_;
    std::size_t i_ = 0;

    char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
    bool eat(char c) {
        if (peek() != c) return false;
        ++i_;
        return true;
    }
    void skipWs() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    static void appendUtf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }
    std::optional<std::string> readString() {
        if (!eat('"')) return std::nullopt;
        std::string out;
        while (i_ < s_.size()) {
            char c = s_[i_++];
            if (c == '"') return out;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (i_ >= s_.size()) return std::nullopt;
            c = s_[i_++];
            switch (c) {
            case 'n': out += '\n'; break;
            case 't': out += '\t'; break;
            case 'r': out += '\r'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'u': {
                if (i_ + 4 > s_.size()) return std::nullopt;
                unsigned cp = 0;
                for (int k = 0; k < 4; ++k) {
                    const char h = s_[i_++];
                    if (!std::isxdigit(static_cast<unsigned char>(h))) return std::nullopt;
                    cp = cp * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : std::tolower(static_cast<unsigned char>(h)) - 'a' + 10);
                }
                appendUtf8(out, (cp >= 0xD800 && cp <= 0xDFFF) ? '?' : cp);
                break;
            }
            default: out += c; break;  // \" \\ \/
            }
        }
        return std::nullopt;
    }
    bool skipValue() {
        if (peek() == '"') return readString().has_value();
        if (peek() == '{' || peek() == '[') {
            int depth = 0;
            while (i_ < s_.size()) {
                const char c = peek();
                if (c == '"') {
                    if (!readString()) return false;
                    continue;
                }
                ++i_;
                if (c == '{' || c == '[') ++depth;
                if ((c == '}' || c == ']') && --depth == 0) return true;
            }
            return false;
        }
        const std::size_t start = i_;
        while (i_ < s_.size() && std::string_view(",}] \t\r\n").find(s_[i_]) == std::string_view::npos) ++i_;
        return i_ > start;
    }
};

std::string field(const JsonObject& o, const std::string& name) {
    auto it = o.find(name);
    return it == o.end() ? std::string() : it->second;
}

long fieldLong(const JsonObject& o, const std::string& name) {
    try {
        return std::stol(field(o, name));
    } catch (const std::exception&) {
        return 0;
    }
}

// ------------------------------------------------------------------ machine fingerprint

#if defined(_WIN32)
std::string registryString(const char* subKey, const char* value, DWORD flags) {
    char buffer[256] = {};
    DWORD size = sizeof buffer;
    if (RegGetValueA(HKEY_LOCAL_MACHINE, subKey, value, RRF_RT_REG_SZ | flags, nullptr, buffer, &size) != ERROR_SUCCESS)
        throw std::runtime_error(std::string("cannot read registry value ") + value);
    return buffer;
}
#elif defined(__APPLE__)
std::string runCommand(const char* command) {
    std::string out;
    std::array<char, 512> buf{};
    FILE* pipe = popen(command, "r");
    if (!pipe) throw std::runtime_error(std::string("cannot run ") + command);
    while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe)) out += buf.data();
    pclose(pipe);
    return out;
}
#endif

std::string cpuBrand() {
#if defined(_WIN32)
    return trim(registryString("HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0", "ProcessorNameString", 0));
#elif defined(__APPLE__)
    std::array<char, 256> buf{};
    std::size_t size = buf.size();
    if (sysctlbyname("machdep.cpu.brand_string", buf.data(), &size, nullptr, 0) != 0)
        throw std::runtime_error("cannot read machdep.cpu.brand_string");
    return trim(buf.data());
#else
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::map<std::string, std::string> fields;
    for (std::string line; std::getline(cpuinfo, line);) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        fields.emplace(trim(line.substr(0, colon)), trim(line.substr(colon + 1)));
    }
    for (const char* name : {"model name", "Hardware", "Model"}) {
        const auto it = fields.find(name);
        if (it != fields.end() && !it->second.empty()) return it->second;
    }
    utsname u{};
    if (uname(&u) != 0) throw std::runtime_error("cannot identify the CPU");
    return u.machine;
#endif
}

std::string osIdentifier() {
#if defined(_WIN32)
    return trim(registryString("SOFTWARE\\Microsoft\\Cryptography", "MachineGuid", RRF_SUBKEY_WOW6464KEY));
#elif defined(__APPLE__)
    const std::string out = runCommand("ioreg -rd1 -c IOPlatformExpertDevice");
    const auto at = out.find("\"IOPlatformUUID\"");
    const auto open = at == std::string::npos ? at : out.find('"', at + 16);
    const auto close = open == std::string::npos ? open : out.find('"', open + 1);
    if (close == std::string::npos) throw std::runtime_error("IOPlatformUUID not found");
    return trim(out.substr(open + 1, close - open - 1));
#else
    for (const char* path : {"/etc/machine-id", "/var/lib/dbus/machine-id"}) {
        std::ifstream in(path);
        std::string id;
        std::getline(in, id);
        id = trim(id);
        if (!id.empty()) return id;
    }
    throw std::runtime_error("no /etc/machine-id on this system");
#endif
}

std::string sha256Hex(const std::string& data) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int len = 0;
    if (EVP_Digest(data.data(), data.size(), digest.data(), &len, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("SHA-256 failed");
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 0x0F];
    }
    return out;
}

// ------------------------------------------------------------------ machine details (sent on activation)

// UTF-8 text with at most maxChars characters as the server counts them (UTF-16 units: a character beyond U+FFFF
// counts two), never cutting one in two. Control characters (U+0000-U+001F, U+007F-U+009F, which the server refuses)
// and bytes that are not UTF-8 are left out.
std::string cleanText(const std::string& in, std::size_t maxChars) {
    std::string out;
    std::size_t chars = 0;
    for (std::size_t at = 0; at < in.size();) {
        const auto lead = static_cast<unsigned char>(in[at]);
        std::size_t len = lead < 0x80 ? 1 : (lead & 0xE0) == 0xC0 ? 2 : (lead & 0xF0) == 0xE0 ? 3 : (lead & 0xF8) == 0xF0 ? 4 : 0;
        if (len == 0 || at + len > in.size()) {  // a stray continuation byte, an invalid lead byte, a sequence cut short
            ++at;
            continue;
        }
        unsigned long cp = len == 1 ? lead : lead & (0x7Fu >> len);
        std::size_t i = 1;
        for (; i < len && (static_cast<unsigned char>(in[at + i]) & 0xC0) == 0x80; ++i)
            cp = (cp << 6) | (static_cast<unsigned char>(in[at + i]) & 0x3Fu);
        if (i < len) {
            ++at;
            continue;
        }
        const bool overlong = (len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
        const bool notCharacter = cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF);
        const bool control = cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
        if (!overlong && !notCharacter && !control) {
            const std::size_t width = cp > 0xFFFF ? 2 : 1;
            if (chars + width > maxChars) break;
            out.append(in, at, len);
            chars += width;
        }
        at += len;
    }
    return out;
}

// This machine's host name, cleaned (see cleanText); empty when unavailable.
std::string hostName() {
#if defined(_WIN32)
    wchar_t wide[256];
    DWORD size = sizeof wide / sizeof wide[0];
    char utf8[1024];
    if (!GetComputerNameExW(ComputerNameDnsHostname, wide, &size) ||
        WideCharToMultiByte(CP_UTF8, 0, wide, -1, utf8, static_cast<int>(sizeof utf8), nullptr, nullptr) == 0)
        return {};
    return cleanText(utf8, kMachineNameMaxChars);
#else
    std::array<char, 1024> name{};
    if (gethostname(name.data(), name.size() - 1) != 0) return {};  // the last NUL stays: POSIX may not terminate
    return cleanText(name.data(), kMachineNameMaxChars);
#endif
}

// A JSON string literal: quotes and backslashes escaped, control characters as \u00XX.
std::string jsonString(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
            out += escaped;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

// ------------------------------------------------------------------ local state

struct State {
    std::string key;
    std::string fingerprint;
    long long validatedAt = 0;  // 0: no good validation to fall back on
    std::string expiresAt;      // empty: perpetual
};

fs::path configDirectory() {
    auto env = [](const char* name) -> std::string {
        const char* v = std::getenv(name);
        return v ? v : "";
    };
#if defined(_WIN32)
    fs::path base = env("APPDATA");
#elif defined(__APPLE__)
    fs::path base = fs::path(env("HOME")) / "Library" / "Application Support";
#else
    fs::path base = env("XDG_CONFIG_HOME").empty() ? fs::path(env("HOME")) / ".config" : fs::path(env("XDG_CONFIG_HOME"));
#endif
    if (base.empty()) throw std::runtime_error("no configuration directory");
    return base / kAppId;
}

fs::path statePath() { return configDirectory() / "license.state"; }

// The signed license file, next to the state.
fs::path licenseFilePath() { return configDirectory() / "license.lic"; }

State loadState() {
    State s;
    std::ifstream in(statePath());
    for (std::string line; std::getline(in, line);) {
        const auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        const std::string name = line.substr(0, eq), value = trim(line.substr(eq + 1));
        if (name == "key") s.key = value;
        else if (name == "fingerprint") s.fingerprint = value;
        else if (name == "validated_at") s.validatedAt = std::atoll(value.c_str());
        else if (name == "expires_at") s.expiresAt = value;
    }
    return s;
}

// Writes through a temporary file, so a crash never leaves half a file.
void writeFileAtomically(const fs::path& path, const std::string& text) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    const fs::path tmp = path.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out) return;
    }
    fs::rename(tmp, path, ec);
}

void saveState(const State& s) {
    writeFileAtomically(statePath(), "key=" + s.key + "\nfingerprint=" + s.fingerprint + "\nvalidated_at=" +
                                         std::to_string(s.validatedAt) + "\nexpires_at=" + s.expiresAt + "\n");
}

void removeLicenseFile() {
    std::error_code ec;
    fs::remove(licenseFilePath(), ec);
}

// Forgets the key, the cached validation and the license file.
void clearState() {
    std::error_code ec;
    fs::remove(statePath(), ec);
    removeLicenseFile();
}

// The stored license file, or nothing.
std::optional<std::string> readLicenseFile() {
    std::ifstream in(licenseFilePath(), std::ios::binary);
    if (!in) return std::nullopt;
    std::string text(kLicenseFileMaxBytes + 1, '\0');
    in.read(&text[0], static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > kLicenseFileMaxBytes) return std::nullopt;
    return text;
}

// ------------------------------------------------------------------ signed offline license files

bool hasEmbeddedPublicKey() {
    return license_file_has_key(LICENSE_PUBLIC_KEYS, std::size(LICENSE_PUBLIC_KEYS)) != 0;
}

// Why a license file does not allow running offline.
struct LicenseFileInvalid : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// When the license file that lets this machine run now expires (Unix seconds); throws LicenseFileInvalid otherwise.
// now < 0: a file just issued, whose time window is the server's.
long long checkLicenseFile(const std::string& text, const std::string& fingerprint, const std::string& key, long long now) {
    long long expires = 0;
    const char* why = license_file_verify(text.c_str(), LICENSE_PUBLIC_KEYS, std::size(LICENSE_PUBLIC_KEYS), kAppId,
                                          fingerprint.c_str(), key.empty() ? nullptr : key.c_str(), now, &expires);
    if (why) throw LicenseFileInvalid(why);
    return expires;
}

// ------------------------------------------------------------------ HTTP

struct ServerUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct RequestRejected : std::runtime_error {
    RequestRejected(std::string problemCode, const std::string& what) : std::runtime_error(what), code(std::move(problemCode)) {}
    std::string code;  // the problem's code (or, failing that, its RFC 8628 error)
};

size_t onBody(char* ptr, size_t size, size_t nmemb, void* userdata) {
    auto* body = static_cast<std::string*>(userdata);
    const size_t n = size * nmemb;
    if (body->size() + n > kMaxResponseBytes) return 0;  // aborts the transfer
    body->append(ptr, n);
    return n;
}

// POSTs JSON to kServerUrl + path. Throws ServerUnavailable (network, 5xx, 429, or a 2xx answer without the code
// member when needsCode) or RequestRejected (other 4xx).
JsonObject post(const std::string& path, const std::string& body, bool needsCode = true) {
    for (int attempt = 0; attempt < 2; ++attempt) {
        std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
        if (!curl) throw ServerUnavailable("cannot start an HTTP request");
        std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(nullptr, &curl_slist_free_all);
        headers.reset(curl_slist_append(headers.release(), "Content-Type: application/json"));
        headers.reset(curl_slist_append(headers.release(), "Accept: application/json"));
        const std::string url = std::string(kServerUrl) + path;
        std::string response;
        std::array<char, CURL_ERROR_SIZE> error{};
        curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
        curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
        curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, body.c_str());
        curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, kHttpTimeoutSeconds);
        curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, onBody);
        curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &response);
        curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, error.data());

        const CURLcode rc = curl_easy_perform(curl.get());
        if (rc != CURLE_OK) {
            throw ServerUnavailable(std::string("cannot reach ") + kServerUrl + ": " + (error[0] ? error.data() : curl_easy_strerror(rc)));
        }
        long status = 0;
        curl_off_t retryAfter = -1;
        curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
        curl_easy_getinfo(curl.get(), CURLINFO_RETRY_AFTER, &retryAfter);
        const auto json = FlatJsonReader(response).parse();

        if (status == 429) {
            const long long wait = retryAfter >= 0 ? static_cast<long long>(retryAfter) : 60;
            if (attempt == 0 && wait <= kMaxRetryAfterWaitSeconds) {
                std::this_thread::sleep_for(std::chrono::seconds(wait));
                continue;
            }
            throw ServerUnavailable("too many requests; retry in " + std::to_string(wait) + " s");
        }
        if (status >= 200 && status < 300) {
            if (!json || (needsCode && field(*json, "code").empty())) throw ServerUnavailable("unexpected answer from the license server");
            return *json;
        }
        const std::string code = !json ? "" : !field(*json, "code").empty() ? field(*json, "code") : field(*json, "error");
        const std::string detail = json ? field(*json, "detail") : "";
        const std::string what = (code.empty() ? "http_" + std::to_string(status) : code) + ": " +
                                 (detail.empty() ? "HTTP " + std::to_string(status) : detail);
        if (status >= 500) throw ServerUnavailable("server error " + what);
        throw RequestRejected(code.empty() ? "http_" + std::to_string(status) : code, what);
    }
    throw ServerUnavailable("too many requests");
}

// GETs /api/license-file for this activated machine; nothing when there is no usable answer.
std::optional<std::string> fetchLicenseFile(const std::string& key, const std::string& fingerprint) {
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
    if (!curl) return std::nullopt;
    // The key is checked, the fingerprint is hex and the app id is URL-safe: nothing to escape.
    const std::string url = std::string(kServerUrl) + "/api/license-file?key=" + key + "&fingerprint=" + fingerprint + "&plugin_id=" + kAppId;
    std::string response;
    curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, kHttpTimeoutSeconds);
    curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, onBody);
    curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &response);
    long status = 0;
    if (curl_easy_perform(curl.get()) != CURLE_OK) return std::nullopt;
    curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
    if (status != 200 || response.size() > kLicenseFileMaxBytes) return std::nullopt;
    return response;
}

// After a good validation: fetches this machine's license file and stores it when it verifies.
void refreshLicenseFile(const std::string& key, const std::string& fingerprint) {
    if (!hasEmbeddedPublicKey()) return;  // nothing could verify it
    const auto text = fetchLicenseFile(key, fingerprint);
    if (!text) return;
    try {
        checkLicenseFile(*text, fingerprint, key, -1);  // just issued: a clock a few minutes slow must not refuse it
    } catch (const LicenseFileInvalid&) {
        return;  // keep the previous file
    }
    writeFileAtomically(licenseFilePath(), *text);
}

// ,"machine_name":…,"platform":…,"app_version":… for an activation (empty values left out), escaped.
std::string machineDetails(const std::string& appVersion) {
    std::string out;
    const std::string details[][2] = {
        {"machine_name", hostName()}, {"platform", kPlatform}, {"app_version", cleanText(appVersion, kAppVersionMaxChars)}};
    for (const auto& [name, value] : details)
        if (!value.empty()) out += ",\"" + name + "\":" + jsonString(value);
    return out;
}

// The key is checked and the fingerprint is hex, so they need no escaping; appVersion (only for /activate, with the
// other machine details) does.
JsonObject call(const std::string& endpoint, const std::string& key, const std::string& fingerprint,
                const std::string& appVersion = {}) {
    std::string body = "{\"license_key\":\"" + key + "\",\"machine_fingerprint\":\"" + fingerprint + "\"";
    if (endpoint != "/deactivate") body += std::string(",\"plugin_id\":\"") + kAppId + "\"";
    if (endpoint == "/activate") body += machineDetails(appVersion);
    return post(endpoint, body + "}");
}

// ------------------------------------------------------------------ decisions

// The outcome of a /validate or /activate answer that does not allow running.
Outcome refusal(const JsonObject& answer) {
    const std::string code = field(answer, "code");
    if (code == "NOT_FOUND") return make(Status::NeedsKey, "This license key was not found. Check it and enter it again.");
    if (code == "PRODUCT_MISMATCH") return make(Status::NeedsKey, "This license key belongs to a different product. Enter the key for this app.");
    if (code == "REVOKED") return make(Status::Revoked, "This license has been revoked by the seller. Contact the seller if you think this is a mistake.");
    if (code == "EXPIRED") return make(Status::Expired, "This license has expired. Renew it to keep using the app.");
    if (code == "TRIAL_EXPIRED") return make(Status::TrialExpired, "Your trial has ended. Buy a license to keep using the app.");
    if (code == "TOO_MANY_MACHINES") {
        return make(Status::TooManyMachines, "This license is already active on " + std::to_string(fieldLong(answer, "active_machines")) + " of " +
                                                 std::to_string(fieldLong(answer, "max_machines")) +
                                                 " machines. Release one (Deactivate in the app on that machine, or from your purchase page) and try again.");
    }
    if (code == "NO_MACHINE" || code == "FINGERPRINT_SCOPE_MISMATCH")
        return make(Status::Error, "This license is not activated on this machine and activation did not succeed.");
    return make(Status::Error, "Unexpected answer from the license server (" + code + "): " + field(answer, "detail"));
}

Outcome offline(const State& s, const std::string& key, const std::string& fingerprint, const std::string& reason) {
    const long long now = nowSeconds();
    if (hasEmbeddedPublicKey()) {
        // A key is embedded: only a verified license file lets the app run offline.
        try {
            const auto text = readLicenseFile();
            if (!text) throw LicenseFileInvalid("no license file");
            const long long daysLeft = (checkLicenseFile(*text, fingerprint, key, now) - now + 86399) / 86400;
            return make(Status::OfflineGrace, "Could not reach the license server (" + reason +
                                                  "). Running offline on this machine's signed license file for up to " +
                                                  std::to_string(daysLeft) + " more day(s).");
        } catch (const LicenseFileInvalid& e) {
            return make(Status::Unreachable, "Could not reach the license server (" + reason + "). No valid offline license file: " +
                                                 e.what() + ". Connect to the internet to verify your license.");
        }
    }
    if (s.key == key && s.fingerprint == fingerprint && s.validatedAt > 0) {
        const long long age = now - s.validatedAt;
        const auto expires = s.expiresAt.empty() ? std::nullopt : parseIso8601(s.expiresAt);
        // A clock set back (age < 0) or a license that has run out since does not get the grace period.
        if (age >= 0 && age < kOfflineGraceSeconds && (!expires || *expires > now)) {
            const long long daysLeft = (kOfflineGraceSeconds - age + 86399) / 86400;
            return make(Status::OfflineGrace, "Could not reach the license server (" + reason + "). Running offline for up to " +
                                                  std::to_string(daysLeft) + " more day(s).");
        }
    }
    return make(Status::Unreachable, "Could not reach the license server (" + reason + "). Connect to the internet to verify your license.");
}

Outcome checkKey(const std::string& key, const std::string& fingerprint, State stored, bool newlyEntered,
                 const std::string& appVersion) {
    JsonObject answer;
    try {
        bool activated = false;
        if (newlyEntered) {
            const JsonObject activation = call("/activate", key, fingerprint, appVersion);
            if (field(activation, "activated") != "true") return refusal(activation);
            activated = true;
        }
        answer = call("/validate", key, fingerprint);
        const std::string code = field(answer, "code");
        if (!activated && (code == "NO_MACHINE" || code == "FINGERPRINT_SCOPE_MISMATCH")) {
            // The key is fine but this machine is not (or no longer) activated: take a seat, then validate again.
            const JsonObject activation = call("/activate", key, fingerprint, appVersion);
            if (field(activation, "activated") != "true") return refusal(activation);
            answer = call("/validate", key, fingerprint);
        }
    } catch (const ServerUnavailable& e) {
        if (newlyEntered) {
            return make(Status::Unreachable, std::string("Could not reach the license server to activate (") + e.what() +
                                                 "). Check your connection and try again.");
        }
        return offline(stored, key, fingerprint, e.what());
    } catch (const RequestRejected& e) {
        return make(Status::Error, std::string("The license server refused the request (") + e.what() + ").");
    }

    if (field(answer, "valid") == "true" && field(answer, "code") == "VALID") {
        const std::string expires = field(answer, "expires_at");
        saveState(State{key, fingerprint, nowSeconds(), expires == "null" ? "" : expires});
        refreshLicenseFile(key, fingerprint);
        if (field(answer, "trial") == "true") {
            Outcome o = make(Status::Valid, "Trial license: " + std::to_string(fieldLong(answer, "trial_days_remaining")) + " day(s) left.");
            o.trial = true;
            o.trialDaysRemaining = static_cast<int>(fieldLong(answer, "trial_days_remaining"));
            return o;
        }
        return make(Status::Valid, "License valid.");
    }
    Outcome o = refusal(answer);
    if (o.status == Status::NeedsKey || o.status == Status::Revoked || o.status == Status::TrialExpired) {
        clearState();  // the next launch asks for a (new) key
    } else if (stored.key == key) {
        stored.validatedAt = 0;  // keep the key, drop the offline grace
        saveState(stored);
        removeLicenseFile();
    }
    return o;
}

} // namespace

CurlGlobal::CurlGlobal() {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) throw std::runtime_error("curl_global_init failed");
}
CurlGlobal::~CurlGlobal() { curl_global_cleanup(); }

std::string machineFingerprint() {
    return sha256Hex(trim(cpuBrand()) + "|" + trim(osIdentifier()));
}

std::string verifyLicenseFile(const std::string& text, const std::string& fingerprint, const std::string& key,
                              long long now, long long* expiresAt) {
    try {
        const long long expires = checkLicenseFile(text, fingerprint, key, now);
        if (expiresAt) *expiresAt = expires;
        return {};
    } catch (const LicenseFileInvalid& e) {
        return e.what();
    }
}

Outcome checkLicense(const std::string& appVersion) {
    try {
        const std::string fingerprint = machineFingerprint();
        const State stored = loadState();
        if (stored.key.empty() || stored.fingerprint != fingerprint)
            return make(Status::NeedsKey, "A license key is required to use this app.");
        return checkKey(stored.key, fingerprint, stored, false, appVersion);
    } catch (const std::exception& e) {
        return make(Status::Error, std::string("License check failed: ") + e.what());
    }
}

Outcome activateLicense(const std::string& enteredKey, const std::string& appVersion) {
    const auto key = normalizeKey(enteredKey);
    if (!key) return make(Status::NeedsKey, "That does not look like a license key: it has the form XXXX-XXXX-XXXX-XXXX.");
    try {
        return checkKey(*key, machineFingerprint(), loadState(), true, appVersion);
    } catch (const std::exception& e) {
        return make(Status::Error, std::string("License check failed: ") + e.what());
    }
}

Outcome buyAndActivate(const std::string& appVersion, const BuyOptions& options) {
    try {
        const std::string fingerprint = machineFingerprint();
        // The same machine details as an activation: the license arrives activated on this machine.
        const JsonObject start = post("/api/v1/device/authorize",
                                      std::string("{\"plugin_id\":\"") + kAppId + "\",\"machine_fingerprint\":\"" + fingerprint +
                                          "\"" + machineDetails(appVersion) + "}",
                                      false);
        const std::string deviceCode = field(start, "device_code"), url = field(start, "verification_uri_complete");
        const std::string userCode = field(start, "user_code");
        if (deviceCode.empty() || url.empty()) return make(Status::Error, "Unexpected answer from the license server.");
        long interval = fieldLong(start, "interval");
        if (interval < 1) interval = 5;
        const long expiresIn = fieldLong(start, "expires_in");
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(expiresIn > 0 ? expiresIn : 900);
        if (options.openUrl) {
            options.openUrl(url, userCode);
        } else {
            std::cout << "To buy and activate, open " << url << " in your browser and check that it shows the code " << userCode
                      << "." << std::endl;
        }

        const std::string poll = std::string("{\"grant_type\":\"") + kDeviceGrantType + "\",\"device_code\":" + jsonString(deviceCode) + "}";
        for (int failures = 0;;) {
            const std::chrono::seconds pause(interval);
            if (options.wait ? !options.wait(pause) : (std::this_thread::sleep_for(pause), false))
                return make(Status::Error, "Buying was cancelled.");
            if (std::chrono::steady_clock::now() > deadline)
                return make(Status::Error, "The purchase was not finished in time (expired_token). Start again to buy.");
            JsonObject token;
            try {
                token = post("/api/v1/device/token", poll, false);
            } catch (const ServerUnavailable& e) {
                // The buyer may be paying right now: a short outage is waited out.
                if (++failures < kDeviceMaxFailures) continue;
                return make(Status::Unreachable, std::string("Lost the license server while waiting for the purchase (") + e.what() +
                                                     "). Start again when online; a license you bought is in your account.");
            } catch (const RequestRejected& e) {
                failures = 0;
                if (e.code == "authorization_pending") continue;
                if (e.code == "slow_down") {
                    interval += 5;  // as RFC 8628 asks
                    continue;
                }
                if (e.code == "access_denied") return make(Status::Error, "The purchase was declined in the browser (access_denied).");
                if (e.code == "expired_token")
                    return make(Status::Error, "The purchase was not finished in time (expired_token). Start again to buy.");
                if (e.code == "invalid_grant")
                    return make(Status::Error, "The license server does not know this purchase (invalid_grant). Start again to buy.");
                return make(Status::Error, std::string("The license server refused the request (") + e.what() + ").");
            }
            // Approved: the license is activated on this machine. Store it first, so a failed validation keeps the key.
            const auto key = normalizeKey(field(token, "license_key"));
            if (!key) return make(Status::Error, "Unexpected answer from the license server.");
            const State stored{*key, fingerprint, 0, ""};
            saveState(stored);
            Outcome o = checkKey(*key, fingerprint, stored, false, appVersion);
            if (o.allowed()) o.licenseKey = *key;
            return o;
        }
    } catch (const ServerUnavailable& e) {
        return make(Status::Unreachable, std::string("Could not reach the license server to start the purchase (") + e.what() +
                                             "). Check your connection and try again.");
    } catch (const RequestRejected& e) {
        return make(Status::Error, std::string("The license server refused the request (") + e.what() + ").");
    } catch (const std::exception& e) {
        return make(Status::Error, std::string("Buying failed: ") + e.what());
    }
}

Outcome deactivateThisMachine() {
    try {
        const State stored = loadState();
        if (stored.key.empty()) return make(Status::NeedsKey, "No license is activated on this machine.");
        const JsonObject answer = call("/deactivate", stored.key, machineFingerprint());
        const std::string code = field(answer, "code");
        if (code == "DEACTIVATED" || code == "NOT_ACTIVATED" || code == "NOT_FOUND") {
            clearState();
            return make(Status::NeedsKey, "This machine has been released; its seat is free again.");
        }
        return refusal(answer);
    } catch (const ServerUnavailable& e) {
        return make(Status::Unreachable, std::string("Could not reach the license server (") + e.what() + "). Try again when online.");
    } catch (const std::exception& e) {
        return make(Status::Error, std::string("Could not release this machine: ") + e.what());
    }
}

} // namespace licensing
