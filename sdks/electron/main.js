// Electron main process: check the license before opening the app's window.
'use strict';

const { app, BrowserWindow, Menu, dialog, shell } = require('electron');
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
  return win;
}

/**
 * Asks the server once per launch whether this license may install a newer release; offers to download it to the
 * Downloads folder (verified: size, SHA-256 and the service's Ed25519 signature) and shows it there. Refusals
 * (license_refunded, license_revoked, release_not_entitled, ...) and network errors only go to the log.
 */
async function offerUpdate(win) {
  try {
    const update = await license.checkForUpdate({ currentVersion: app.getVersion() });
    if (!update) return;
    const { response } = await dialog.showMessageBox(win, {
      type: 'info',
      buttons: ['Download', 'Later'],
      message: 'Version ' + update.version + ' is available.',
      detail: update.notes.slice(0, 2000),
    });
    if (response !== 0) return;
    const file = path.join(app.getPath('downloads'), update.filename);
    await license.downloadUpdate(update, file);
    shell.showItemInFolder(file);
  } catch (error) {
    console.warn('Update check: ' + (error.code ? error.code + ': ' : '') + (error.detail || error.message));
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
  license = createLicenseClient({ stateDir: app.getPath('userData'), appVersion: app.getVersion() });
  const outcome = await ensureLicensed();
  if (!outcome.allowed) {
    dialog.showErrorBox('License required', outcome.message);
    app.quit();
    return;
  }
  installMenu();
  const win = createMainWindow(outcome);
  if (outcome.status === Status.VALID) offerUpdate(win);
  app.on('window-all-closed', () => app.quit());
});
