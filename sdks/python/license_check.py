"""License checks for com.example.app against http://localhost:3000 (standard library only).

Call check_license() once at startup and run only when outcome.allowed is true:

    outcome = check_license(app_version="1.0.0")  # this build's version, sent when this machine is activated
    print(outcome.message)
    if not outcome.allowed:
        sys.exit(1)

No key to copy: buy_and_activate() shows a short code and opens (by default prints) a page where the buyer pays or
picks a license they hold; the license arrives already activated on this machine (`python3 license_check.py --buy`).

Offline, the app runs on this machine's signed license file, verified with the Ed25519 public key(s) in
LICENSE_PUBLIC_KEYS (with the cryptography package when it is installed, else with the pure-Python verifier below).

Updates: check_for_update(APP_VERSION) asks the server for the newest release this license may install (None when
up to date); download_update(update, path) downloads it and writes it only once its size, SHA-256 and Ed25519
signature (by a key in LICENSE_PUBLIC_KEYS) verify:

    update = check_for_update("1.0.0")
    if update is not None:
        download_update(update, Path.home() / "Downloads" / update.filename)
"""
from __future__ import annotations

import argparse
import base64
import email.utils
import hashlib
import hmac
import importlib
import json
import math
import os
import platform
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Optional

SERVER_URL = "http://localhost:3000"
APP_ID = "com.example.app"
OFFLINE_GRACE_DAYS = 7
OFFLINE_GRACE_SECONDS = OFFLINE_GRACE_DAYS * 24 * 60 * 60
HTTP_TIMEOUT_SECONDS = 10
# A 429 whose Retry-After is at most this long is waited out once; a longer one counts as "server unavailable".
MAX_RETRY_AFTER_WAIT_SECONDS = 10
KEY_PATTERN = re.compile(r"^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$")

# ---- LICENSE_PUBLIC_KEYS: the service's Ed25519 public key(s), embedded at build time (never fetched at run time).
# key-id (the license file's "key-id" line) -> base64url of the raw 32-byte key. When the service rotates its key,
# add the new key-id and keep the old one until the files it signed have expired. With no usable key here, the app
# does not fetch license files and keeps the unsigned OFFLINE_GRACE_DAYS grace instead.
LICENSE_PUBLIC_KEYS: dict[str, str] = {
    "did:web:localhost%3A3000#ed25519-1": "", # placeholder: replace "" with the key printed by the command in the setup steps
}
LICENSE_FILE_FORMAT = "ilm-license-file/1"
LICENSE_FILE_MAX_BYTES = 16 * 1024
# How far this machine's clock may be behind the server's when a license file's issued_at is checked.
CLOCK_SKEW_SECONDS = 300
# What /activate accepts for the machine's name and the app's version, in characters (see _clean_text).
MACHINE_NAME_MAX_CHARS = 100
APP_VERSION_MAX_CHARS = 64
# What the server refuses in text: control characters, and lone surrogates (undecodable bytes in a host name).
_REFUSED_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


@dataclass
class Outcome:
    allowed: bool
    status: str  # valid, offline_grace, needs_key, expired, trial_expired, revoked, too_many_machines, unreachable, error
    message: str
    trial_days_remaining: int = 0


class ServerUnavailable(Exception):
    """No usable answer: network error, timeout, HTTP 5xx, or 429 with a long Retry-After."""


