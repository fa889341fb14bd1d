//! License checks for com.example.app against http://localhost:3000 (ureq 2, sha2, serde_json, ring).
//!
//! Call check_license(APP_VERSION) at every start; when it answers Status::NeedsKey, ask for the key and call
//! activate_license(key, APP_VERSION). Run only when outcome.allowed is true. The calls block: run them off the UI
//! thread. The app version (yours: env!("CARGO_PKG_VERSION"), say) is sent with the host name and platform when this
//! machine is activated, so the buyer and you can tell machines apart.
//! Offline, the app runs on this machine's signed license file, verified with LICENSE_PUBLIC_KEYS (Ed25519, ring).
//! buy_and_activate(APP_VERSION, print_purchase_url, sleep_between_polls) lets the user buy a license in the browser
//! and activates it here (OAuth device authorization, RFC 8628).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::env;
use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub const SERVER_URL: &str = "http://localhost:3000";
pub const APP_ID: &str = "com.example.app";
pub const OFFLINE_GRACE_DAYS: u64 = 7;
const OFFLINE_GRACE_SECS: u64 = OFFLINE_GRACE_DAYS * 24 * 60 * 60;
const HTTP_TIMEOUT: Duration = Duration::from_secs(10);
/// A 429 whose Retry-After is at most this long is waited out once; a longer one counts as "unavailable".
const MAX_RETRY_AFTER_WAIT_SECS: u64 = 10;

/// ---- LICENSE_PUBLIC_KEYS: the service's Ed25519 public key(s), embedded at build time (never fetched at run time).
/// key-id (the license file's "key-id" line) -> base64url of the raw 32-byte key. When the service rotates its key,
/// add the new key-id and keep the old one until the files it signed have expired. With no usable key here, the app
/// does not fetch license files and keeps the unsigned OFFLINE_GRACE_DAYS grace instead.
pub const LICENSE_PUBLIC_KEYS: &[(&str, &str)] = &[
    ("did:web:localhost%3A3000#ed25519-1", ""), // placeholder: replace "" with the key printed by the command in the setup steps
];
const LICENSE_FILE_FORMAT: &str = "ilm-license-file/1";
const LICENSE_FILE_MAX_BYTES: usize = 16 * 1024;
/// How far this machine's clock may be behind the server's when a license file's issued_at is checked.
const CLOCK_SKEW_SECS: i64 = 300;
// What /activate accepts for the machine's name and the app's version, in characters (see clean_text).
const MACHINE_NAME_MAX_CHARS: usize = 100;
const APP_VERSION_MAX_CHARS: usize = 64;
/// Buying from inside the app: the grant type the token endpoint is polled with (RFC 8628).
const DEVICE_GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:device_code";
/// Network failures in a row while waiting for the buyer before giving up.
const DEVICE_MAX_FAILURES: u32 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Run.
    Valid,
    /// Run: the server is unreachable; the signed license file (or a recent validation) allows it.
    OfflineGrace,
    /// Ask for a (new) key.
    NeedsKey,
    /// Offer renewal.
    Expired,
    /// Offer to buy.
    TrialExpired,
    /// Stop.
    Revoked,
    /// Tell the user to release a machine.
    TooManyMachines,
    /// No server and no recent validation.
    Unreachable,
    /// Anything else; see the message.
    Error,
}

#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub status: Status,
    pub allowed: bool,
    /// For the user.
    pub message: String,
    pub trial: bool,
    pub trial_days_remaining: i64,
    /// The key buy_and_activate received and stored (None otherwise). Never sent to a web view.
    #[serde(skip)]
    pub license_key: Option<String>,
}

