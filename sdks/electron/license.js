// License checks for com.example.app against http://localhost:3000, for Electron's main process.
// Node built-ins only (crypto, fetch, os, child_process, fs). The state lives in the directory you pass in:
// app.getPath('userData').
// No key to copy: client.buyAndActivate({ openUrl: (url) => shell.openExternal(url) }) shows a short code and opens a
// page where the buyer pays or picks a license they hold; the license arrives already activated on this machine.
// Updates: client.checkForUpdate({ currentVersion: app.getVersion() }) answers the newest release this license may
// install (null when up to date); downloadUpdate(update, destPath) writes it only once its size, SHA-256 and Ed25519
// signature (by a key in LICENSE_PUBLIC_KEYS) verify.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs/promises');
const { createWriteStream } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { promisify } = require('node:util');

const execFileAsync = promisify(execFile);

const SERVER_URL = 'http://localhost:3000';
const APP_ID = 'com.example.app';
const OFFLINE_GRACE_DAYS = 7;
const OFFLINE_GRACE_MS = OFFLINE_GRACE_DAYS * 24 * 60 * 60 * 1000;
const HTTP_TIMEOUT_MS = 10000;
// A 429 whose Retry-After is at most this long is waited out once; a longer one counts as "unavailable".
const MAX_RETRY_AFTER_WAIT_MS = 10000;
const KEY_PATTERN = /^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/;

// ---- LICENSE_PUBLIC_KEYS: the service's Ed25519 public key(s), embedded at build time (never fetched at run time).
// key-id (the license file's "key-id" line) -> base64url of the raw 32-byte key. When the service rotates its key,
// add the new key-id and keep the old one until the files it signed have expired. With no usable key here, the app
// does not fetch license files and keeps the unsigned OFFLINE_GRACE_DAYS grace instead.
const LICENSE_PUBLIC_KEYS = Object.freeze({
  'did:web:localhost%3A3000#ed25519-1': '', // placeholder: replace "" with the key printed by the command in the setup steps
});
const LICENSE_FILE_FORMAT = 'ilm-license-file/1';
const LICENSE_FILE_MAX_BYTES = 16 * 1024;
// How far this machine's clock may be behind the server's when a license file's issued_at is checked.
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** Outcome statuses; the app may run when outcome.allowed is true (VALID and OFFLINE_GRACE). */
const Status = Object.freeze({
  VALID: 'valid',
  OFFLINE_GRACE: 'offline_grace',
  NEEDS_KEY: 'needs_key',
  EXPIRED: 'expired',
  TRIAL_EXPIRED: 'trial_expired',
  REVOKED: 'revoked',
  TOO_MANY_MACHINES: 'too_many_machines',
  UNREACHABLE: 'unreachable',
  ERROR: 'error',
});

function outcome(status, message, extra = {}) {
  return {
    status,
    allowed: status === Status.VALID || status === Status.OFFLINE_GRACE,
    message,
    trial: false,
    trialDaysRemaining: 0,
    ...extra,
  };
}

/** No usable answer: network error, timeout, HTTP 5xx, or 429 with a long Retry-After. */
class ServerUnavailable extends Error {}

/** HTTP 4xx with an RFC 9457 problem document. */
class RequestRejected extends Error {
  constructor(status, code, detail) {
    super(detail);
    this.status = status;
    this.code = code;
    this.detail = detail;
  }
}

/** buyAndActivate() ended without a license: `code` is the server's (access_denied, expired_token, invalid_grant, ...) or unreachable. */
class DeviceFlowError extends Error {
  constructor(code, detail) {
    super(detail);
    this.name = 'DeviceFlowError';
    this.code = code;
    this.detail = detail;
  }
}

// ------------------------------------------------------------------ machine fingerprint

async function registryString(key, value) {
  const { stdout } = await execFileAsync('reg', ['query', key, '/v', value, '/reg:64'], { windowsHide: true });
  const line = stdout.split(/\r?\n/).find((l) => l.trim().startsWith(value) && l.includes('REG_SZ'));
  if (!line) throw new Error(value + ' not found in ' + key);
  return line.slice(line.indexOf('REG_SZ') + 'REG_SZ'.length).trim();
}

function cpuBrand() {
  // os.cpus() reads /proc/cpuinfo "model name" on Linux, machdep.cpu.brand_string on macOS and
  // ProcessorNameString from the registry on Windows.
  const cpus = os.cpus();
  const model = cpus.length > 0 ? cpus[0].model.trim() : '';
  return model || os.arch();
}