class RequestRejected(Exception):
    """HTTP 4xx with an RFC 9457 problem document."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail


# ---------------------------------------------------------------- machine fingerprint

def _run(command: list[str]) -> str:
    return subprocess.run(command, capture_output=True, text=True, check=True, timeout=10).stdout


def _read_first(paths: list[str]) -> str:
    for path in paths:
        try:
            value = Path(path).read_text(encoding="utf-8").strip()
        except OSError:
            continue
        if value:
            return value
    return ""


def cpu_brand() -> str:
    system = platform.system()
    if system == "Windows":
        import winreg

        with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, r"HARDWARE\DESCRIPTION\System\CentralProcessor\0") as key:
            return str(winreg.QueryValueEx(key, "ProcessorNameString")[0]).strip()
    if system == "Darwin":
        return _run(["sysctl", "-n", "machdep.cpu.brand_string"]).strip()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            fields = dict(
                (name.strip(), value.strip())
                for name, sep, value in (line.partition(":") for line in cpuinfo)
                if sep
            )
    except OSError:
        fields = {}
    return fields.get("model name") or fields.get("Hardware") or fields.get("Model") or platform.machine()


def os_identifier() -> str:
    system = platform.system()
    if system == "Windows":
        import winreg

        access = winreg.KEY_READ | winreg.KEY_WOW64_64KEY
        with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, r"SOFTWARE\Microsoft\Cryptography", 0, access) as key:
            return str(winreg.QueryValueEx(key, "MachineGuid")[0]).strip()
    if system == "Darwin":
        match = re.search(r'"IOPlatformUUID"\s*=\s*"([^"]+)"', _run(["ioreg", "-rd1", "-c", "IOPlatformExpertDevice"]))
        if not match:
            raise RuntimeError("IOPlatformUUID not found in ioreg output")
        return match.group(1).strip()
    value = _read_first(["/etc/machine-id", "/var/lib/dbus/machine-id"])
    if not value:
        raise RuntimeError("no /etc/machine-id on this system")
    return value


def machine_fingerprint() -> str:
    """Lowercase hex SHA-256 of '<CPU brand>|<OS identifier>'."""
    return hashlib.sha256(f"{cpu_brand().strip()}|{os_identifier().strip()}".encode("utf-8")).hexdigest()


# ---------------------------------------------------------------- local state

def state_path() -> Path:
    system = platform.system()
    if system == "Windows":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif system == "Darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / APP_ID / "license.json"


def load_state() -> dict[str, Any]:
    try:
        state = json.loads(state_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def save_state(state: dict[str, Any]) -> None:
    path = state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".license-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(state, out, indent=2)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def license_file_path() -> Path:
    """The signed license file, next to the state."""
    return state_path().with_name("license.lic")


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".license-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def clear_state() -> None:
    """Forgets the key, the cached validation and the license file."""
    for path in (state_path(), license_file_path()):
        try:
            path.unlink()
        except FileNotFoundError:
            pass


# ---------------------------------------------------------------- Ed25519 (RFC 8032)

_P = 2**255 - 19
_L = 2**252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _point_add(a: tuple, b: tuple) -> tuple:
    x = (a[1] - a[0]) * (b[1] - b[0]) % _P
    y = (a[1] + a[0]) * (b[1] + b[0]) % _P
    c = 2 * a[3] * b[3] * _D % _P
    d = 2 * a[2] * b[2] % _P
    e, f, g, h = y - x, d - c, d + c, y + x
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def _point_mul(s: int, point: tuple) -> tuple:
    result = (0, 1, 1, 0)
    while s > 0:
        if s & 1:
            result = _point_add(result, point)
        point = _point_add(point, point)
        s >>= 1
    return result


def _point_equal(a: tuple, b: tuple) -> bool:
    return (a[0] * b[2] - b[0] * a[2]) % _P == 0 and (a[1] * b[2] - b[1] * a[2]) % _P == 0


def _recover_x(y: int, sign: int) -> Optional[int]:
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P != 0:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P != 0:
        return None
    if (x & 1) != sign:
        x = _P - x
    return x


def _point_decompress(data: bytes) -> Optional[tuple]:
    if len(data) != 32:
        return None
    y = int.from_bytes(data, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % _P)


_G_Y = 4 * pow(5, _P - 2, _P) % _P
_G = (_recover_x(_G_Y, 0), _G_Y, 1, _recover_x(_G_Y, 0) * _G_Y % _P)  # type: ignore[operator]


def _ed25519_verify_pure(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """RFC 8032 section 5.1.7 verification (reference arithmetic; not constant-time, which verification need not be)."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a = _point_decompress(public_key)
    r = _point_decompress(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= _L:
        return False
    h = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(), "little") % _L
    return _point_equal(_point_mul(s, _G), _point_add(r, _point_mul(h, a)))


def ed25519_backend() -> str:
    """'cryptography' when that package is importable, else 'pure-python'."""
    try:
        importlib.import_module("cryptography.hazmat.primitives.asymmetric.ed25519")
    except Exception:  # not installed, or a broken install
        return "pure-python"
    return "cryptography"


def ed25519_verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    if ed25519_backend() == "pure-python":
        return _ed25519_verify_pure(public_key, message, signature)
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
        return True
    except (InvalidSignature, ValueError):
        return False


# ---------------------------------------------------------------- signed offline license files

class LicenseFileInvalid(Exception):
    """The stored license file does not allow running offline; the message says why."""


_BASE64URL = re.compile(r"^[A-Za-z0-9_-]*$")


def _b64url_decode(text: str) -> bytes:
    if not _BASE64URL.match(text) or len(text) % 4 == 1:
        raise LicenseFileInvalid("malformed license file (bad base64url)")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def embedded_public_keys() -> dict[str, bytes]:
    """The usable entries of LICENSE_PUBLIC_KEYS (placeholders and malformed keys are skipped)."""
    keys = {}
    for key_id, value in LICENSE_PUBLIC_KEYS.items():
        try:
            raw = _b64url_decode(value)
        except LicenseFileInvalid:
            continue
        if len(raw) == 32:
            keys[key_id] = raw
    return keys


