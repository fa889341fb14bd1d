import { fill } from "../markdown.ts";
import { commonNotes, publicKeySetupStep, templateValues, type IntegrationContext, type IntegrationDoc } from "./common.ts";
import { rustLicenseModule } from "./rust.ts";

const CARGO = String.raw`# src-tauri/Cargo.toml: add to your existing [dependencies]
[dependencies]
tauri = { version = "2", features = [] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
ureq = "2"
sha2 = "0.10"
ring = ">=0.16.20, <0.18"
`;

const LIB_RS = String.raw`// src-tauri/src/lib.rs: the license check runs in Rust; the web view only shows its outcome.
mod license;

use std::sync::Mutex;
use tauri::State;

/// The latest outcome, so your other commands can refuse to work without a license.
#[derive(Default)]
struct LicenseGate(Mutex<Option<license::Outcome>>);

impl LicenseGate {
    fn remember(&self, outcome: &license::Outcome) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(outcome.clone());
        }
    }

    /// Call at the top of every command that needs a license.
    fn ensure_allowed(&self) -> Result<(), String> {
        match self.0.lock().ok().and_then(|slot| slot.clone()) {
            Some(outcome) if outcome.allowed => Ok(()),
            Some(outcome) => Err(outcome.message),
            None => Err("The license has not been checked yet.".into()),
        }
    }
}

/// Runs a blocking license call on Tauri's thread pool, off the main thread.
async fn blocking<F>(gate: &LicenseGate, call: F) -> license::Outcome
where
    F: FnOnce() -> license::Outcome + Send + 'static,
{
    let outcome = tauri::async_runtime::spawn_blocking(call)
        .await
        .unwrap_or_else(|e| license::Outcome::new(license::Status::Error, format!("License check failed: {e}")));
    gate.remember(&outcome);
    outcome
}

#[tauri::command]
async fn license_status(gate: State<'_, LicenseGate>) -> Result<license::Outcome, String> {
    Ok(blocking(&gate, license::check_license).await)
}

#[tauri::command]
async fn activate_license(key: String, gate: State<'_, LicenseGate>) -> Result<license::Outcome, String> {
    Ok(blocking(&gate, move || license::activate_license(&key)).await)
}

#[tauri::command]
async fn deactivate_license(gate: State<'_, LicenseGate>) -> Result<license::Outcome, String> {
    Ok(blocking(&gate, license::deactivate_this_machine).await)
}

/// An example of a licensed feature: it refuses to run without a valid (or offline-grace) license.
#[tauri::command]
fn export_project(gate: State<'_, LicenseGate>) -> Result<String, String> {
    gate.ensure_allowed()?;
    Ok("exported".into())
}

#[cfg_attr(mobile, tauri::mobile_entry_point)]
pub fn run() {
    tauri::Builder::default()
        .manage(LicenseGate::default())
        .invoke_handler(tauri::generate_handler![license_status, activate_license, deactivate_license, export_project])
        .run(tauri::generate_context!())
        .expect("error while running the Tauri application");
}
`;

const LICENSE_JS = String.raw`// src/license.js: the web view's side. The decision is made in Rust (src-tauri/src/license.rs);
// this only shows the outcome and collects the key. Needs @tauri-apps/api 2.
import { invoke } from '@tauri-apps/api/core';

/** { status, allowed, message, trial, trial_days_remaining } */
export const checkLicense = () => invoke('license_status');
export const activateLicense = (key) => invoke('activate_license', { key });
export const deactivateLicense = () => invoke('deactivate_license');

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
      const form = element('form', { className: 'license-form' }, [
        element('p', { textContent: outcome.message }),
        input,
        button,
      ]);
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        button.disabled = true;
        resolve(await activateLicense(input.value));
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
`;

const MAIN_JS = String.raw`// src/main.js: start the app only when licensed.
import { gateApp } from './license.js';

window.addEventListener('DOMContentLoaded', () => {
  gateApp(document.getElementById('app'), async (outcome) => {
    document.getElementById('app').append(document.createTextNode('Licensed: ' + outcome.message));
    // ... start your UI here ...
  });
});
`;

export function tauriIntegration(ctx: IntegrationContext): IntegrationDoc {
  const v = templateValues(ctx);
  return {
    title: "Tauri",
    intro: `License checks for a Tauri 2 app (\`${ctx.appId}\`): the check runs in Rust with \`ureq\` 2, \`sha2\` and \`ring\` (Ed25519 for signed offline license files), the web view shows the outcome, against ${ctx.serverUrl}.`,
    setup: [
      "In `src-tauri`: `cargo add ureq@2 sha2@0.10 serde_json ring && cargo add serde --features derive` (Tauri 2 is already there). In the front end: `npm install @tauri-apps/api@2`.",
      publicKeySetupStep(ctx, "near the top of `src-tauri/src/license.rs`"),
      "Save `src-tauri/src/license.rs`, and merge the commands and `.manage(LicenseGate::default())` into your `src-tauri/src/lib.rs`. The state file lives in the OS configuration directory under the app id.",
      "Save `src/license.js` and call `gateApp(root, startApp)` from your front end's entry point. Guard licensed features in Rust with `gate.ensure_allowed()?`: code in the web view is easy to change, the Rust binary less so.",
    ],
    files: [
      { path: "src-tauri/Cargo.toml", lang: "toml", code: CARGO },
      { path: "src-tauri/src/license.rs", lang: "rust", code: rustLicenseModule(ctx) },
      { path: "src-tauri/src/lib.rs", lang: "rust", code: fill(LIB_RS, v) },
      { path: "src/license.js", lang: "javascript", code: fill(LICENSE_JS, v) },
      { path: "src/main.js", lang: "javascript", code: fill(MAIN_JS, v) },
    ],
    notes: commonNotes(ctx),
  };
}
