"""Your app's entry point: check the license before anything else."""
import sys

from license_check import check_license


def main() -> int:
    outcome = check_license()
    if not outcome.allowed:
        print(outcome.message, file=sys.stderr)
        return 1
    if outcome.status != "valid" or outcome.trial_days_remaining:
        print(outcome.message)  # offline grace or trial: tell the user
    # ... start the app ...
    return 0


if __name__ == "__main__":
    sys.exit(main())