def verify_license_file(
    text: str, fingerprint: str, license_key: Optional[str] = None, now: Optional[float] = None, check_time: bool = True
) -> dict[str, Any]:
    """The payload of a license file that lets this machine run now; raises LicenseFileInvalid otherwise.

    check_time=False skips the issued_at/expires_at window: for a file the server has just issued, which a clock
    running a few minutes slow would otherwise refuse although it becomes valid on this machine soon.
    """
    now = time.time() if now is None else now
    lines = [line.strip() for line in text.replace("\r\n", "\n").strip().split("\n")]
    if len(lines) != 6 or lines[0] != "-----BEGIN LICENSE FILE-----" or lines[5] != "-----END LICENSE FILE-----":
        raise LicenseFileInvalid("malformed license file (armour)")
    fields = {}
    for line, name in zip(lines[1:5], ("format", "key-id", "payload", "signature")):
        if not line.startswith(name + ": "):
            raise LicenseFileInvalid(f"malformed license file (expected the {name} line)")
        fields[name] = line[len(name) + 2 :].strip()
    if fields["format"] != LICENSE_FILE_FORMAT:
        raise LicenseFileInvalid(f"unsupported license file format {fields['format']!r}")
    public_key = embedded_public_keys().get(fields["key-id"])
    if public_key is None:
        raise LicenseFileInvalid(f"unknown signing key {fields['key-id']!r}")
    signature = _b64url_decode(fields["signature"])
    payload_bytes = _b64url_decode(fields["payload"])
    if len(signature) != 64:
        raise LicenseFileInvalid("malformed license file (signature length)")
    if not ed25519_verify(public_key, (LICENSE_FILE_FORMAT + "." + fields["payload"]).encode("ascii"), signature):
        raise LicenseFileInvalid("signature does not verify")
    try:
        payload = json.loads(payload_bytes.decode("utf-8"))
        lic, machine = payload["license"], payload["machine"]
        if not isinstance(lic, dict) or not isinstance(machine, dict):
            raise TypeError("license and machine must be objects")
    except (ValueError, KeyError, TypeError) as error:
        raise LicenseFileInvalid(f"malformed license file payload ({error})") from error
    if payload.get("format") != LICENSE_FILE_FORMAT or payload.get("key_id") != fields["key-id"]:
        raise LicenseFileInvalid("payload does not match the file's format or key-id")
    if machine.get("fingerprint") != fingerprint:
        raise LicenseFileInvalid("issued for another machine")
    if lic.get("plugin_id") != APP_ID:
        raise LicenseFileInvalid("issued for another product")
    if license_key is not None and lic.get("key") != license_key:
        raise LicenseFileInvalid("issued for another license key")
    issued, expires = _parse_time(payload.get("issued_at")), _parse_time(payload.get("expires_at"))
    license_expires = _parse_time(lic.get("expires_at"))
    if issued is None or expires is None:
        raise LicenseFileInvalid("malformed license file payload (issued_at, expires_at)")
    if not check_time:
        return payload
    if now + CLOCK_SKEW_SECONDS < issued:
        raise LicenseFileInvalid("the clock is set before the license file was issued")
    if now >= expires or (license_expires is not None and now >= license_expires):
        raise LicenseFileInvalid("the license file has expired")
    return payload


def load_license_file() -> str:
    try:
        with open(license_file_path(), "rb") as f:
            data = f.read(LICENSE_FILE_MAX_BYTES + 1)
    except OSError as error:
        raise LicenseFileInvalid("no license file") from error
    if len(data) > LICENSE_FILE_MAX_BYTES:
        raise LicenseFileInvalid("malformed license file (too large)")
    try:
        return data.decode("ascii")
    except UnicodeDecodeError as error:
        raise LicenseFileInvalid("malformed license file (not ASCII)") from error


def remove_license_file() -> None:
    try:
        license_file_path().unlink()
    except FileNotFoundError:
        pass


# ---------------------------------------------------------------- HTTP

def _retry_after_seconds(value: Optional[str]) -> float:
    if not value:
        return 60.0
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return 60.0
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def _problem_document(error: urllib.error.HTTPError) -> dict:
    """The RFC 9457 problem document of an HTTP error answer, or {} when the body is not one."""
    try:
        problem = json.loads(error.read(1 << 16).decode("utf-8"))
    except (OSError, ValueError):
        return {}
    return problem if isinstance(problem, dict) else {}


def _post(path: str, body: dict[str, str], required: str = "code") -> dict[str, Any]:
    """POSTs JSON; the answer must be an object with the string member `required` (licensing answers carry `code`)."""
    data = json.dumps(body).encode("utf-8")
    for attempt in range(2):
        request = urllib.request.Request(
            SERVER_URL + path,
            data=data,
            method="POST",
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_SECONDS) as response:
                answer = json.loads(response.read(1 << 20).decode("utf-8"))
            if not isinstance(answer, dict) or not isinstance(answer.get(required), str):
                raise ServerUnavailable("unexpected answer from the license server")
            return answer
        except urllib.error.HTTPError as error:
            problem = _problem_document(error)
            detail = str(problem.get("detail") or error.reason or "HTTP error")
            if error.code == 429:
                wait = _retry_after_seconds(error.headers.get("Retry-After"))
                if attempt == 0 and wait <= MAX_RETRY_AFTER_WAIT_SECONDS:
                    time.sleep(wait)
                    continue
                raise ServerUnavailable(f"too many requests; retry in {math.ceil(wait)} s") from error
            if error.code >= 500:
                raise ServerUnavailable(f"server error {error.code}: {detail}") from error
            raise RequestRejected(error.code, str(problem.get("code") or f"http_{error.code}"), detail) from error
        except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
            raise ServerUnavailable(f"cannot reach {SERVER_URL}: {getattr(error, 'reason', error)}") from error
        except (ValueError, UnicodeDecodeError) as error:
            raise ServerUnavailable("unreadable answer from the license server") from error
        except OSError as error:
            raise ServerUnavailable(f"cannot reach {SERVER_URL}: {error}") from error
    raise ServerUnavailable("too many requests")