async function osIdentifier() {
  if (process.platform === 'win32') {
    return registryString('HKLM\\SOFTWARE\\Microsoft\\Cryptography', 'MachineGuid');
  }
  if (process.platform === 'darwin') {
    const { stdout } = await execFileAsync('ioreg', ['-rd1', '-c', 'IOPlatformExpertDevice']);
    const match = /"IOPlatformUUID"\s*=\s*"([^"]+)"/.exec(stdout);
    if (!match) throw new Error('IOPlatformUUID not found');
    return match[1].trim();
  }
  for (const file of ['/etc/machine-id', '/var/lib/dbus/machine-id']) {
    try {
      const id = (await fs.readFile(file, 'utf8')).trim();
      if (id) return id;
    } catch {
      // try the next one
    }
  }
  throw new Error('no /etc/machine-id on this system');
}

/** Lowercase hex SHA-256 of "<CPU brand>|<OS identifier>". */
async function machineFingerprint() {
  const input = cpuBrand().trim() + '|' + (await osIdentifier()).trim();
  return crypto.createHash('sha256').update(input, 'utf8').digest('hex');
}

// ------------------------------------------------------------------ signed offline license files

/** The stored license file does not allow running offline; the message says why. */
class LicenseFileInvalid extends Error {}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function base64url(text, what) {
  if (!BASE64URL.test(text) || text.length % 4 === 1) throw new LicenseFileInvalid('malformed license file (' + what + ' is not base64url)');
  return Buffer.from(text, 'base64url');
}

/** The usable entries of LICENSE_PUBLIC_KEYS as KeyObjects (placeholders and malformed keys are skipped). */
function embeddedPublicKeys() {
  const keys = new Map();
  for (const [keyId, x] of Object.entries(LICENSE_PUBLIC_KEYS)) {
    if (!BASE64URL.test(x) || Buffer.from(x, 'base64url').length !== 32) continue;
    try {
      keys.set(keyId, crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' }));
    } catch {
      // not a point on the curve: skip it
    }
  }
  return keys;
}

function parseTime(value) {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? null : ms;
}

/**
 * The payload of a license file that lets this machine run now; throws LicenseFileInvalid otherwise. Checks the
 * armour and format line, the key-id against LICENSE_PUBLIC_KEYS, the Ed25519 signature over the exact bytes
 * "ilm-license-file/1." + payload, then this machine's fingerprint, APP_ID, the key, and the file's time window.
 */
function verifyLicenseFile(text, fingerprint, licenseKey, now = Date.now()) {
  // now === null skips the issued_at/expires_at window: for a file the server has just issued, which a clock running
  // a few minutes slow would otherwise refuse although it becomes valid on this machine soon.
  const lines = String(text).replace(/\r\n/g, '\n').trim().split('\n').map((line) => line.trim());
  if (lines.length !== 6 || lines[0] !== '-----BEGIN LICENSE FILE-----' || lines[5] !== '-----END LICENSE FILE-----') {
    throw new LicenseFileInvalid('malformed license file (armour)');
  }
  const field = {};
  ['format', 'key-id', 'payload', 'signature'].forEach((name, i) => {
    const line = lines[i + 1];
    if (!line.startsWith(name + ': ')) throw new LicenseFileInvalid('malformed license file (expected the ' + name + ' line)');
    field[name] = line.slice(name.length + 2).trim();
  });
  if (field.format !== LICENSE_FILE_FORMAT) throw new LicenseFileInvalid('unsupported license file format ' + JSON.stringify(field.format));
  const publicKey = embeddedPublicKeys().get(field['key-id']);
  if (!publicKey) throw new LicenseFileInvalid('unknown signing key ' + JSON.stringify(field['key-id']));
  const signature = base64url(field.signature, 'signature');
  const payloadBytes = base64url(field.payload, 'payload');
  if (signature.length !== 64) throw new LicenseFileInvalid('malformed license file (signature length)');
  const signed = Buffer.from(LICENSE_FILE_FORMAT + '.' + field.payload, 'ascii');
  if (!crypto.verify(null, signed, publicKey, signature)) throw new LicenseFileInvalid('signature does not verify');
  let payload;
  try {
    payload = JSON.parse(payloadBytes.toString('utf8'));
  } catch {
    throw new LicenseFileInvalid('malformed license file payload');
  }
  const license = payload && typeof payload.license === 'object' && payload.license ? payload.license : null;
  const machine = payload && typeof payload.machine === 'object' && payload.machine ? payload.machine : null;
  if (!license || !machine) throw new LicenseFileInvalid('malformed license file payload');
  if (payload.format !== LICENSE_FILE_FORMAT || payload.key_id !== field['key-id']) {
    throw new LicenseFileInvalid("the payload's format or key-id differs from the file's");
  }
  if (machine.fingerprint !== fingerprint) throw new LicenseFileInvalid('issued for another machine');
  if (license.plugin_id !== APP_ID) throw new LicenseFileInvalid('issued for another product');
  if (licenseKey !== undefined && license.key !== licenseKey) throw new LicenseFileInvalid('issued for another license key');
  const issuedAt = parseTime(payload.issued_at);
  const expiresAt = parseTime(payload.expires_at);
  const licenseEnds = parseTime(license.expires_at);
  if (issuedAt === null || expiresAt === null) throw new LicenseFileInvalid('malformed license file payload (issued_at, expires_at)');
  if (now === null) return payload;
  if (now + CLOCK_SKEW_MS < issuedAt) throw new LicenseFileInvalid('the clock is set before the license file was issued');
  if (now >= expiresAt || (licenseEnds !== null && now >= licenseEnds)) throw new LicenseFileInvalid('the license file has expired');
  return payload;
}

// ------------------------------------------------------------------ HTTP

function retryAfterMs(header) {
  if (!header) return 60000;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? 60000 : Math.max(0, date - Date.now());
}

/** POSTs JSON; a success must be an object with the string member `required` (licensing answers carry `code`). */
async function post(endpoint, body, required = 'code') {
  for (let attempt = 0; attempt < 2; attempt++) {
    let response;
    try {
      response = await fetch(SERVER_URL + endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
      });
    } catch (error) {
      const reason = error && error.name === 'TimeoutError' ? 'timed out' : (error && error.cause && error.cause.code) || String(error);
      throw new ServerUnavailable('cannot reach ' + SERVER_URL + ': ' + reason);
    }
    let answer = null;
    try {
      answer = await response.json();
    } catch {
      answer = null;
    }
    if (response.status === 429) {
      const wait = retryAfterMs(response.headers.get('Retry-After'));
      if (attempt === 0 && wait <= MAX_RETRY_AFTER_WAIT_MS) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        continue;
      }
      throw new ServerUnavailable('too many requests; retry in ' + Math.ceil(wait / 1000) + ' s');
    }
    if (response.ok) {
      if (!answer || typeof answer[required] !== 'string') throw new ServerUnavailable('unexpected answer from the license server');
      return answer;
    }
    const code = (answer && answer.code) || 'http_' + response.status;
    const detail = (answer && answer.detail) || 'HTTP ' + response.status;
    if (response.status >= 500) throw new ServerUnavailable('server error ' + response.status + ': ' + detail);
    throw new RequestRejected(response.status, code, detail);
  }
  throw new ServerUnavailable('too many requests');
}

