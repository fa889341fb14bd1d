/**
 * The integration sources under sdks/, as they are in the repository (placeholder values in place), pass
 * their own compilers and linters, and say what lib/agents/devtools/options.ts says. Running them against the
 * service is tests/integration/integrations.test.ts's job.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { LICENSE_FILE_ENDPOINT, LICENSE_FILE_FORMAT, OFFLINE_GRACE_DAYS } from "@/lib/agents/devtools/options";
import { SOURCE_APP_ID, SOURCE_SERVER_URL } from "@/lib/agents/devtools/integration/sources";
import { activateRequestSchema } from "@/lib/licensing/schemas";
import { has, mustRun, SYSTEM_PYTHON, tools } from "../helpers/integration-programs";

const src = join(process.cwd(), "sdks");
const at = (path: string) => join(src, path);
const read = (path: string) => readFileSync(at(path), "utf8");
const tmp = mkdtempSync(join(tmpdir(), "integration-sources-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const needs = (what: string) => ` (needs ${what})`;
const clippy = tools.cargo && has("cargo", ["clippy", "--version"]);
/** For a test that runs a compiler or linter: seconds on a quiet machine, more while other builds run. */
const TOOL_TIMEOUT = 120_000;

describe("integration sources", () => {
  it("hold the placeholder values the generator replaces and the protocol constants of options.ts", () => {
    const modules: Record<string, string[]> = {
      "python/license_check.py": [`OFFLINE_GRACE_DAYS = ${OFFLINE_GRACE_DAYS}`],
      "c/license.c": [`#define OFFLINE_GRACE_DAYS ${OFFLINE_GRACE_DAYS}`],
      "cpp/license_client.cpp": [`kOfflineGraceDays = ${OFFLINE_GRACE_DAYS};`],
      "juce/Source/LicenseManager.cpp": [`offlineGraceDays = ${OFFLINE_GRACE_DAYS};`],
      "rust/src/license.rs": [`OFFLINE_GRACE_DAYS: u64 = ${OFFLINE_GRACE_DAYS};`, `"${LICENSE_FILE_FORMAT}"`],
      "electron/license.js": [`OFFLINE_GRACE_DAYS = ${OFFLINE_GRACE_DAYS};`, `'${LICENSE_FILE_FORMAT}'`],
      "csharp/LicenseClient.cs": [`OfflineGraceDays = ${OFFLINE_GRACE_DAYS};`, `"${LICENSE_FILE_FORMAT}"`],
      "shared/license_file.h": [`"${LICENSE_FILE_FORMAT}"`],
    };
    for (const [path, needles] of Object.entries(modules)) {
      const code = read(path);
      for (const needle of needles) expect(code, `${path}: ${needle}`).toContain(needle);
      if (!path.startsWith("shared/")) {
        expect(code, path).toContain(SOURCE_APP_ID);
        expect(code, path).toContain(SOURCE_SERVER_URL);
        expect(code, path).toContain(LICENSE_FILE_ENDPOINT);
        expect(code, path).toMatch(/placeholder: replace "" with the key printed by the command in the setup steps/);
      }
    }
  });

  it("send the machine's details on activation, cut to the lengths /activate accepts", () => {
    const fields = z.toJSONSchema(activateRequestSchema, { io: "input", unrepresentable: "any" }).properties as Record<
      string,
      { maxLength?: number }
    >;
    const [name, version] = [fields.machine_name?.maxLength, fields.app_version?.maxLength];
    expect([name, version]).toEqual([expect.any(Number), expect.any(Number)]);
    const modules: Record<string, string[]> = {
      "c/license.c": [`#define MACHINE_NAME_MAX_CHARS ${name}\n`, `#define APP_VERSION_MAX_CHARS ${version}\n`],
      "cpp/license_client.cpp": [`kMachineNameMaxChars = ${name};`, `kAppVersionMaxChars = ${version};`],
      "juce/Source/LicenseManager.cpp": [`machineNameMaxChars = ${name};`, `appVersionMaxChars = ${version};`],
      "python/license_check.py": [`MACHINE_NAME_MAX_CHARS = ${name}\n`, `APP_VERSION_MAX_CHARS = ${version}\n`],
      "rust/src/license.rs": [`MACHINE_NAME_MAX_CHARS: usize = ${name};`, `APP_VERSION_MAX_CHARS: usize = ${version};`],
      "electron/license.js": [`MACHINE_NAME_MAX_CHARS = ${name};`, `APP_VERSION_MAX_CHARS = ${version};`],
      "csharp/LicenseClient.cs": [`MachineNameMaxChars = ${name};`, `AppVersionMaxChars = ${version};`],
    };
    for (const [path, needles] of Object.entries(modules)) {
      const code = read(path);
      for (const needle of needles) expect(code, `${path}: ${needle}`).toContain(needle);
      for (const field of ["machine_name", "platform", "app_version"])
        expect(code, `${path}: ${field}`).toMatch(new RegExp(`(["'])${field}\\1|\\b${field}:`));
    }
  });

  it("buy and activate from inside the app: the device endpoints, the grant type, every RFC 8628 answer, the entry point and its example", () => {
    // [module, entry point, example that runs it]
    const modules: Array<[string, RegExp, string]> = [
      ["c/license.c", /license_outcome license_buy_and_activate\(/, "c/main.c"],
      ["cpp/license_client.cpp", /Outcome buyAndActivate\(/, "cpp/main.cpp"],
      ["juce/Source/LicenseManager.cpp", /Outcome buyAndActivate \(/, "juce/Source/LicenseGate.h"],
      ["rust/src/license.rs", /pub fn buy_and_activate\(/, "rust/src/main.rs"],
      ["rust/src/license.rs", /pub fn buy_and_activate\(/, "tauri/src-tauri/src/lib.rs"],
      ["csharp/LicenseClient.cs", /public async Task<LicenseOutcome> BuyAndActivateAsync\(/, "csharp/Program.cs"],
    ];
    for (const [path, entry, example] of modules) {
      const code = read(path);
      expect(code, path).toMatch(entry);
      for (const needle of [
        "api/v1/device/authorize",
        "api/v1/device/token",
        "urn:ietf:params:oauth:grant-type:device_code",
        "verification_uri_complete",
        "authorization_pending",
        "slow_down",
        "access_denied",
        "expired_token",
        "invalid_grant",
      ])
        expect(code, `${path}: ${needle}`).toContain(needle);
      // A refusal is read from the problem's code, or from OAuth's error member.
      expect(code, path).toMatch(/["']error["']/);
      expect(read(example), example).toMatch(/--buy|buy_and_activate|buyAndActivate|buyLicense/);
    }
    expect(read("tauri/src/license.js")).toContain("invoke('buy_license')");
  });

  it("keep the license-file check in one place: C, C++ and JUCE call the shared license_file.c", () => {
    for (const path of ["c/license.c", "cpp/license_client.cpp", "juce/Source/LicenseManager.cpp"]) {
      const code = read(path);
      expect(code, path).toContain('#include "license_file.h"');
      expect(code, path).toMatch(/license_file_verify ?\(/);
      expect(code, path).not.toMatch(/EVP_DigestVerify|EVP_PKEY_ED25519|BEGIN LICENSE FILE/);
    }
  });

  describe.skipIf(!tools.python)("Python" + needs("python3"), () => {
    it(
      "compiles",
      () => {
        for (const f of ["license_check.py", "main.py"])
          mustRun("python3", ["-m", "py_compile", at(`python/${f}`)], {
            env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", PYTHONPYCACHEPREFIX: tmp },
          });
      },
      TOOL_TIMEOUT,
    );
    it(
      "its pure-Python Ed25519 verifier passes RFC 8032's test vectors 1 and 2, and refuses a changed message or signature",
      () => {
        const vectors = `
import license_check as l
v = [("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "", "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
     ("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72", "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00")]
for pk, msg, sig in v:
    pk, msg, sig = bytes.fromhex(pk), bytes.fromhex(msg), bytes.fromhex(sig)
    assert l._ed25519_verify_pure(pk, msg, sig)
    assert not l._ed25519_verify_pure(pk, msg + b"x", sig)
    assert not l._ed25519_verify_pure(pk, msg, sig[:63] + bytes([sig[63] ^ 1]))
print("ok")
`;
        const out = mustRun("python3", ["-c", vectors], { cwd: at("python"), env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
        expect(out.trim()).toBe("ok");
      },
      TOOL_TIMEOUT,
    );
    it.skipIf(!tools.pyflakes)(
      "passes pyflakes" + needs("python3-pyflakes"),
      () => {
        mustRun(SYSTEM_PYTHON, ["-m", "pyflakes", at("python/license_check.py"), at("python/main.py")]);
      },
      TOOL_TIMEOUT,
    );
  });

  describe.skipIf(!tools.gcc || !tools.gxx)("C, C++ and the shared license-file check" + needs("gcc, g++, libcurl4-openssl-dev, libssl-dev"), () => {
    it(
      "compile with -Wall -Wextra -Werror (the shared file as C99 and as C++17)",
      () => {
        const strict = ["-Wall", "-Wextra", "-Werror", "-fsyntax-only", `-I${at("shared")}`];
        mustRun("gcc", ["-std=c99", ...strict, at("shared/license_file.c"), at("c/license.c"), at("c/main.c")]);
        mustRun("g++", ["-std=c++17", ...strict, "-x", "c++", at("shared/license_file.c")]);
        mustRun("g++", ["-std=c++17", ...strict, at("cpp/license_client.cpp"), at("cpp/main.cpp")]);
      },
      TOOL_TIMEOUT,
    );
    it.skipIf(!tools.cppcheck)(
      "pass cppcheck" + needs("cppcheck"),
      () => {
        const flags = ["--quiet", "--error-exitcode=1", "--enable=warning,portability", `-I${at("shared")}`];
        mustRun("cppcheck", [...flags, "--std=c99", at("shared/license_file.c"), at("c/license.c"), at("c/main.c")]);
        mustRun("cppcheck", [...flags, "--language=c++", "--std=c++17", at("cpp/license_client.cpp"), at("cpp/main.cpp")]);
      },
      TOOL_TIMEOUT,
    );
  });

  it(
    "JavaScript (Electron, Tauri's front end) passes node --check",
    () => {
      for (const f of ["electron/license.js", "electron/main.js"]) mustRun(process.execPath, ["--check", at(f)]);
      for (const f of ["tauri/src/license.js", "tauri/src/main.js"]) {
        const asModule = join(tmp, f.replace(/\//g, "_").replace(/\.js$/, ".mjs")); // ES module syntax (import/export)
        writeFileSync(asModule, read(f));
        mustRun(process.execPath, ["--check", asModule]);
      }
    },
    TOOL_TIMEOUT,
  );

  it.skipIf(!clippy)(
    "Rust passes cargo clippy -D warnings" + needs("cargo with clippy, Debian's librust-*-dev crates"),
    () => {
      // A copy: cargo writes Cargo.lock and target/ next to the manifest.
      const dir = join(tmp, "rust");
      cpSync(at("rust"), dir, { recursive: true });
      mkdirSync(join(dir, ".cargo"), { recursive: true });
      writeFileSync(
        join(dir, ".cargo/config.toml"),
        '[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\ndirectory = "/usr/share/cargo/registry"\n\n[net]\noffline = true\n',
      );
      mustRun("cargo", ["clippy", "--offline", "--quiet", "--", "-D", "warnings"], {
        cwd: dir,
        env: { ...process.env, CARGO_TARGET_DIR: join(tmpdir(), "devtools-cargo-target") },
        timeout: 600_000,
      });
    },
    600_000,
  );

  it.skipIf(!tools.juce)(
    "JUCE compiles against JUCE's module headers (-Wall -Wextra)" + needs("g++, juce-modules-source-data"),
    () => {
      const check = join(tmp, "juce-check.cpp");
      writeFileSync(check, `#include "${at("juce/Source/LicenseManager.cpp")}"\n#include "${at("juce/Source/LicenseGate.h")}"\n`);
      mustRun("g++", [
        "-std=c++17",
        "-fsyntax-only",
        "-Wall",
        "-Wextra",
        "-I/usr/share/juce/modules",
        `-I${at("shared")}`,
        "-DJUCE_GLOBAL_MODULE_SETTINGS_INCLUDED=1",
        "-DJUCE_STANDALONE_APPLICATION=1",
        check,
      ]);
    },
    120_000,
  );
});