def fetch_license_file(key: str, fingerprint: str) -> Optional[str]:
    """GET /api/license-file for this activated machine; None when there is no usable answer."""
    url = f"{SERVER_URL}/api/license-file?key={key}&fingerprint={fingerprint}&plugin_id={APP_ID}"  # all URL-safe
    request = urllib.request.Request(url, headers={"Accept": "text/plain"})
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_SECONDS) as response:
            data = response.read(LICENSE_FILE_MAX_BYTES + 1)
        return data.decode("ascii") if len(data) <= LICENSE_FILE_MAX_BYTES else None
    except (OSError, ValueError, UnicodeDecodeError):  # URLError and HTTPError are OSErrors
        return None


def refresh_license_file(key: str, fingerprint: str) -> bool:
    """After a good validation: fetches this machine's license file and stores it when it verifies."""
    if not embedded_public_keys():
        return False  # nothing could verify it
    text = fetch_license_file(key, fingerprint)
    if text is None:
        return False
    try:
        verify_license_file(text, fingerprint, key, check_time=False)  # just issued: the window is the server's
    except LicenseFileInvalid:
        return False  # keep the previous file
    _write_atomically(license_file_path(), text)
    return True


def _clean_text(text: str, max_chars: int) -> str:
    """text without control characters (or lone surrogates), cut to max_chars characters as the server counts them (UTF-16 units: a
    character beyond U+FFFF counts two) without cutting one in two."""
    out, used = [], 0
    for char in _REFUSED_CHARACTERS.sub("", text):
        width = 2 if ord(char) > 0xFFFF else 1
        if used + width > max_chars:
            break
        out.append(char)
        used += width
    return "".join(out)


def machine_details(app_version: Optional[str]) -> dict[str, str]:
    """What /activate is told about this machine (shown to the buyer and the seller): its host name, its platform as
    releases name them, and the app's version; empty values are left out."""
    details = {
        "machine_name": _clean_text(socket.gethostname(), MACHINE_NAME_MAX_CHARS),
        "platform": current_platform(),
        "app_version": _clean_text(app_version or "", APP_VERSION_MAX_CHARS),
    }
    return {name: value for name, value in details.items() if value}


def activate(key: str, fingerprint: str, app_version: Optional[str] = None) -> dict[str, Any]:
    body = {"license_key": key, "machine_fingerprint": fingerprint, "plugin_id": APP_ID}
    return _post("/activate", {**body, **machine_details(app_version)})


def validate(key: str, fingerprint: str) -> dict[str, Any]:
    return _post("/validate", {"license_key": key, "machine_fingerprint": fingerprint, "plugin_id": APP_ID})


def deactivate(key: str, fingerprint: str) -> dict[str, Any]:
    return _post("/deactivate", {"license_key": key, "machine_fingerprint": fingerprint})


# ---------------------------------------------------------------- decisions

def normalize_key(key: str) -> str:
    return key.strip().upper()


def _parse_time(value: Any) -> Optional[float]:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _refusal(answer: dict[str, Any]) -> Outcome:
    """The outcome of a /validate or /activate answer that does not allow running."""
    code = answer.get("code")
    if code == "NOT_FOUND":
        return Outcome(False, "needs_key", "This license key was not found. Check it and enter it again.")
    if code == "PRODUCT_MISMATCH":
        return Outcome(False, "needs_key", "This license key belongs to a different product. Enter the key for this app.")
    if code == "REVOKED":
        return Outcome(False, "revoked", "This license has been revoked by the seller. Contact the seller if you think this is a mistake.")
    if code == "EXPIRED":
        return Outcome(False, "expired", "This license has expired. Renew it to keep using the app.")
    if code == "TRIAL_EXPIRED":
        return Outcome(False, "trial_expired", "Your trial has ended. Buy a license to keep using the app.")
    if code == "TOO_MANY_MACHINES":
        used, limit = answer.get("active_machines"), answer.get("max_machines")
        return Outcome(
            False,
            "too_many_machines",
            f"This license is already active on {used} of {limit} machines. Release one (Deactivate in the app on that machine, or from your purchase page) and try again.",
        )
    if code in ("NO_MACHINE", "FINGERPRINT_SCOPE_MISMATCH"):
        return Outcome(False, "error", "This license is not activated on this machine and activation did not succeed.")
    return Outcome(False, "error", f"Unexpected answer from the license server ({code}): {answer.get('detail', '')}")