/** GET /api/license-file for this activated machine; null when there is no usable answer. */
async function fetchLicenseFile(key, fingerprint) {
  const query = new URLSearchParams({ key, fingerprint, plugin_id: APP_ID });
  try {
    const response = await fetch(SERVER_URL + '/api/license-file?' + query, {
      headers: { Accept: 'text/plain' },
      signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
    });
    if (!response.ok) return null;
    const text = await response.text();
    return text.length <= LICENSE_FILE_MAX_BYTES ? text : null;
  } catch {
    return null;
  }
}

// What /activate accepts for the machine's name and the app's version, in characters (see cleanText).
const MACHINE_NAME_MAX_CHARS = 100;
const APP_VERSION_MAX_CHARS = 64;

/**
 * text without the characters the server refuses (controls U+0000-U+001F and U+007F-U+009F, lone surrogates), cut
 * to maxChars characters as the server counts them (UTF-16 units) without cutting one in two.
 */
function cleanText(text, maxChars) {
  let out = '';
  for (const char of String(text)) {
    // eslint-disable-next-line no-control-regex -- leaving control characters out is the point
    if (/^[\u0000-\u001f\u007f-\u009f\ud800-\udfff]$/.test(char)) continue;
    if (out.length + char.length > maxChars) break;
    out += char;
  }
  return out;
}

/**
 * What /activate is told about this machine (shown to the buyer and the seller): its host name, its platform as
 * releases name them, and the app's version; empty values are left out.
 */
function machineDetails(appVersion) {
  const details = {
    machine_name: cleanText(os.hostname(), MACHINE_NAME_MAX_CHARS),
    platform: currentPlatform(),
    app_version: cleanText(appVersion ?? '', APP_VERSION_MAX_CHARS),
  };
  return Object.fromEntries(Object.entries(details).filter(([, value]) => value !== ''));
}

/** The running Electron app's version (app.getVersion()); undefined outside Electron's main process. */
function electronAppVersion() {
  if (!process.versions.electron) return undefined;
  try {
    return require('electron').app?.getVersion();
  } catch {
    return undefined;
  }
}

