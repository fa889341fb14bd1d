//! Your app's entry point: check the license before anything else.
mod license;

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use license::Status;

/// This build's version (Cargo.toml's), sent when this machine is activated.
const APP_VERSION: &str = env!("CARGO_PKG_VERSION");

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("--deactivate") {
        let outcome = license::deactivate_this_machine();
        println!("{}", outcome.message);
        return if outcome.status == Status::NeedsKey { ExitCode::SUCCESS } else { ExitCode::FAILURE };
    }

    if std::env::args().nth(1).as_deref() == Some("--buy") {
        // Buy a license in the browser and activate it here (or: offer this when check_license needs a key).
        let outcome = license::buy_and_activate(APP_VERSION, license::print_purchase_url, license::sleep_between_polls);
        println!("{}", outcome.message);
        if let Some(key) = &outcome.license_key {
            println!("License key: {key}");
        }
        return if outcome.allowed { ExitCode::SUCCESS } else { ExitCode::FAILURE };
    }

    let mut outcome = license::check_license(APP_VERSION);
    let mut from_env = std::env::var("LICENSE_KEY").ok().filter(|key| !key.is_empty());
    let mut lines = io::stdin().lock().lines();
    for _ in 0..3 {
        if outcome.status != Status::NeedsKey {
            break;
        }
        let key = match from_env.take() {
            Some(key) => key,
            None => {
                print!("{}\nLicense key (XXXX-XXXX-XXXX-XXXX): ", outcome.message);
                let _ = io::stdout().flush();
                match lines.next() {
                    Some(Ok(line)) => line,
                    _ => break,
                }
            }
        };
        outcome = license::activate_license(&key, APP_VERSION);
    }
    println!("{}", outcome.message);
    if !outcome.allowed {
        return ExitCode::FAILURE;
    }

    // ... start the app ...
    ExitCode::SUCCESS
}