def _offline(state: dict[str, Any], key: str, fingerprint: str, reason: str) -> Outcome:
    """Server unreachable: run on a verified license file, or (no key embedded) the last good validation for up to OFFLINE_GRACE_DAYS."""
    if embedded_public_keys():
        try:
            payload = verify_license_file(load_license_file(), fingerprint, key)
        except LicenseFileInvalid as why:
            return Outcome(False, "unreachable", f"Could not reach the license server ({reason}). No valid offline license file: {why}. Connect to the internet to verify your license.")
        expires = _parse_time(payload["expires_at"]) or time.time()
        days_left = max(1, math.ceil((expires - time.time()) / 86400))
        trial = bool(payload["license"].get("trial"))
        return Outcome(True, "offline_grace", f"Could not reach the license server ({reason}). Running offline on this machine's signed license file for up to {days_left} more day(s).", days_left if trial else 0)
    last = state.get("validated_at")
    result = state.get("result") if isinstance(state.get("result"), dict) else {}
    if state.get("license_key") == key and state.get("fingerprint") == fingerprint and isinstance(last, (int, float)):
        now = time.time()
        age = now - last
        expires = _parse_time(result.get("expires_at"))
        # A clock set back (age < 0) or a license that has run out since does not get the grace period.
        if 0 <= age < OFFLINE_GRACE_SECONDS and (expires is None or expires > now):
            days_left = math.ceil((OFFLINE_GRACE_SECONDS - age) / 86400)
            return Outcome(True, "offline_grace", f"Could not reach the license server ({reason}). Running offline for up to {days_left} more day(s).")
    return Outcome(False, "unreachable", f"Could not reach the license server ({reason}). Connect to the internet to verify your license.")


def _check(key: str, fingerprint: str, state: dict[str, Any], newly_entered: bool, app_version: Optional[str]) -> Outcome:
    activated = False
    try:
        if newly_entered:
            activation = activate(key, fingerprint, app_version)
            if not activation.get("activated"):
                return _refusal(activation)
            activated = True
        answer = validate(key, fingerprint)
        if answer.get("code") in ("NO_MACHINE", "FINGERPRINT_SCOPE_MISMATCH") and not activated:
            # The key is fine but this machine is not (or no longer) activated: take a seat.
            activation = activate(key, fingerprint, app_version)
            if not activation.get("activated"):
                return _refusal(activation)
            answer = validate(key, fingerprint)
    except ServerUnavailable as error:
        if newly_entered:
            return Outcome(False, "unreachable", f"Could not reach the license server to activate ({error}). Check your connection and try again.")
        return _offline(state, key, fingerprint, str(error))
    except RequestRejected as error:
        return Outcome(False, "error", f"The license server refused the request ({error.code}): {error.detail}")

    if answer.get("valid") is True and answer.get("code") == "VALID":
        save_state({"license_key": key, "fingerprint": fingerprint, "validated_at": time.time(), "result": answer})
        refresh_license_file(key, fingerprint)
        days = int(answer.get("trial_days_remaining") or 0)
        if answer.get("trial"):
            return Outcome(True, "valid", f"Trial license: {days} day(s) left.", days)
        return Outcome(True, "valid", "License valid.")
    outcome = _refusal(answer)
    if outcome.status in ("needs_key", "revoked", "trial_expired"):
        clear_state()  # the next launch asks for a (new) key
    elif state.get("license_key") == key:
        save_state({"license_key": key, "fingerprint": fingerprint})  # keep the key, drop the offline grace
        remove_license_file()
    return outcome


def prompt_for_key(reason: Optional[str]) -> Optional[str]:
    """Asks for the key on the terminal; replace with your own dialog in a GUI app. None means 'cancelled'."""
    if reason is None and os.environ.get("LICENSE_KEY"):
        return os.environ["LICENSE_KEY"]
    if not sys.stdin or not sys.stdin.isatty():
        return None
    if reason:
        print(reason)
    try:
        return input("License key (XXXX-XXXX-XXXX-XXXX): ")
    except EOFError:
        return None


def check_license(
    ask_key: Callable[[Optional[str]], Optional[str]] = prompt_for_key, max_prompts: int = 3, app_version: Optional[str] = None
) -> Outcome:
    """Validates the stored key (activating on first run); asks for a key when there is none or it is rejected.
    app_version (this build's version) is sent with the host name and platform when this machine is activated."""
    try:
        fingerprint = machine_fingerprint()
    except (OSError, RuntimeError, subprocess.SubprocessError) as error:
        return Outcome(False, "error", f"Could not identify this machine: {error}")
    state = load_state()
    stored = state.get("license_key")
    if isinstance(stored, str) and state.get("fingerprint") == fingerprint:
        outcome = _check(stored, fingerprint, state, newly_entered=False, app_version=app_version)
        if outcome.status != "needs_key":
            return outcome
        reason: Optional[str] = outcome.message
    else:
        reason = None
    for _ in range(max_prompts):
        entered = ask_key(reason)
        if entered is None:
            return Outcome(False, "needs_key", reason or "A license key is required to use this app.")
        key = normalize_key(entered)
        if not KEY_PATTERN.match(key):
            reason = "That does not look like a license key: it has the form XXXX-XXXX-XXXX-XXXX."
            continue
        outcome = _check(key, fingerprint, state, newly_entered=True, app_version=app_version)
        if outcome.status != "needs_key":
            return outcome
        reason = outcome.message
    return Outcome(False, "needs_key", reason or "A license key is required to use this app.")