const activate = (key, fingerprint, appVersion) =>
  post('/activate', { license_key: key, machine_fingerprint: fingerprint, plugin_id: APP_ID, ...machineDetails(appVersion) });
const validate = (key, fingerprint) => post('/validate', { license_key: key, machine_fingerprint: fingerprint, plugin_id: APP_ID });
const deactivate = (key, fingerprint) => post('/deactivate', { license_key: key, machine_fingerprint: fingerprint });

// ------------------------------------------------------------------ updates

const UPDATES_ENDPOINT = '/api/updates/';
// A download that receives nothing for this long is abandoned (the whole download may take longer).
const DOWNLOAD_IDLE_TIMEOUT_MS = 60000;
const SHA256_HEX = /^[0-9a-f]{64}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * An update check or download that did not succeed. `code` is the server's problem code (license_refunded,
 * license_revoked, license_expired, machine_not_activated, release_not_entitled, ...) or one of this module's:
 * needs_key, error, unreachable, bad_answer, download_failed, unknown_signing_key, size_mismatch, sha256_mismatch,
 * signature_invalid. `status` is the HTTP status when the server answered with a problem document.
 */
class UpdateError extends Error {
  constructor(code, detail, status = null) {
    super(detail + ' (' + code + ')');
    this.code = code;
    this.detail = detail;
    this.status = status;
  }
}

/** This machine's platform as releases name them (a universal macOS build is published as macos-universal). */
function currentPlatform() {
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  if (process.platform === 'win32') return 'windows-' + arch;
  if (process.platform === 'darwin') return 'macos-' + arch;
  return 'linux-' + arch;
}

/** An HTTP error answer as an UpdateError carrying its RFC 9457 problem document's code and detail. */
async function problemError(response) {
  let problem = null;
  try {
    problem = await response.json();
  } catch {
    problem = null;
  }
  const code = (problem && typeof problem.code === 'string' && problem.code) || 'http_' + response.status;
  const detail = (problem && typeof problem.detail === 'string' && problem.detail) || 'HTTP ' + response.status;
  return new UpdateError(code, detail, response.status);
}

function networkReason(error) {
  return error && error.name === 'TimeoutError' ? 'timed out' : (error && error.cause && error.cause.code) || String(error);
}

/**
 * GET /api/updates/<APP_ID> for this license and machine. Resolves to null when currentVersion is the newest release
 * the license is entitled to, else { version, channel, notes (Markdown), publishedAt, filename, artifact } where
 * artifact has platform, format, filename, size, sha256, signature, signature_key_id, url and url_expires_at.
 * Rejects with an UpdateError.
 */
async function fetchUpdate(licenseKey, fingerprint, { currentVersion, platform, channel = 'stable', format = '' }) {
  const query = new URLSearchParams({ version: String(currentVersion), platform: platform || currentPlatform(), channel });
  if (format) query.set('format', format);
  let response;
  try {
    response = await fetch(SERVER_URL + UPDATES_ENDPOINT + encodeURIComponent(APP_ID) + '?' + query, {
      headers: { Accept: 'application/json', 'X-License-Key': licenseKey, 'X-Machine-Fingerprint': fingerprint },
      signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
    });
  } catch (error) {
    throw new UpdateError('unreachable', 'cannot reach ' + SERVER_URL + ': ' + networkReason(error));
  }
  if (!response.ok) throw await problemError(response);
  let answer;
  try {
    answer = await response.json();
  } catch {
    throw new UpdateError('bad_answer', 'unreadable answer from the update server');
  }
  if (!answer || (answer.status !== 'up_to_date' && answer.status !== 'update_available')) {
    throw new UpdateError('bad_answer', 'unexpected answer from the update server');
  }
  if (answer.status === 'up_to_date') return null;
  const latest = answer.latest;
  const artifact = latest && typeof latest === 'object' ? latest.artifact : null;
  if (!latest || typeof latest.version !== 'string' || !artifact || typeof artifact !== 'object') {
    throw new UpdateError('bad_answer', 'the update server announced an update without its file');
  }
  // Only the name, never a directory part: safe to join to a folder of your choosing.
  const name = path.basename(String(artifact.filename || '').replace(/\\/g, '/'));
  return {
    version: latest.version,
    channel: String(latest.channel || channel),
    notes: String(latest.notes || ''),
    publishedAt: String(latest.published_at || ''),
    filename: name && name !== '.' && name !== '..' ? name : 'update-' + latest.version,
    artifact,
  };
}