impl Outcome {
    pub fn new(status: Status, message: impl Into<String>) -> Self {
        Outcome {
            status,
            allowed: matches!(status, Status::Valid | Status::OfflineGrace),
            message: message.into(),
            trial: false,
            trial_days_remaining: 0,
            license_key: None,
        }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    license_key: String,
    fingerprint: String,
    /// Unix seconds of the last good validation; 0 when there is none to fall back on.
    #[serde(default)]
    validated_at: u64,
    #[serde(default)]
    expires_at: Option<String>,
}

enum ApiError {
    /// Network error, timeout, HTTP 5xx, or 429 with a long Retry-After.
    Unavailable(String),
    /// HTTP 4xx with an RFC 9457 problem document.
    Rejected { code: String, detail: String },
}

// ------------------------------------------------------------------ machine fingerprint

fn command_output(program: &str, args: &[&str]) -> Result<String, String> {
    let output = Command::new(program).args(args).output().map_err(|e| format!("cannot run {program}: {e}"))?;
    if !output.status.success() {
        return Err(format!("{program} failed with {}", output.status));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// A REG_SZ value from the 64-bit view of HKLM, read with reg.exe (no extra crate needed).
fn registry_string(key: &str, value: &str) -> Result<String, String> {
    let out = command_output("reg", &["query", key, "/v", value, "/reg:64"])?;
    out.lines()
        .filter(|line| line.trim_start().starts_with(value))
        .find_map(|line| line.split_once("REG_SZ").map(|(_, v)| v.trim().to_string()))
        .ok_or_else(|| format!("{value} not found in {key}"))
}

fn cpu_brand() -> Result<String, String> {
    if cfg!(target_os = "windows") {
        return registry_string(r"HKLM\HARDWARE\DESCRIPTION\System\CentralProcessor\0", "ProcessorNameString");
    }
    if cfg!(target_os = "macos") {
        return command_output("sysctl", &["-n", "machdep.cpu.brand_string"]).map(|s| s.trim().to_string());
    }
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    for wanted in ["model name", "Hardware", "Model"] {
        let found = cpuinfo
            .lines()
            .filter_map(|line| line.split_once(':'))
            .find(|(name, value)| name.trim() == wanted && !value.trim().is_empty());
        if let Some((_, value)) = found {
            return Ok(value.trim().to_string());
        }
    }
    Ok(env::consts::ARCH.to_string())
}

fn os_identifier() -> Result<String, String> {
    if cfg!(target_os = "windows") {
        return registry_string(r"HKLM\SOFTWARE\Microsoft\Cryptography", "MachineGuid");
    }
    if cfg!(target_os = "macos") {
        let out = command_output("ioreg", &["-rd1", "-c", "IOPlatformExpertDevice"])?;
        return out
            .lines()
            .find(|line| line.contains("\"IOPlatformUUID\""))
            .and_then(|line| line.split('"').nth(3))
            .map(|uuid| uuid.trim().to_string())
            .ok_or_else(|| "IOPlatformUUID not found".to_string());
    }
    ["/etc/machine-id", "/var/lib/dbus/machine-id"]
        .iter()
        .filter_map(|path| fs::read_to_string(path).ok())
        .map(|id| id.trim().to_string())
        .find(|id| !id.is_empty())
        .ok_or_else(|| "no /etc/machine-id on this system".to_string())
}

/// Lowercase hex SHA-256 of "<CPU brand>|<OS identifier>".
pub fn machine_fingerprint() -> Result<String, String> {
    let input = format!("{}|{}", cpu_brand()?.trim(), os_identifier()?.trim());
    Ok(Sha256::digest(input.as_bytes()).iter().map(|b| format!("{b:02x}")).collect())
}

// ------------------------------------------------------------------ local state

fn state_path() -> Option<PathBuf> {
    let base = if cfg!(target_os = "windows") {
        env::var_os("APPDATA").map(PathBuf::from)
    } else if cfg!(target_os = "macos") {
        env::var_os("HOME").map(|home| PathBuf::from(home).join("Library").join("Application Support"))
    } else {
        env::var_os("XDG_CONFIG_HOME")
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from)
            .or_else(|| env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
    };
    base.map(|dir| dir.join(APP_ID).join("license.json"))
}

fn load_state() -> State {
    state_path()
        .and_then(|path| fs::read_to_string(path).ok())
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

fn save_state(state: &State) {
    let Some(path) = state_path() else { return };
    if let Some(dir) = path.parent() {
        let _ = fs::create_dir_all(dir);
    }
    let tmp = path.with_extension("json.tmp");
    if let Ok(text) = serde_json::to_string_pretty(state) {
        if fs::write(&tmp, text).is_ok() {
            let _ = fs::rename(&tmp, &path);
        }
    }
}

/// The signed license file, next to the state.
fn license_file_path() -> Option<PathBuf> {
    state_path().map(|path| path.with_file_name("license.lic"))
}

fn write_atomically(path: &PathBuf, text: &str) {
    if let Some(dir) = path.parent() {
        let _ = fs::create_dir_all(dir);
    }
    let tmp = path.with_extension("tmp");
    if fs::write(&tmp, text).is_ok() {
        let _ = fs::rename(&tmp, path);
    }
}

fn remove_license_file() {
    if let Some(path) = license_file_path() {
        let _ = fs::remove_file(path);
    }
}

/// Forgets the key, the cached validation and the license file.
fn clear_state() {
    if let Some(path) = state_path() {
        let _ = fs::remove_file(path);
    }
    remove_license_file();
}

fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// Unix seconds of an ISO 8601 UTC time such as 2026-01-31T12:00:00.000Z.
fn parse_iso8601(s: &str) -> Option<i64> {
    let num = |range: std::ops::Range<usize>| s.get(range).and_then(|p| p.parse::<i64>().ok());
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    // days from civil (Howard Hinnant's algorithm)
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some((era * 146_097 + doe - 719_468) * 86_400 + hh * 3600 + mm * 60 + ss)
}

// ------------------------------------------------------------------ signed offline license files

/// Unpadded base64url, or None (bad character or length).
fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        };
        acc = ((acc << 6) | u32::from(v)) & 0xFF_FFFF;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// The usable entries of LICENSE_PUBLIC_KEYS, raw (placeholders and malformed keys are skipped).
fn embedded_public_keys() -> Vec<(&'static str, Vec<u8>)> {
    LICENSE_PUBLIC_KEYS
        .iter()
        .filter_map(|(key_id, b64)| base64url_decode(b64).filter(|raw| raw.len() == 32).map(|raw| (*key_id, raw)))
        .collect()
}

/// The payload of a license file that lets this machine run at now (Unix seconds), or why not. Checks the armour
/// and format line, the key-id against LICENSE_PUBLIC_KEYS, the Ed25519 signature over the exact bytes
/// "ilm-license-file/1." + payload, then the fingerprint, APP_ID, the key (None: any) and the file's time window
/// (now None: skipped, for a file the server has just issued, which a slow clock would refuse for a few minutes).
pub fn verify_license_file(text: &str, fingerprint: &str, key: Option<&str>, now: Option<i64>) -> Result<Value, String> {
    if text.len() > LICENSE_FILE_MAX_BYTES {
        return Err("malformed license file (size)".into());
    }
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|line| !line.is_empty()).collect();
    if lines.len() != 6 || lines[0] != "-----BEGIN LICENSE FILE-----" || lines[5] != "-----END LICENSE FILE-----" {
        return Err("malformed license file (armour)".into());
    }
    let mut header = Vec::with_capacity(4);
    for (line, name) in lines[1..5].iter().zip(["format", "key-id", "payload", "signature"]) {
        match line.strip_prefix(name).and_then(|rest| rest.strip_prefix(": ")) {
            Some(value) => header.push(value.trim()),
            None => return Err(format!("malformed license file (expected the {name} line)")),
        }
    }
    let (format, key_id, payload_b64, signature_b64) = (header[0], header[1], header[2], header[3]);
    if format != LICENSE_FILE_FORMAT {
        return Err(format!("unsupported license file format {format:?}"));
    }
    let keys = embedded_public_keys();
    let Some((_, public_key)) = keys.iter().find(|(id, _)| *id == key_id) else {
        return Err(format!("unknown signing key {key_id:?}"));
    };
    let signature = base64url_decode(signature_b64).filter(|sig| sig.len() == 64);
    let payload_bytes = base64url_decode(payload_b64);
    let (Some(signature), Some(payload_bytes)) = (signature, payload_bytes) else {
        return Err("malformed license file (base64url)".into());
    };
    let signed = format!("{LICENSE_FILE_FORMAT}.{payload_b64}");
    ring::signature::UnparsedPublicKey::new(&ring::signature::ED25519, public_key)
        .verify(signed.as_bytes(), &signature)
        .map_err(|_| "signature does not verify".to_string())?;
    let payload: Value = serde_json::from_slice(&payload_bytes).map_err(|_| "malformed license file payload".to_string())?;
    let (license, machine) = (&payload["license"], &payload["machine"]);
    if !license.is_object() || !machine.is_object() {
        return Err("malformed license file payload".into());
    }
    if payload["format"].as_str() != Some(LICENSE_FILE_FORMAT) || payload["key_id"].as_str() != Some(key_id) {
        return Err("the payload's format or key-id differs from the file's".into());
    }
    if machine["fingerprint"].as_str() != Some(fingerprint) {
        return Err("issued for another machine".into());
    }
    if license["plugin_id"].as_str() != Some(APP_ID) {
        return Err("issued for another product".into());
    }
    if key.is_some() && license["key"].as_str() != key {
        return Err("issued for another license key".into());
    }
    let issued = payload["issued_at"].as_str().and_then(parse_iso8601);
    let expires = payload["expires_at"].as_str().and_then(parse_iso8601);
    let license_ends = license["expires_at"].as_str().map(parse_iso8601);
    let (Some(issued), Some(expires)) = (issued, expires) else {
        return Err("malformed license file payload (issued_at, expires_at)".into());
    };
    if matches!(license_ends, Some(None)) {
        return Err("malformed license file payload (license.expires_at)".into());
    }
    let Some(now) = now else { return Ok(payload) };
    if now + CLOCK_SKEW_SECS < issued {
        return Err("the clock is set before the license file was issued".into());
    }
    if now >= expires || matches!(license_ends, Some(Some(ends)) if now >= ends) {
        return Err("the license file has expired".into());
    }
    Ok(payload)
}

fn read_license_file() -> Result<String, String> {
    let path = license_file_path().ok_or("no license file")?;
    let bytes = fs::read(path).map_err(|_| "no license file".to_string())?;
    String::from_utf8(bytes).map_err(|_| "malformed license file (not text)".to_string())
}

/// GETs /api/license-file for this activated machine; None when there is no usable answer.
fn fetch_license_file(key: &str, fingerprint: &str) -> Option<String> {
    // The key is checked, the fingerprint is hex and APP_ID is URL-safe: nothing to escape.
    let url = format!("{SERVER_URL}/api/license-file?key={key}&fingerprint={fingerprint}&plugin_id={APP_ID}");
    let response = ureq::get(&url).timeout(HTTP_TIMEOUT).set("Accept", "text/plain").call().ok()?;
    let text = response.into_string().ok()?;
    (text.len() <= LICENSE_FILE_MAX_BYTES).then_some(text)
}

/// After a good validation: fetches this machine's license file and stores it when it verifies.
fn refresh_license_file(key: &str, fingerprint: &str) {
    if embedded_public_keys().is_empty() {
        return; // nothing could verify it
    }
    let (Some(text), Some(path)) = (fetch_license_file(key, fingerprint), license_file_path()) else { return };
    if verify_license_file(&text, fingerprint, Some(key), None).is_ok() {
        write_atomically(&path, &text); // otherwise the previous file stays
    }
}

// ------------------------------------------------------------------ HTTP

fn retry_after_secs(header: Option<&str>) -> u64 {
    header.and_then(|v| v.trim().parse().ok()).unwrap_or(60)
}

fn post(path: &str, body: &Value) -> Result<Value, ApiError> {
    send(path, body, true)
}

/// POSTs JSON to SERVER_URL + path. A 2xx answer without a code member is an error when needs_code; a 4xx problem's
/// code is its code member, or (for the device endpoints) its RFC 8628 error.
fn send(path: &str, body: &Value, needs_code: bool) -> Result<Value, ApiError> {
    let payload = body.to_string();
    for attempt in 0..2 {
        let result = ureq::post(&format!("{SERVER_URL}{path}"))
            .timeout(HTTP_TIMEOUT)
            .set("Content-Type", "application/json")
            .set("Accept", "application/json")
            .send_string(&payload);
        match result {
            Ok(response) => {
                let text = response
                    .into_string()
                    .map_err(|e| ApiError::Unavailable(format!("unreadable answer from the license server: {e}")))?;
                let answer: Value = serde_json::from_str(&text)
                    .map_err(|_| ApiError::Unavailable("unexpected answer from the license server".into()))?;
                if needs_code && answer.get("code").and_then(Value::as_str).is_none() {
                    return Err(ApiError::Unavailable("unexpected answer from the license server".into()));
                }
                return Ok(answer);
            }
            Err(ureq::Error::Status(429, response)) => {
                let wait = retry_after_secs(response.header("Retry-After"));
                if attempt == 0 && wait <= MAX_RETRY_AFTER_WAIT_SECS {
                    thread::sleep(Duration::from_secs(wait));
                    continue;
                }
                return Err(ApiError::Unavailable(format!("too many requests; retry in {wait} s")));
            }
            Err(ureq::Error::Status(status, response)) => {
                let problem: Value = response
                    .into_string()
                    .ok()
                    .and_then(|text| serde_json::from_str(&text).ok())
                    .unwrap_or(Value::Null);
                let code = problem["code"]
                    .as_str()
                    .or_else(|| problem["error"].as_str())
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("http_{status}"));
                let detail = problem["detail"].as_str().map(str::to_string).unwrap_or_else(|| format!("HTTP {status}"));
                if status >= 500 {
                    return Err(ApiError::Unavailable(format!("server error {status}: {detail}")));
                }
                return Err(ApiError::Rejected { code, detail });
            }
            Err(ureq::Error::Transport(transport)) => {
                return Err(ApiError::Unavailable(format!("network error: {transport}")));
            }
        }
    }
    Err(ApiError::Unavailable("too many requests".into()))
}

/// text without control characters (the server refuses them), cut to max_chars characters as the server counts them
/// (UTF-16 units: a character beyond U+FFFF counts two) without cutting one in two.
fn clean_text(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars().filter(|c| !c.is_control()) {
        if used + c.len_utf16() > max_chars {
            break;
        }
        used += c.len_utf16();
        out.push(c);
    }
    out
}

/// This machine's host name (Linux: the kernel's, elsewhere from the `hostname` command; no extra crate needed).
fn host_name() -> String {
    let name = if cfg!(target_os = "linux") {
        fs::read_to_string("/proc/sys/kernel/hostname").map_err(|e| e.to_string())
    } else {
        command_output("hostname", &[])
    };
    clean_text(name.unwrap_or_default().trim(), MACHINE_NAME_MAX_CHARS)
}

/// This build's OS and CPU, named as releases name platforms: windows-x64, macos-arm64, linux-x64, ...
fn platform_name() -> String {
    let arch = match env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{}-{arch}", env::consts::OS)
}

/// Adds what the buyer and the seller see about this machine to a request body; empty values are left out.
fn add_machine_details(body: &mut Value, app_version: &str) {
    let details = [
        ("machine_name", host_name()),
        ("platform", platform_name()),
        ("app_version", clean_text(app_version, APP_VERSION_MAX_CHARS)),
    ];
    for (name, value) in details {
        if !value.is_empty() {
            body[name] = Value::String(value);
        }
    }
}

fn activate(key: &str, fingerprint: &str, app_version: &str) -> Result<Value, ApiError> {
    let mut body = json!({ "license_key": key, "machine_fingerprint": fingerprint, "plugin_id": APP_ID });
    add_machine_details(&mut body, app_version);
    post("/activate", &body)
}

fn validate(key: &str, fingerprint: &str) -> Result<Value, ApiError> {
    post("/validate", &json!({ "license_key": key, "machine_fingerprint": fingerprint, "plugin_id": APP_ID }))
}

fn deactivate(key: &str, fingerprint: &str) -> Result<Value, ApiError> {
    post("/deactivate", &json!({ "license_key": key, "machine_fingerprint": fingerprint }))
}

// ------------------------------------------------------------------ decisions

/// Upper-cased and trimmed key, or None when it is not XXXX-XXXX-XXXX-XXXX.
pub fn normalize_key(typed: &str) -> Option<String> {
    let key = typed.trim().to_ascii_uppercase();
    let well_formed = key.len() == 19
        && key.chars().enumerate().all(|(i, c)| if i % 5 == 4 { c == '-' } else { c.is_ascii_uppercase() || c.is_ascii_digit() });
    well_formed.then_some(key)
}

fn code_of(answer: &Value) -> &str {
    answer["code"].as_str().unwrap_or("")
}

/// The outcome of a /validate or /activate answer that does not allow running.
fn refusal(answer: &Value) -> Outcome {
    match code_of(answer) {
        "NOT_FOUND" => Outcome::new(Status::NeedsKey, "This license key was not found. Check it and enter it again."),
        "PRODUCT_MISMATCH" => Outcome::new(Status::NeedsKey, "This license key belongs to a different product. Enter the key for this app."),
        "REVOKED" => Outcome::new(Status::Revoked, "This license has been revoked by the seller. Contact the seller if you think this is a mistake."),
        "EXPIRED" => Outcome::new(Status::Expired, "This license has expired. Renew it to keep using the app."),
        "TRIAL_EXPIRED" => Outcome::new(Status::TrialExpired, "Your trial has ended. Buy a license to keep using the app."),
        "TOO_MANY_MACHINES" => Outcome::new(
            Status::TooManyMachines,
            format!(
                "This license is already active on {} of {} machines. Release one (Deactivate in the app on that machine, or from your purchase page) and try again.",
                answer["active_machines"].as_i64().unwrap_or(0),
                answer["max_machines"].as_i64().unwrap_or(0)
            ),
        ),
        "NO_MACHINE" | "FINGERPRINT_SCOPE_MISMATCH" => {
            Outcome::new(Status::Error, "This license is not activated on this machine and activation did not succeed.")
        }
        other => Outcome::new(
            Status::Error,
            format!("Unexpected answer from the license server ({other}): {}", answer["detail"].as_str().unwrap_or("")),
        ),
    }
}

fn offline(stored: &State, key: &str, fingerprint: &str, reason: &str) -> Outcome {
    let now = now_secs();
    if !embedded_public_keys().is_empty() {
        // A key is embedded: only a verified license file lets the app run offline.
        let verified = read_license_file().and_then(|text| verify_license_file(&text, fingerprint, Some(key), Some(now as i64)));
        return match verified {
            Ok(payload) => {
                let expires = payload["expires_at"].as_str().and_then(parse_iso8601).unwrap_or(0);
                let days_left = (expires - now as i64 + 86_399).div_euclid(86_400);
                let mut outcome = Outcome::new(
                    Status::OfflineGrace,
                    format!("Could not reach the license server ({reason}). Running offline on this machine's signed license file for up to {days_left} more day(s)."),
                );
                if payload["license"]["trial"] == Value::Bool(true) {
                    outcome.trial = true;
                    outcome.trial_days_remaining = days_left;
                }
                outcome
            }
            Err(why) => Outcome::new(
                Status::Unreachable,
                format!("Could not reach the license server ({reason}). No valid offline license file: {why}. Connect to the internet to verify your license."),
            ),
        };
    }
    if stored.license_key == key && stored.fingerprint == fingerprint && stored.validated_at > 0 {
        let still_licensed = match stored.expires_at.as_deref().and_then(parse_iso8601) {
            Some(expires) => expires > now as i64,
            None => true,
        };
        // A clock set back (validated_at in the future) or a license that has run out since gets no grace.
        if let Some(age) = now.checked_sub(stored.validated_at) {
            if age < OFFLINE_GRACE_SECS && still_licensed {
                let days_left = (OFFLINE_GRACE_SECS - age).div_ceil(86_400);
                return Outcome::new(
                    Status::OfflineGrace,
                    format!("Could not reach the license server ({reason}). Running offline for up to {days_left} more day(s)."),
                );
            }
        }
    }
    Outcome::new(
        Status::Unreachable,
        format!("Could not reach the license server ({reason}). Connect to the internet to verify your license."),
    )
}

fn check_key(key: &str, fingerprint: &str, mut stored: State, newly_entered: bool, app_version: &str) -> Outcome {
    let answer = (|| -> Result<Result<Value, Outcome>, ApiError> {
        let mut activated = false;
        if newly_entered {
            let activation = activate(key, fingerprint, app_version)?;
            if activation["activated"] != Value::Bool(true) {
                return Ok(Err(refusal(&activation)));
            }
            activated = true;
        }
        let mut answer = validate(key, fingerprint)?;
        if !activated && matches!(code_of(&answer), "NO_MACHINE" | "FINGERPRINT_SCOPE_MISMATCH") {
            // The key is fine but this machine is not (or no longer) activated: take a seat, then validate again.
            let activation = activate(key, fingerprint, app_version)?;
            if activation["activated"] != Value::Bool(true) {
                return Ok(Err(refusal(&activation)));
            }
            answer = validate(key, fingerprint)?;
        }
        Ok(Ok(answer))
    })();

    let answer = match answer {
        Ok(Ok(answer)) => answer,
        Ok(Err(refused)) => return refused,
        Err(ApiError::Unavailable(reason)) if newly_entered => {
            return Outcome::new(
                Status::Unreachable,
                format!("Could not reach the license server to activate ({reason}). Check your connection and try again."),
            )
        }
        Err(ApiError::Unavailable(reason)) => return offline(&stored, key, fingerprint, &reason),
        Err(ApiError::Rejected { code, detail }) => {
            return Outcome::new(Status::Error, format!("The license server refused the request ({code}): {detail}"))
        }
    };

    if answer["valid"] == Value::Bool(true) && code_of(&answer) == "VALID" {
        save_state(&State {
            license_key: key.to_string(),
            fingerprint: fingerprint.to_string(),
            validated_at: now_secs(),
            expires_at: answer["expires_at"].as_str().map(str::to_string),
        });
        refresh_license_file(key, fingerprint);
        if answer["trial"] == Value::Bool(true) {
            let days = answer["trial_days_remaining"].as_i64().unwrap_or(0);
            let mut outcome = Outcome::new(Status::Valid, format!("Trial license: {days} day(s) left."));
            outcome.trial = true;
            outcome.trial_days_remaining = days;
            return outcome;
        }
        return Outcome::new(Status::Valid, "License valid.");
    }
    let outcome = refusal(&answer);
    if matches!(outcome.status, Status::NeedsKey | Status::Revoked | Status::TrialExpired) {
        clear_state(); // the next launch asks for a (new) key
    } else if stored.license_key == key {
        stored.validated_at = 0; // keep the key, drop the offline grace
        save_state(&stored);
        remove_license_file();
    }
    outcome
}

/// Validates the stored key (re-activating this machine when needed, sending app_version). Status::NeedsKey when
/// there is none.
pub fn check_license(app_version: &str) -> Outcome {
    let fingerprint = match machine_fingerprint() {
        Ok(fingerprint) => fingerprint,
        Err(e) => return Outcome::new(Status::Error, format!("Could not identify this machine: {e}")),
    };
    let stored = load_state();
    if stored.license_key.is_empty() || stored.fingerprint != fingerprint {
        return Outcome::new(Status::NeedsKey, "A license key is required to use this app.");
    }
    let key = stored.license_key.clone();
    check_key(&key, &fingerprint, stored, false, app_version)
}

/// Activates a key the user entered on this machine (sending app_version), validates it and stores it.
pub fn activate_license(entered_key: &str, app_version: &str) -> Outcome {
    let Some(key) = normalize_key(entered_key) else {
        return Outcome::new(Status::NeedsKey, "That does not look like a license key: it has the form XXXX-XXXX-XXXX-XXXX.");
    };
    match machine_fingerprint() {
        Ok(fingerprint) => check_key(&key, &fingerprint, load_state(), true, app_version),
        Err(e) => Outcome::new(Status::Error, format!("Could not identify this machine: {e}")),
    }
}

/// Releases this machine's seat so the key can be used elsewhere, and forgets the key here.
pub fn deactivate_this_machine() -> Outcome {
    let stored = load_state();
    if stored.license_key.is_empty() {
        return Outcome::new(Status::NeedsKey, "No license is activated on this machine.");
    }
    let fingerprint = match machine_fingerprint() {
        Ok(fingerprint) => fingerprint,
        Err(e) => return Outcome::new(Status::Error, format!("Could not identify this machine: {e}")),
    };
    match deactivate(&stored.license_key, &fingerprint) {
        Ok(answer) if matches!(code_of(&answer), "DEACTIVATED" | "NOT_ACTIVATED" | "NOT_FOUND") => {
            clear_state();
            Outcome::new(Status::NeedsKey, "This machine has been released; its seat is free again.")
        }
        Ok(answer) => refusal(&answer),
        Err(ApiError::Unavailable(reason)) => {
            Outcome::new(Status::Unreachable, format!("Could not reach the license server ({reason}). Try again when online."))
        }
        Err(ApiError::Rejected { code, detail }) => {
            Outcome::new(Status::Error, format!("The license server refused the request ({code}): {detail}"))
        }
    }
}

// ------------------------------------------------------------------ buying from inside the app

/// The usual open_url for buy_and_activate: prints the address the buyer opens and the code it shows.
pub fn print_purchase_url(url: &str, user_code: &str) {
    println!("To buy and activate, open {url} in your browser and check that it shows the code {user_code}.");
}

/// The usual wait for buy_and_activate: sleeps, and never gives up early.
pub fn sleep_between_polls(pause: Duration) -> bool {
    thread::sleep(pause);
    true
}

/// Buys and activates from inside the app (OAuth device authorization, RFC 8628): asks the server for a short code,
/// calls open_url(address, code) so the buyer can open the address in a browser and buy a license there (or pick one
/// they hold), then polls until the license arrives, activated on this machine, and stores and validates it exactly
/// as activate_license does (outcome.license_key holds it). wait(pause) waits between polls and returns false to stop
/// waiting (the user cancelled). Blocks until then, the buyer declines, or the request expires (15 minutes): run it
/// off the UI thread.
pub fn buy_and_activate(app_version: &str, mut open_url: impl FnMut(&str, &str), mut wait: impl FnMut(Duration) -> bool) -> Outcome {
    let fingerprint = match machine_fingerprint() {
        Ok(fingerprint) => fingerprint,
        Err(e) => return Outcome::new(Status::Error, format!("Could not identify this machine: {e}")),
    };
    // The same machine details as an activation: the license arrives activated on this machine.
    let mut body = json!({ "plugin_id": APP_ID, "machine_fingerprint": fingerprint });
    add_machine_details(&mut body, app_version);
    let start = match send("/api/v1/device/authorize", &body, false) {
        Ok(start) => start,
        Err(ApiError::Unavailable(reason)) => {
            return Outcome::new(
                Status::Unreachable,
                format!("Could not reach the license server to start the purchase ({reason}). Check your connection and try again."),
            )
        }
        Err(ApiError::Rejected { code, detail }) => {
            return Outcome::new(Status::Error, format!("The license server refused the request ({code}): {detail}"))
        }
    };
    let (Some(device_code), Some(url)) = (start["device_code"].as_str(), start["verification_uri_complete"].as_str()) else {
        return Outcome::new(Status::Error, "Unexpected answer from the license server.");
    };
    let mut interval = start["interval"].as_u64().filter(|secs| *secs > 0).unwrap_or(5);
    let deadline = Instant::now() + Duration::from_secs(start["expires_in"].as_u64().filter(|secs| *secs > 0).unwrap_or(900));
    open_url(url, start["user_code"].as_str().unwrap_or(""));

    let poll = json!({ "grant_type": DEVICE_GRANT_TYPE, "device_code": device_code });
    let mut failures = 0;
    let token = loop {
        if !wait(Duration::from_secs(interval)) {
            return Outcome::new(Status::Error, "Buying was cancelled.");
        }
        if Instant::now() > deadline {
            return Outcome::new(Status::Error, "The purchase was not finished in time (expired_token). Start again to buy.");
        }
        match send("/api/v1/device/token", &poll, false) {
            Ok(token) => break token,
            // The buyer may be paying right now: a short outage is waited out.
            Err(ApiError::Unavailable(reason)) => {
                failures += 1;
                if failures >= DEVICE_MAX_FAILURES {
                    return Outcome::new(
                        Status::Unreachable,
                        format!("Lost the license server while waiting for the purchase ({reason}). Start again when online; a license you bought is in your account."),
                    );
                }
            }
            Err(ApiError::Rejected { code, detail }) => {
                failures = 0;
                match code.as_str() {
                    "authorization_pending" => {}
                    "slow_down" => interval += 5, // as RFC 8628 asks
                    "access_denied" => return Outcome::new(Status::Error, "The purchase was declined in the browser (access_denied)."),
                    "expired_token" => {
                        return Outcome::new(Status::Error, "The purchase was not finished in time (expired_token). Start again to buy.")
                    }
                    "invalid_grant" => {
                        return Outcome::new(Status::Error, "The license server does not know this purchase (invalid_grant). Start again to buy.")
                    }
                    _ => return Outcome::new(Status::Error, format!("The license server refused the request ({code}): {detail}")),
                }
            }
        }
    };

    // Approved: the license is activated on this machine. Store it first, so a failed validation keeps the key.
    let Some(key) = token["license_key"].as_str().and_then(normalize_key) else {
        return Outcome::new(Status::Error, "Unexpected answer from the license server.");
    };
    let stored = State { license_key: key.clone(), fingerprint: fingerprint.clone(), validated_at: 0, expires_at: None };
    save_state(&stored);
    let mut outcome = check_key(&key, &fingerprint, stored, false, app_version);
    if outcome.allowed {
        outcome.license_key = Some(key);
    }
    outcome
}