def deactivate_this_machine() -> Outcome:
    """Releases this machine's seat so the key can be activated elsewhere, and forgets the key here."""
    state = load_state()
    key = state.get("license_key")
    if not isinstance(key, str):
        return Outcome(False, "needs_key", "No license is activated on this machine.")
    try:
        answer = deactivate(key, machine_fingerprint())
    except ServerUnavailable as error:
        return Outcome(False, "unreachable", f"Could not reach the license server ({error}). Try again when online.")
    except RequestRejected as error:
        return Outcome(False, "error", f"The license server refused the request ({error.code}): {error.detail}")
    except (OSError, RuntimeError, subprocess.SubprocessError) as error:
        return Outcome(False, "error", f"Could not identify this machine: {error}")
    if answer.get("code") in ("DEACTIVATED", "NOT_ACTIVATED", "NOT_FOUND"):
        clear_state()
        return Outcome(False, "needs_key", "This machine has been released; its seat is free again.")
    return _refusal(answer)


# ---------------------------------------------------------------- buying and activating from the app

DEVICE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code"
SLOW_DOWN_STEP_SECONDS = 5


class DeviceFlowFailed(Exception):
    """buy_and_activate() ended without a license: `code` is the server's (access_denied, expired_token, invalid_grant,
    product_not_found, …) or unreachable."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


_DEVICE_FLOW_ENDINGS = {
    "access_denied": "The request was denied in the browser; no license was activated.",
    "expired_token": "The code expired before the purchase or activation was finished. Start again for a new code.",
    "invalid_grant": "The license server no longer knows this request. Start again for a new code.",
}


def show_verification_url(url: str) -> None:
    """The default open_url: print the address. A GUI app passes webbrowser.open (or its own window) instead."""
    print(f"Open {url} in a browser to buy a license or use one you have.", flush=True)


def buy_and_activate(
    open_url: Callable[[str], None] = show_verification_url,
    app_version: Optional[str] = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Outcome:
    """Licenses this machine with no key to copy: asks the server for a short code, shows it and hands
    verification_uri_complete to open_url, where the buyer pays (or picks a license they already have); meanwhile polls
    every `interval` seconds (5 more after each slow_down) until the server answers with the license, already activated
    on this machine. The key is then stored exactly as after activating a typed key, and the outcome of validating it is
    returned. Raises DeviceFlowFailed when the buyer denies it (access_denied), the code expires (expired_token) or the
    request is unknown (invalid_grant)."""
    try:
        fingerprint = machine_fingerprint()
    except (OSError, RuntimeError, subprocess.SubprocessError) as error:
        raise DeviceFlowFailed("error", f"Could not identify this machine: {error}") from error
    body = {"plugin_id": APP_ID, "machine_fingerprint": fingerprint, **machine_details(app_version)}
    try:
        started = _post("/api/v1/device/authorize", body, required="device_code")
    except ServerUnavailable as error:
        raise DeviceFlowFailed("unreachable", f"Could not reach the license server ({error}).") from error
    except RequestRejected as error:
        raise DeviceFlowFailed(error.code, f"The license server refused the request ({error.code}): {error.detail}") from error
    print(f"Your code: {started.get('user_code')}", flush=True)
    open_url(str(started.get("verification_uri_complete") or started.get("verification_uri")))
    interval = max(1, int(started.get("interval") or 5))
    deadline = time.monotonic() + max(1, int(started.get("expires_in") or 900))
    poll = {"device_code": str(started["device_code"]), "grant_type": DEVICE_GRANT_TYPE}
    while True:
        sleep(interval)
        try:
            answer = _post("/api/v1/device/token", poll)
            break
        except RequestRejected as error:
            if error.code == "authorization_pending":
                continue
            if error.code == "slow_down":
                interval += SLOW_DOWN_STEP_SECONDS
                continue
            raise DeviceFlowFailed(error.code, _DEVICE_FLOW_ENDINGS.get(error.code, error.detail)) from error
        except ServerUnavailable as error:
            # A network blip while waiting is not the end: keep polling until the code would have expired.
            if time.monotonic() > deadline:
                raise DeviceFlowFailed("unreachable", f"Could not reach the license server ({error}).") from error
    key = normalize_key(str(answer.get("license_key") or ""))
    if not answer.get("activated") or not KEY_PATTERN.match(key):
        return _refusal(answer)
    return _check(key, fingerprint, load_state(), newly_entered=False, app_version=app_version)


# ---------------------------------------------------------------- updates

UPDATES_ENDPOINT = "/api/updates/"
DOWNLOAD_CHUNK_BYTES = 1 << 16
_SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")
_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")


class UpdateFailed(Exception):
    """An update check or download that did not succeed. `code` is the server's problem code (license_refunded,
    license_revoked, license_expired, machine_not_activated, release_not_entitled, ...) or one of this module's:
    needs_key, error, unreachable, bad_answer, download_failed, unknown_signing_key, size_mismatch, sha256_mismatch,
    signature_invalid. `status` is the HTTP status when the server answered with a problem document."""

    def __init__(self, code: str, detail: str, status: Optional[int] = None) -> None:
        super().__init__(f"{detail} ({code})")
        self.code = code
        self.detail = detail
        self.status = status


@dataclass
class Update:
    """A newer release this license may install, as GET /api/updates/<plugin_id> described it."""

    version: str
    channel: str
    notes: str  # Markdown, as the seller wrote it
    published_at: str
    # platform, format, filename, content_type, size, sha256, signature (base64 Ed25519 over the file's bytes),
    # signature_key_id (a LICENSE_PUBLIC_KEYS key-id), url (short-lived download link) and url_expires_at.
    artifact: dict[str, Any]

    @property
    def filename(self) -> str:
        """The file's name without any directory part (safe to join to a folder of your choosing)."""
        name = os.path.basename(str(self.artifact.get("filename") or "").replace("\\", "/"))
        return name if name not in ("", ".", "..") else f"update-{self.version}"