/**
 * Downloads an update (from checkForUpdate) to destPath and resolves to its SHA-256 (hex). The file is written next
 * to destPath under a temporary name and renamed into place only when its size, SHA-256 and Ed25519 signature
 * (base64, over the file's bytes, by the LICENSE_PUBLIC_KEYS key named signature_key_id) all match; on any mismatch
 * nothing is left at destPath and the UpdateError says which check failed. Verifying reads the file into memory once.
 */
async function downloadUpdate(update, destPath) {
  const a = (update && update.artifact) || {};
  const size = a.size;
  const expectedSha256 = String(a.sha256 || '').toLowerCase();
  const signatureText = String(a.signature || '');
  const url = String(a.url || '');
  if (!Number.isSafeInteger(size) || size < 0 || !SHA256_HEX.test(expectedSha256)) {
    throw new UpdateError('bad_answer', "the update's size or SHA-256 is missing");
  }
  if (!/^https?:\/\//.test(url)) throw new UpdateError('bad_answer', 'the update has no download URL');
  const signature = BASE64.test(signatureText) ? Buffer.from(signatureText, 'base64') : Buffer.alloc(0);
  if (signature.length !== 64) throw new UpdateError('bad_answer', "the update's signature is not a base64 Ed25519 signature");
  const publicKey = embeddedPublicKeys().get(a.signature_key_id);
  if (!publicKey) {
    throw new UpdateError('unknown_signing_key', 'the update is signed by ' + JSON.stringify(a.signature_key_id) + ', which is not in LICENSE_PUBLIC_KEYS');
  }

  await fs.mkdir(path.dirname(destPath), { recursive: true });
  const tmp = path.join(path.dirname(destPath), '.update-' + process.pid + '-' + crypto.randomBytes(6).toString('hex') + '.part');
  const controller = new AbortController();
  let idle = setTimeout(() => controller.abort(), DOWNLOAD_IDLE_TIMEOUT_MS);
  const out = createWriteStream(tmp, { flags: 'wx', mode: 0o644 });
  const closed = new Promise((resolve, reject) => {
    out.on('close', resolve);
    out.on('error', reject);
  });
  closed.catch(() => undefined); // awaited below; a write error must not count as unhandled meanwhile
  try {
    const hash = crypto.createHash('sha256');
    let received = 0;
    try {
      // No license headers: the short-lived URL is itself the permission (and may point at a storage bucket).
      const response = await fetch(url, { signal: controller.signal });
      if (!response.ok) throw await problemError(response);
      for await (const chunk of response.body) {
        clearTimeout(idle);
        idle = setTimeout(() => controller.abort(), DOWNLOAD_IDLE_TIMEOUT_MS);
        received += chunk.length;
        if (received > size) throw new UpdateError('size_mismatch', 'the download is larger than the announced ' + size + ' bytes');
        hash.update(chunk);
        if (!out.write(chunk)) await Promise.race([new Promise((resolve) => out.once('drain', resolve)), closed]);
      }
    } catch (error) {
      if (error instanceof UpdateError) throw error;
      throw new UpdateError('download_failed', 'the download failed: ' + networkReason(error));
    } finally {
      clearTimeout(idle);
      out.end();
      await closed;
    }
    if (received !== size) throw new UpdateError('size_mismatch', 'downloaded ' + received + ' bytes, expected ' + size);
    const actualSha256 = hash.digest('hex');
    if (!crypto.timingSafeEqual(Buffer.from(actualSha256), Buffer.from(expectedSha256))) {
      throw new UpdateError('sha256_mismatch', "the download's SHA-256 is " + actualSha256 + ', expected ' + expectedSha256);
    }
    if (!crypto.verify(null, await fs.readFile(tmp), publicKey, signature)) {
      throw new UpdateError('signature_invalid', "the download's Ed25519 signature does not verify");
    }
    await fs.rename(tmp, destPath);
    return actualSha256;
  } catch (error) {
    await fs.rm(tmp, { force: true });
    throw error;
  }
}

// ------------------------------------------------------------------ license client

function normalizeKey(typed) {
  return String(typed || '').trim().toUpperCase();
}

/** The outcome of a /validate or /activate answer that does not allow running. */
function refusal(answer) {
  switch (answer.code) {
    case 'NOT_FOUND':
      return outcome(Status.NEEDS_KEY, 'This license key was not found. Check it and enter it again.');
    case 'PRODUCT_MISMATCH':
      return outcome(Status.NEEDS_KEY, 'This license key belongs to a different product. Enter the key for this app.');
    case 'REVOKED':
      return outcome(Status.REVOKED, 'This license has been revoked by the seller. Contact the seller if you think this is a mistake.');
    case 'EXPIRED':
      return outcome(Status.EXPIRED, 'This license has expired. Renew it to keep using the app.');
    case 'TRIAL_EXPIRED':
      return outcome(Status.TRIAL_EXPIRED, 'Your trial has ended. Buy a license to keep using the app.');
    case 'TOO_MANY_MACHINES':
      return outcome(
        Status.TOO_MANY_MACHINES,
        'This license is already active on ' + answer.active_machines + ' of ' + answer.max_machines +
          ' machines. Release one (Deactivate in the app on that machine, or from your purchase page) and try again.',
      );
    case 'NO_MACHINE':
    case 'FINGERPRINT_SCOPE_MISMATCH':
      return outcome(Status.ERROR, 'This license is not activated on this machine and activation did not succeed.');
    default:
      return outcome(Status.ERROR, 'Unexpected answer from the license server (' + answer.code + '): ' + (answer.detail || ''));
  }
}

/**
 * A license client that keeps its state in stateDir (pass app.getPath('userData')). appVersion (default: Electron's
 * app.getVersion()) is sent with the host name and platform when this machine is activated.
 * checkLicense() at every start; activateLicense(key) when it answers NEEDS_KEY; deactivateThisMachine() to release.
 */
// ------------------------------------------------------------------ buying and activating from the app

const DEVICE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';
const SLOW_DOWN_STEP_SECONDS = 5;
const DEVICE_FLOW_ENDINGS = Object.freeze({
  access_denied: 'The request was denied in the browser; no license was activated.',
  expired_token: 'The code expired before the purchase or activation was finished. Start again for a new code.',
  invalid_grant: 'The license server no longer knows this request. Start again for a new code.',
});

/** buyAndActivate's default openUrl: print the address. In Electron pass (url) => shell.openExternal(url). */
function showVerificationUrl(url) {
  console.log('Open ' + url + ' in a browser to buy a license or use one you have.');
}

function createLicenseClient({ stateDir, appVersion = electronAppVersion() }) {
  const statePath = path.join(stateDir, 'license.json');
  const licenseFilePath = path.join(stateDir, 'license.lic');

  async function loadState() {
    try {
      const state = JSON.parse(await fs.readFile(statePath, 'utf8'));
      return state && typeof state === 'object' ? state : {};
    } catch {
      return {};
    }
  }

  async function saveState(state) {
    await fs.mkdir(stateDir, { recursive: true });
    const tmp = statePath + '.' + process.pid + '.tmp';
    await fs.writeFile(tmp, JSON.stringify(state, null, 2), { mode: 0o600 });
    await fs.rename(tmp, statePath);
  }

  async function clearState() {
    await fs.rm(statePath, { force: true });
    await fs.rm(licenseFilePath, { force: true });
  }

  async function loadLicenseFile() {
    let text;
    try {
      text = await fs.readFile(licenseFilePath, 'latin1');
    } catch {
      throw new LicenseFileInvalid('no license file');
    }
    if (text.length > LICENSE_FILE_MAX_BYTES) throw new LicenseFileInvalid('malformed license file (too large)');
    return text;
  }

  /** After a good validation: fetches this machine's license file and stores it when it verifies. */
  async function refreshLicenseFile(key, fingerprint) {
    if (embeddedPublicKeys().size === 0) return false; // nothing could verify it
    const text = await fetchLicenseFile(key, fingerprint);
    if (text === null) return false;
    try {
      verifyLicenseFile(text, fingerprint, key, null); // just issued: the window is the server's
    } catch {
      return false; // keep the previous file
    }
    const tmp = licenseFilePath + '.' + process.pid + '.tmp';
    await fs.writeFile(tmp, text, { mode: 0o600 });
    await fs.rename(tmp, licenseFilePath);
    return true;
  }

  async function offline(state, key, fingerprint, reason) {
    const now = Date.now();
    if (embeddedPublicKeys().size > 0) {
      try {
        const payload = verifyLicenseFile(await loadLicenseFile(), fingerprint, key, now);
        const daysLeft = Math.max(1, Math.ceil((Date.parse(payload.expires_at) - now) / 86400000));
        return outcome(
          Status.OFFLINE_GRACE,
          'Could not reach the license server (' + reason + "). Running offline on this machine's signed license file for up to " + daysLeft + ' more day(s).',
          payload.license.trial === true ? { trial: true, trialDaysRemaining: daysLeft } : {},
        );
      } catch (error) {
        if (!(error instanceof LicenseFileInvalid)) throw error;
        return outcome(
          Status.UNREACHABLE,
          'Could not reach the license server (' + reason + '). No valid offline license file: ' + error.message + '. Connect to the internet to verify your license.',
        );
      }
    }
    if (state.licenseKey === key && state.fingerprint === fingerprint && typeof state.validatedAt === 'number') {
      const age = now - state.validatedAt;
      const expires = state.result && state.result.expires_at ? Date.parse(state.result.expires_at) : NaN;
      // A clock set back (age < 0) or a license that has run out since does not get the grace period.
      if (age >= 0 && age < OFFLINE_GRACE_MS && !(expires <= now)) {
        const daysLeft = Math.ceil((OFFLINE_GRACE_MS - age) / 86400000);
        return outcome(Status.OFFLINE_GRACE, 'Could not reach the license server (' + reason + '). Running offline for up to ' + daysLeft + ' more day(s).');
      }
    }
    return outcome(Status.UNREACHABLE, 'Could not reach the license server (' + reason + '). Connect to the internet to verify your license.');
  }

  async function check(key, fingerprint, state, newlyEntered) {
    let answer;
    try {
      let activated = false;
      if (newlyEntered) {
        const activation = await activate(key, fingerprint, appVersion);
        if (activation.activated !== true) return refusal(activation);
        activated = true;
      }
      answer = await validate(key, fingerprint);
      if (!activated && (answer.code === 'NO_MACHINE' || answer.code === 'FINGERPRINT_SCOPE_MISMATCH')) {
        // The key is fine but this machine is not (or no longer) activated: take a seat, then validate again.
        const activation = await activate(key, fingerprint, appVersion);
        if (activation.activated !== true) return refusal(activation);
        answer = await validate(key, fingerprint);
      }
    } catch (error) {
      if (error instanceof ServerUnavailable) {
        if (newlyEntered) {
          return outcome(Status.UNREACHABLE, 'Could not reach the license server to activate (' + error.message + '). Check your connection and try again.');
        }
        return offline(state, key, fingerprint, error.message);
      }
      if (error instanceof RequestRejected) {
        return outcome(Status.ERROR, 'The license server refused the request (' + error.code + '): ' + error.detail);
      }
      throw error;
    }

    if (answer.valid === true && answer.code === 'VALID') {
      await saveState({ licenseKey: key, fingerprint, validatedAt: Date.now(), result: answer });
      await refreshLicenseFile(key, fingerprint);
      if (answer.trial) {
        const days = Number(answer.trial_days_remaining) || 0;
        return outcome(Status.VALID, 'Trial license: ' + days + ' day(s) left.', { trial: true, trialDaysRemaining: days });
      }
      return outcome(Status.VALID, 'License valid.');
    }
    const result = refusal(answer);
    if (result.status === Status.NEEDS_KEY || result.status === Status.REVOKED || result.status === Status.TRIAL_EXPIRED) {
      await clearState(); // the next launch asks for a (new) key
    } else if (state.licenseKey === key) {
      await saveState({ licenseKey: key, fingerprint }); // keep the key, drop the offline grace
      await fs.rm(licenseFilePath, { force: true });
    }
    return result;
  }

  /**
   * No key to copy: asks the server for a short code, shows it and passes verification_uri_complete to openUrl (by
   * default it is printed; pass Electron's shell.openExternal), where the buyer pays or picks a license they hold.
   * Meanwhile polls every `interval` seconds (5 more after each slow_down) until the license arrives, already activated
   * on this machine; it is then stored exactly as after activating a typed key. Rejects with a DeviceFlowError when the
   * buyer denies it (access_denied), the code expires (expired_token) or the request is unknown (invalid_grant).
   */
  async function buyAndActivate({ openUrl = showVerificationUrl, sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)) } = {}) {
    let fingerprint;
    try {
      fingerprint = await machineFingerprint();
    } catch (error) {
      throw new DeviceFlowError('error', 'Could not identify this machine: ' + error.message);
    }
    let started;
    try {
      started = await post('/api/v1/device/authorize', { plugin_id: APP_ID, machine_fingerprint: fingerprint, ...machineDetails(appVersion) }, 'device_code');
    } catch (error) {
      if (error instanceof ServerUnavailable) throw new DeviceFlowError('unreachable', 'Could not reach the license server (' + error.message + ').');
      if (error instanceof RequestRejected) throw new DeviceFlowError(error.code, 'The license server refused the request (' + error.code + '): ' + error.detail);
      throw error;
    }
    console.log('Your code: ' + started.user_code);
    await openUrl(started.verification_uri_complete || started.verification_uri);
    let interval = Math.max(1, Number(started.interval) || 5);
    const deadline = Date.now() + Math.max(1, Number(started.expires_in) || 900) * 1000;
    const poll = { device_code: started.device_code, grant_type: DEVICE_GRANT_TYPE };
    let answer;
    for (;;) {
      await sleep(interval * 1000);
      try {
        answer = await post('/api/v1/device/token', poll);
        break;
      } catch (error) {
        if (error instanceof RequestRejected) {
          if (error.code === 'authorization_pending') continue;
          if (error.code === 'slow_down') {
            interval += SLOW_DOWN_STEP_SECONDS;
            continue;
          }
          throw new DeviceFlowError(error.code, DEVICE_FLOW_ENDINGS[error.code] || error.detail);
        }
        // A network blip while waiting is not the end: keep polling until the code would have expired.
        if (error instanceof ServerUnavailable) {
          if (Date.now() > deadline) throw new DeviceFlowError('unreachable', 'Could not reach the license server (' + error.message + ').');
          continue;
        }
        throw error;
      }
    }
    const key = normalizeKey(String(answer.license_key || ''));
    if (answer.activated !== true || !KEY_PATTERN.test(key)) return refusal(answer);
    return check(key, fingerprint, await loadState(), false);
  }

  async function fingerprintOrError() {
    try {
      return { fingerprint: await machineFingerprint() };
    } catch (error) {
      return { error: outcome(Status.ERROR, 'Could not identify this machine: ' + error.message) };
    }
  }

  return {
    buyAndActivate,

    /** Validates the stored key (re-activating this machine when needed); NEEDS_KEY when there is none. */
    async checkLicense() {
      const { fingerprint, error } = await fingerprintOrError();
      if (error) return error;
      const state = await loadState();
      if (typeof state.licenseKey !== 'string' || state.fingerprint !== fingerprint) {
        return outcome(Status.NEEDS_KEY, 'A license key is required to use this app.');
      }
      return check(state.licenseKey, fingerprint, state, false);
    },

    /** Activates a key the user entered on this machine, validates it and stores it. */
    async activateLicense(enteredKey) {
      const key = normalizeKey(enteredKey);
      if (!KEY_PATTERN.test(key)) {
        return outcome(Status.NEEDS_KEY, 'That does not look like a license key: it has the form XXXX-XXXX-XXXX-XXXX.');
      }
      const { fingerprint, error } = await fingerprintOrError();
      if (error) return error;
      return check(key, fingerprint, await loadState(), true);
    },

    /**
     * The newest release this license may install when it is newer than currentVersion, else null:
     * { version, channel, notes, publishedAt, filename, artifact }; pass it to downloadUpdate(update, destPath).
     * platform defaults to currentPlatform(), channel to 'stable' ('beta' includes betas), format ('vst3', 'au',
     * 'aax', 'clap') picks an audio plugin's file. Uses the stored key: checkLicense() or activateLicense() first.
     * Rejects with an UpdateError whose code is the server's problem code when it refused (license_refunded, ...).
     */
    async checkForUpdate({ currentVersion, platform, channel = 'stable', format = '' } = {}) {
      const state = await loadState();
      if (typeof state.licenseKey !== 'string') throw new UpdateError('needs_key', 'No license key is stored on this machine: activate it first.');
      let fingerprint;
      try {
        fingerprint = await machineFingerprint();
      } catch (error) {
        throw new UpdateError('error', 'Could not identify this machine: ' + error.message);
      }
      return fetchUpdate(state.licenseKey, fingerprint, { currentVersion, platform, channel, format });
    },

    downloadUpdate,

    /** Releases this machine's seat so the key can be used elsewhere, and forgets the key here. */
    async deactivateThisMachine() {
      const state = await loadState();
      if (typeof state.licenseKey !== 'string') return outcome(Status.NEEDS_KEY, 'No license is activated on this machine.');
      const { fingerprint, error } = await fingerprintOrError();
      if (error) return error;
      try {
        const answer = await deactivate(state.licenseKey, fingerprint);
        if (['DEACTIVATED', 'NOT_ACTIVATED', 'NOT_FOUND'].includes(answer.code)) {
          await clearState();
          return outcome(Status.NEEDS_KEY, 'This machine has been released; its seat is free again.');
        }
        return refusal(answer);
      } catch (e) {
        if (e instanceof ServerUnavailable) return outcome(Status.UNREACHABLE, 'Could not reach the license server (' + e.message + '). Try again when online.');
        if (e instanceof RequestRejected) return outcome(Status.ERROR, 'The license server refused the request (' + e.code + '): ' + e.detail);
        throw e;
      }
    },
  };
}

module.exports = {
  createLicenseClient,
  machineFingerprint,
  verifyLicenseFile,
  LicenseFileInvalid,
  Status,
  OFFLINE_GRACE_DAYS,
  LICENSE_PUBLIC_KEYS,
  downloadUpdate,
  currentPlatform,
  UpdateError,
  DeviceFlowError,
};
