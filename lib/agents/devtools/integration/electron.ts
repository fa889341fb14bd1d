import { fill } from "../markdown.ts";
import { commonNotes, templateValues, type IntegrationContext, type IntegrationDoc } from "./common.ts";

const LICENSE_JS = String.raw`// License checks for @@APP_ID@@ against @@SERVER_URL@@, for Electron's main process.
// Node built-ins only (crypto, fetch, os, child_process, fs). The state lives in the directory you pass in:
// app.getPath('userData').
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { promisify } = require('node:util');

const execFileAsync = promisify(execFile);

const SERVER_URL = '@@SERVER_URL@@';
const APP_ID = '@@APP_ID@@';
const OFFLINE_GRACE_DAYS = @@GRACE_DAYS@@;
const OFFLINE_GRACE_MS = OFFLINE_GRACE_DAYS * 24 * 60 * 60 * 1000;
const HTTP_TIMEOUT_MS = 10000;
// A 429 whose Retry-After is at most this long is waited out once; a longer one counts as "unavailable".
const MAX_RETRY_AFTER_WAIT_MS = 10000;
const KEY_PATTERN = /^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/;

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

// ------------------------------------------------------------------ HTTP

function retryAfterMs(header) {
  if (!header) return 60000;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? 60000 : Math.max(0, date - Date.now());
}

async function post(endpoint, body) {
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
      if (!answer || typeof answer.code !== 'string') throw new ServerUnavailable('unexpected answer from the license server');
      return answer;
    }
    const code = (answer && answer.code) || 'http_' + response.status;
    const detail = (answer && answer.detail) || 'HTTP ' + response.status;
    if (response.status >= 500) throw new ServerUnavailable('server error ' + response.status + ': ' + detail);
    throw new RequestRejected(response.status, code, detail);
  }
  throw new ServerUnavailable('too many requests');
}

const activate = (key, fingerprint) => post('/activate', { license_key: key, machine_fingerprint: fingerprint, plugin_id: APP_ID });
const validate = (key, fingerprint) => post('/validate', { license_key: key, machine_fingerprint: fingerprint, plugin_id: APP_ID });
const deactivate = (key, fingerprint) => post('/deactivate', { license_key: key, machine_fingerprint: fingerprint });

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
 * A license client that keeps its state in stateDir (pass app.getPath('userData')).
 * checkLicense() at every start; activateLicense(key) when it answers NEEDS_KEY; deactivateThisMachine() to release.
 */
function createLicenseClient({ stateDir }) {
  const statePath = path.join(stateDir, 'license.json');

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
  }

  function offline(state, key, fingerprint, reason) {
    const now = Date.now();
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
        const activation = await activate(key, fingerprint);
        if (activation.activated !== true) return refusal(activation);
        activated = true;
      }
      answer = await validate(key, fingerprint);
      if (!activated && (answer.code === 'NO_MACHINE' || answer.code === 'FINGERPRINT_SCOPE_MISMATCH')) {
        // The key is fine but this machine is not (or no longer) activated: take a seat, then validate again.
        const activation = await activate(key, fingerprint);
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
    }
    return result;
  }

  async function fingerprintOrError() {
    try {
      return { fingerprint: await machineFingerprint() };
    } catch (error) {
      return { error: outcome(Status.ERROR, 'Could not identify this machine: ' + error.message) };
    }
  }

  return {
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

module.exports = { createLicenseClient, machineFingerprint, Status, OFFLINE_GRACE_DAYS };
`;