def current_platform() -> str:
    """This machine's platform as releases name them (a universal macOS build is published as macos-universal)."""
    system = platform.system()
    arm = platform.machine().lower() in ("arm64", "aarch64")
    if system == "Windows":
        return "windows-arm64" if arm else "windows-x64"
    if system == "Darwin":
        return "macos-arm64" if arm else "macos-x64"
    return "linux-arm64" if arm else "linux-x64"


def _problem(error: urllib.error.HTTPError) -> UpdateFailed:
    """An HTTP error answer as an UpdateFailed carrying its RFC 9457 problem document's code and detail."""
    problem = _problem_document(error)
    code = str(problem.get("code") or f"http_{error.code}")
    return UpdateFailed(code, str(problem.get("detail") or error.reason or "HTTP error"), error.code)


def check_for_update(
    current_version: str,
    platform: Optional[str] = None,
    channel: str = "stable",
    plugin_format: str = "",
    license_key: Optional[str] = None,
) -> Optional[Update]:
    """The newest release this machine's license is entitled to, when it is newer than current_version; None when up
    to date. platform defaults to current_platform(); plugin_format ("vst3", "au", "aax", "clap") picks an audio
    plugin's artifact; channel "beta" includes beta releases. Uses the stored key (check_license() first) unless
    license_key is given. Raises UpdateFailed (with the server's problem code when it refused)."""
    key = license_key if license_key is not None else load_state().get("license_key")
    if not isinstance(key, str) or not key:
        raise UpdateFailed("needs_key", "No license key is stored on this machine: run check_license() first.")
    try:
        fingerprint = machine_fingerprint()
    except (OSError, RuntimeError, subprocess.SubprocessError) as error:
        raise UpdateFailed("error", f"Could not identify this machine: {error}") from error
    query = {"version": current_version, "platform": platform or current_platform(), "channel": channel}
    if plugin_format:
        query["format"] = plugin_format
    url = SERVER_URL + UPDATES_ENDPOINT + urllib.parse.quote(APP_ID, safe="") + "?" + urllib.parse.urlencode(query)
    request = urllib.request.Request(
        url, headers={"Accept": "application/json", "X-License-Key": key, "X-Machine-Fingerprint": fingerprint}
    )
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_SECONDS) as response:
            answer = json.loads(response.read(1 << 20).decode("utf-8"))
    except urllib.error.HTTPError as error:
        raise _problem(error) from error
    except ValueError as error:  # JSON or UTF-8
        raise UpdateFailed("bad_answer", "unreadable answer from the update server") from error
    except OSError as error:  # URLError, timeouts, connection errors
        raise UpdateFailed("unreachable", f"cannot reach {SERVER_URL}: {getattr(error, 'reason', error)}") from error
    if not isinstance(answer, dict) or answer.get("status") not in ("up_to_date", "update_available"):
        raise UpdateFailed("bad_answer", "unexpected answer from the update server")
    if answer["status"] == "up_to_date":
        return None
    latest = answer.get("latest")
    artifact = latest.get("artifact") if isinstance(latest, dict) else None
    if not isinstance(latest, dict) or not isinstance(artifact, dict) or not isinstance(latest.get("version"), str):
        raise UpdateFailed("bad_answer", "the update server announced an update without its file")
    return Update(
        version=latest["version"],
        channel=str(latest.get("channel") or channel),
        notes=str(latest.get("notes") or ""),
        published_at=str(latest.get("published_at") or ""),
        artifact=artifact,
    )


