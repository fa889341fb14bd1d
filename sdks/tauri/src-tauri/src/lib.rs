// src-tauri/src/lib.rs: the license check runs in Rust; the web view only shows its outcome.
mod license;

use std::sync::Mutex;
use tauri::{AppHandle, Emitter, State};
use tauri_plugin_opener::OpenerExt;

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

/// The app's version (tauri.conf.json's, else Cargo.toml's), sent when this machine is activated.
fn app_version(app: &AppHandle) -> String {
    app.package_info().version.to_string()
}

#[tauri::command]
async fn license_status(app: AppHandle, gate: State<'_, LicenseGate>) -> Result<license::Outcome, String> {
    let version = app_version(&app);
    Ok(blocking(&gate, move || license::check_license(&version)).await)
}

#[tauri::command]
async fn activate_license(key: String, app: AppHandle, gate: State<'_, LicenseGate>) -> Result<license::Outcome, String> {
    let version = app_version(&app);
    Ok(blocking(&gate, move || license::activate_license(&key, &version)).await)
}

/// Buys a license in the browser and activates it here: opens the purchase page in the system browser, tells the web
/// view its address and code (event "license-purchase", for the buyer to compare), then waits for the buyer.
#[tauri::command]
async fn buy_license(app: AppHandle, gate: State<'_, LicenseGate>) -> Result<license::Outcome, String> {
    let version = app_version(&app);
    Ok(blocking(&gate, move || {
        let show = |url: &str, user_code: &str| {
            let _ = app.emit("license-purchase", serde_json::json!({ "url": url, "user_code": user_code }));
            let _ = app.opener().open_url(url, None::<&str>);
        };
        license::buy_and_activate(&version, show, license::sleep_between_polls)
    })
    .await)
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
        .plugin(tauri_plugin_opener::init())
        .manage(LicenseGate::default())
        .invoke_handler(tauri::generate_handler![license_status, activate_license, buy_license, deactivate_license, export_project])
        .run(tauri::generate_context!())
        .expect("error while running the Tauri application");
}
