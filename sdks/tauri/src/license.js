// src/license.js: the web view's side. The decision is made in Rust (src-tauri/src/license.rs);
// this only shows the outcome and collects the key. Needs @tauri-apps/api 2.
import { invoke } from '@tauri-apps/api/core';
import { listen } from '@tauri-apps/api/event';

/** { status, allowed, message, trial, trial_days_remaining } */
export const checkLicense = () => invoke('license_status');
export const activateLicense = (key) => invoke('activate_license', { key });
export const deactivateLicense = () => invoke('deactivate_license');
/** Buys a license in the browser and activates it here; resolves when the buyer is done (or declined). */
export const buyLicense = () => invoke('buy_license');
/** Calls show({ url, user_code }) when a purchase starts; resolves to a function that stops listening. */
export const onPurchaseStarted = (show) => listen('license-purchase', (event) => show(event.payload));

function element(tag, props = {}, children = []) {
  const el = document.createElement(tag);
  Object.assign(el, props);
  for (const child of children) el.append(child);
  return el;
}

/**
 * Shows a key form inside root until the license allows running, then calls startApp(outcome).
 * Messages are set as text, never as HTML.
 */
export async function gateApp(root, startApp) {
  let outcome = await checkLicense();
  while (!outcome.allowed) {
    if (outcome.status !== 'needs_key') {
      root.replaceChildren(element('p', { className: 'license-error', textContent: outcome.message }));
      return outcome;
    }
    outcome = await new Promise((resolve) => {
      const input = element('input', { placeholder: 'XXXX-XXXX-XXXX-XXXX', required: true, autofocus: true, spellcheck: false });
      const button = element('button', { type: 'submit', textContent: 'Activate' });
      const buy = element('button', { type: 'button', textContent: 'Buy a license' });
      const message = element('p', { textContent: outcome.message });
      const form = element('form', { className: 'license-form' }, [message, input, button, buy]);
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        button.disabled = true;
        resolve(await activateLicense(input.value));
      });
      // The purchase page opens in the browser; the code shown here lets the buyer check it is this app's.
      buy.addEventListener('click', async () => {
        button.disabled = buy.disabled = true;
        const stop = await onPurchaseStarted(({ url, user_code }) => {
          message.textContent = 'Finish buying in your browser (' + url + '); it shows the code ' + user_code + '.';
        });
        try {
          resolve(await buyLicense());
        } finally {
          stop();
        }
      });
      root.replaceChildren(form);
      input.focus();
    });
  }
  root.replaceChildren();
  if (outcome.status === 'offline_grace' || outcome.trial) {
    root.append(element('p', { className: 'license-notice', textContent: outcome.message }));
  }
  await startApp(outcome);
  return outcome;
}

/** For a "Release this machine" button in your settings. */
export async function releaseThisMachine() {
  const outcome = await deactivateLicense();
  window.alert(outcome.message);
  return outcome;
}