const MAIN_JS = String.raw`// Electron main process: check the license before opening the app's window.
'use strict';

const { app, BrowserWindow, Menu, dialog } = require('electron');
const path = require('node:path');
const { createLicenseClient, Status } = require('./license');

let license;

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

/**
 * Asks for the license key in a small window. The page has no Node access and no preload: on submit it puts the key
 * in its title, which the main process reads from 'page-title-updated'. Resolves to the key, or null when closed.
 */
function askForKey(message) {
  return new Promise((resolve) => {
    const win = new BrowserWindow({
      width: 460,
      height: 240,
      resizable: false,
      minimizable: false,
      title: 'Enter your license key',
      webPreferences: { contextIsolation: true, nodeIntegration: false, sandbox: true },
    });
    const SUBMITTED = 'license-key:';
    let settled = false;
    const finish = (value) => {
      if (settled) return;
      settled = true;
      resolve(value);
      if (!win.isDestroyed()) win.close();
    };
    win.on('page-title-updated', (event, title) => {
      event.preventDefault(); // keep the window's own title
      if (title.startsWith(SUBMITTED)) finish(title.slice(SUBMITTED.length));
    });
    win.webContents.on('will-navigate', (event) => event.preventDefault());
    win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
    win.on('closed', () => finish(null));
    const html = [
      '<!doctype html><meta charset="utf-8"><title>Enter your license key</title>',
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">",
      '<body style="font:14px system-ui;margin:20px">',
      '<p>' + escapeHtml(message) + '</p>',
      '<form id="f"><input id="k" autofocus required placeholder="XXXX-XXXX-XXXX-XXXX" style="width:100%;font:16px monospace;padding:6px">',
      '<p><button>Activate</button></p></form>',
      '<script>document.getElementById("f").onsubmit=function(e){e.preventDefault();',
      'document.title="' + SUBMITTED + '"+document.getElementById("k").value.trim();};</script>',
    ].join('');
    win.loadURL('data:text/html;charset=utf-8,' + encodeURIComponent(html));
  });
}

async function ensureLicensed() {
  let outcome = await license.checkLicense();
  for (let attempt = 0; outcome.status === Status.NEEDS_KEY && attempt < 3; attempt++) {
    const key = await askForKey(outcome.message);
    if (key === null) break;
    outcome = await license.activateLicense(key);
  }
  return outcome;
}

function createMainWindow(outcome) {
  const win = new BrowserWindow({ width: 1024, height: 768, webPreferences: { contextIsolation: true, sandbox: true } });
  win.loadFile(path.join(__dirname, 'index.html'));
  if (outcome.status === Status.OFFLINE_GRACE || outcome.trial) {
    dialog.showMessageBox(win, { type: 'info', message: outcome.message });
  }
}

function installMenu() {
  const template = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' }] : []),
    {
      label: 'License',
      submenu: [
        {
          label: 'Release this machine…',
          click: async () => {
            const { response } = await dialog.showMessageBox({
              type: 'question',
              buttons: ['Release', 'Cancel'],
              message: 'Release this machine? The app will quit and ask for the key next time.',
            });
            if (response !== 0) return;
            const result = await license.deactivateThisMachine();
            await dialog.showMessageBox({ message: result.message });
            if (result.status === Status.NEEDS_KEY) app.quit();
          },
        },
      ],
    },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

app.on('window-all-closed', () => {
  // Keep running while the key prompt closes and the main window opens; quit when the user closes the app.
});

app.whenReady().then(async () => {
  license = createLicenseClient({ stateDir: app.getPath('userData') });
  const outcome = await ensureLicensed();
  if (!outcome.allowed) {
    dialog.showErrorBox('License required', outcome.message);
    app.quit();
    return;
  }
  installMenu();
  createMainWindow(outcome);
  app.on('window-all-closed', () => app.quit());
});
`;

export function electronIntegration(ctx: IntegrationContext): IntegrationDoc {
  const v = templateValues(ctx);
  return {
    title: "Electron",
    intro: `License checks in Electron's main process for \`${ctx.appId}\` (Node's \`crypto\`, \`fetch\`, \`os\`, \`child_process\`), against ${ctx.serverUrl}.`,
    setup: [
      "Electron 28 or newer (Node 18+ with global `fetch` and `AbortSignal.timeout`); nothing else to install: `npm install --save-dev electron` if you have not yet.",
      "Save `license.js` next to your main script; it stores `license.json` under `app.getPath('userData')`. Never check the license in the renderer: the main process decides whether to open the app's window.",
      "Merge `main.js` into your own main script (it asks for the key in a small sandboxed window, opens `index.html` when licensed, and adds License → Release this machine).",
    ],
    files: [
      { path: "license.js", lang: "javascript", code: fill(LICENSE_JS, v) },
      { path: "main.js", lang: "javascript", code: fill(MAIN_JS, v) },
    ],
    notes: commonNotes(ctx),
  };
}