def download_update(update: Update, dest_path: "str | os.PathLike[str]") -> str:
    """Downloads update's file to dest_path and returns its SHA-256 (hex). The file is written next to dest_path
    under a temporary name and renamed into place only when its size, SHA-256 and Ed25519 signature (base64, over
    the file's bytes, by the LICENSE_PUBLIC_KEYS key named signature_key_id) all match; on any mismatch nothing is
    left at dest_path and UpdateFailed says which check failed. Verifying reads the file into memory once."""
    a = update.artifact
    size, expected_sha256, signature_text = a.get("size"), str(a.get("sha256") or "").lower(), str(a.get("signature") or "")
    url, key_id = str(a.get("url") or ""), str(a.get("signature_key_id") or "")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0 or not _SHA256_HEX.match(expected_sha256):
        raise UpdateFailed("bad_answer", "the update's size or SHA-256 is missing")
    if not url.startswith(("https://", "http://")):
        raise UpdateFailed("bad_answer", "the update has no download URL")
    try:
        signature = base64.b64decode(signature_text, validate=True) if _BASE64.match(signature_text) else b""
    except ValueError:
        signature = b""
    if len(signature) != 64:
        raise UpdateFailed("bad_answer", "the update's signature is not a base64 Ed25519 signature")
    public_key = embedded_public_keys().get(key_id)
    if public_key is None:
        raise UpdateFailed("unknown_signing_key", f"the update is signed by {key_id!r}, which is not in LICENSE_PUBLIC_KEYS")

    dest = Path(dest_path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".update-", suffix=".part")
    try:
        digest, received = hashlib.sha256(), 0
        with os.fdopen(fd, "wb") as out:
            # No license headers: the short-lived URL is itself the permission (and may point at a storage bucket).
            request = urllib.request.Request(url, headers={"Accept": "*/*"})
            try:
                with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_SECONDS) as response:
                    while True:
                        chunk = response.read(DOWNLOAD_CHUNK_BYTES)
                        if not chunk:
                            break
                        received += len(chunk)
                        if received > size:
                            raise UpdateFailed("size_mismatch", f"the download is larger than the announced {size} bytes")
                        digest.update(chunk)
                        out.write(chunk)
            except urllib.error.HTTPError as error:
                raise _problem(error) from error
            except (OSError, ValueError) as error:
                raise UpdateFailed("download_failed", f"the download failed: {getattr(error, 'reason', error)}") from error
        if received != size:
            raise UpdateFailed("size_mismatch", f"downloaded {received} bytes, expected {size}")
        actual_sha256 = digest.hexdigest()
        if not hmac.compare_digest(actual_sha256, expected_sha256):
            raise UpdateFailed("sha256_mismatch", f"the download's SHA-256 is {actual_sha256}, expected {expected_sha256}")
        with open(tmp, "rb") as f:
            data = f.read()
        if not ed25519_verify(public_key, data, signature):
            raise UpdateFailed("signature_invalid", "the download's Ed25519 signature does not verify")
        os.chmod(tmp, 0o644)  # mkstemp's file is private; a downloaded installer is an ordinary file
        os.replace(tmp, dest)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return actual_sha256


def _update_command(argv: list[str]) -> int:
    """python3 license_check.py --check-update VERSION [--platform P] [--channel C] [--format F] [--download PATH]"""
    parser = argparse.ArgumentParser(prog="license_check.py --check-update", description="Check for (and download) an update.")
    parser.add_argument("version", help="the version running now")
    parser.add_argument("--platform", default=None, help="default: this machine's (%s)" % current_platform())
    parser.add_argument("--channel", default="stable", choices=("stable", "beta"))
    parser.add_argument("--format", default="", help="an audio plugin's format: vst3, au, aax or clap")
    parser.add_argument("--download", metavar="PATH", help="download and verify the update to PATH")
    options = parser.parse_args(argv)
    try:
        update = check_for_update(options.version, options.platform, options.channel, options.format)
        if update is None:
            print(f"Up to date: {options.version} is the newest version this license gets.")
            return 0
        print(f"Update available: {update.version} ({update.filename}, {update.artifact.get('size')} bytes)")
        if options.download:
            sha256 = download_update(update, options.download)
            print(f"Downloaded and verified {update.version} to {options.download} (sha256 {sha256})")
        return 0
    except UpdateFailed as error:
        print(f"Update failed ({error.code}): {error.detail}")
        return 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--check-update"]:
        sys.exit(_update_command(sys.argv[2:]))
    if "--deactivate" in sys.argv[1:]:
        result = deactivate_this_machine()
        print(result.message)
        sys.exit(0 if result.status == "needs_key" else 1)
    if "--buy" in sys.argv[1:]:
        # python3 license_check.py --buy [--app-version VERSION]: buy or pick a license in the browser, no key to type.
        args = sys.argv[1:]
        try:
            result = buy_and_activate(app_version=args[args.index("--app-version") + 1] if "--app-version" in args[:-1] else None)
        except DeviceFlowFailed as error:
            print(f"Activation failed ({error.code}): {error.detail}")
            sys.exit(1)
        if result.allowed:
            print(f"Activated license key {load_state().get('license_key')} on this machine.")
        print(result.message)
        sys.exit(0 if result.allowed else 1)
    # python3 license_check.py [--app-version VERSION]: the version this run reports when it activates the machine.
    args = sys.argv[1:]
    version = args[args.index("--app-version") + 1] if "--app-version" in args[:-1] else None
    result = check_license(app_version=version)
    print(result.message)
    sys.exit(0 if result.allowed else 1)
