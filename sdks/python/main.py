"""Your app's entry point: check the license before anything else, then look for an update."""
import sys
from pathlib import Path

from license_check import UpdateFailed, check_for_update, check_license, download_update

APP_VERSION = "1.0.0"  # the version of this build


def offer_update() -> None:
    """Tells the user about a newer release this license may install, and downloads it (verified) on request."""
    try:
        update = check_for_update(APP_VERSION)
        if update is None:
            return
        answer = input(f"Version {update.version} is available. Download it? [y/N] ") if sys.stdin.isatty() else ""
        if answer.strip().lower() == "y":
            sha256 = download_update(update, Path.home() / "Downloads" / update.filename)
            print(f"Downloaded and verified {update.filename} (sha256 {sha256}).")
    except UpdateFailed as error:
        # license_refunded, license_revoked, release_not_entitled, unreachable, signature_invalid, ...
        print(f"No update ({error.code}): {error.detail}", file=sys.stderr)


def main() -> int:
    outcome = check_license(app_version=APP_VERSION)
    if not outcome.allowed:
        print(outcome.message, file=sys.stderr)
        return 1
    if outcome.status != "valid" or outcome.trial_days_remaining:
        print(outcome.message)  # offline grace or trial: tell the user
    if outcome.status == "valid":
        offer_update()  # online: ask for an update once per launch
    # ... start the app ...
    return 0


if __name__ == "__main__":
    sys.exit(main())
