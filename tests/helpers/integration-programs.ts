import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/**
 * Building and running the code generate_license_integration returns: the toolchains this machine has, the files
 * of a generated Markdown document, one build per language, and a runner for the resulting command-line programs.
 */

export function has(bin: string, args = ["--version"]): boolean {
  return spawnSync(bin, args, { stdio: "ignore" }).status === 0;
}

/** Whether gcc finds lib<name>.so to link with. */
function linkable(name: string): boolean {
  const r = spawnSync("gcc", [`-print-file-name=lib${name}.so`], { encoding: "utf8" });
  return r.status === 0 && r.stdout.trim() !== `lib${name}.so`;
}

const CARGO_REGISTRY = "/usr/share/cargo/registry";
const JUCE_MODULES = "/usr/share/juce/modules";

/** Debian's python3 (with python3-cryptography and python3-pyflakes), which may differ from the python3 on PATH. */
export const SYSTEM_PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";

/** The toolchains here; each test that needs one is skipped, with its reason, when it is missing. */
export const tools = {
  python: has("python3"),
  pythonCryptography: has(SYSTEM_PYTHON, ["-c", "import cryptography.hazmat.primitives.asymmetric.ed25519"]),
  pyflakes: has(SYSTEM_PYTHON, ["-m", "pyflakes", "--version"]),
  gcc: has("gcc") && ["curl", "crypto"].every(linkable),
  gxx: has("g++") && ["curl", "crypto"].every(linkable),
  cppcheck: has("cppcheck"),
  curl: has("curl") && has("bash"),
  // Debian's vendored crates (librust-*-dev) for an offline build; ring 0.16 in bookworm, 0.17 later.
  cargo:
    has("cargo") &&
    existsSync(CARGO_REGISTRY) &&
    [["ureq-2"], ["sha2-0.10"], ["serde_json-1"], ["serde_derive-1"], ["ring-0.16", "ring-0.17"]].every((alternatives) =>
      readdirSync(CARGO_REGISTRY).some((d) => alternatives.some((c) => d.startsWith(`${c}.`))),
    ),
  // Linking JUCE's modules also needs zlib (Debian zlib1g-dev), besides libcurl and libcrypto.
  juce: has("g++") && existsSync(`${JUCE_MODULES}/juce_core/juce_core.h`) && ["curl", "crypto", "z"].every(linkable),
  // The C# integration targets .NET 8 (records, file-scoped namespaces, System.Text.Json, BouncyCastle): Mono's mcs
  // cannot compile it, and Debian has no .NET SDK.
  dotnet: has("dotnet", ["--list-sdks"]),
  // The generated code fingerprints Linux machines from /etc/machine-id.
  machineId: existsSync("/etc/machine-id") || existsSync("/var/lib/dbus/machine-id"),
};

/** Runs a command; throws with its output when it fails, so a compiler error fails the test. */
/**
 * Environment that makes the generated Python code use its own RFC 8032 verifier: a `cryptography` package that
 * cannot be imported is put first on PYTHONPATH (checked: ed25519_backend() answers "pure-python").
 */
export function withoutCryptography(dir: string): Record<string, string> {
  const blocked = join(dir, "no-cryptography");
  mkdirSync(join(blocked, "cryptography"), { recursive: true });
  writeFileSync(join(blocked, "cryptography/__init__.py"), 'raise ImportError("blocked for this test")\n');
  const env = { PYTHONPATH: blocked };
  const backend = mustRun("python3", ["-c", "import license_check; print(license_check.ed25519_backend())"], {
    cwd: dir,
    env: { ...process.env, ...env },
  }).trim();
  if (backend !== "pure-python") throw new Error(`the generated code still uses ${backend}`);
  return env;
}

export function mustRun(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {}): string {
  const r = spawnSync(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, encoding: "utf8", timeout: opts.timeout ?? 120_000 });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(" ")} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stdout}\n${r.stderr}`);
  }
  return `${r.stdout}${r.stderr}`;
}

/** Writes the Markdown's file blocks (those labelled **`path`**) under dir; returns path → language. */
export function extractFiles(markdown: string, dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const re = /\*\*`([^`\n]+)`\*\*\n\n(`{3,})([\w-]*)\n([\s\S]*?)\n\2$/gm;
  for (const m of markdown.matchAll(re)) {
    const path = join(dir, m[1]!);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${m[4]}\n`);
    files.set(m[1]!, m[3]!);
  }
  return files;
}

/** This machine's fingerprint by the documented Linux recipe, or null where the recipe's inputs are missing. */
export function expectedLinuxFingerprint(): string | null {
  try {
    const cpu = readFileSync("/proc/cpuinfo", "utf8")
      .split("\n")
      .map((l) => l.split(":"))
      .find(([name, value]) => name!.trim() === "model name" && value?.trim())?.[1]
      ?.trim();
    const id = ["/etc/machine-id", "/var/lib/dbus/machine-id"].map((p) => (existsSync(p) ? readFileSync(p, "utf8").trim() : "")).find(Boolean);
    if (!cpu || !id) return null;
    return createHash("sha256").update(`${cpu}|${id}`).digest("hex");
  } catch {
    return null;
  }
}

/** How to start a built program: it exits 0 when the app may run, takes a key from LICENSE_KEY, --deactivate releases. */
export interface Program {
  cmd: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
  /** JUCE's PropertiesFile keeps its folder in $HOME on Linux, the others in $XDG_CONFIG_HOME. */
  stateInHome?: boolean;
}

export interface Run {
  status: number | null;
  out: string;
}

/** A program run with its state under a fresh configuration directory. */
export function programRunner(p: Program, appId: string, root: string) {
  const config = mkdtempSync(join(root, "config-"));
  const stateDir = join(config, appId);
  // Asynchronous: the licensing server answers from this process's event loop.
  const run = (key?: string, extra: string[] = []) =>
    new Promise<Run>((resolve, reject) => {
      const env: NodeJS.ProcessEnv = { ...process.env, ...p.env, XDG_CONFIG_HOME: config, ...(p.stateInHome ? { HOME: config } : {}) };
      delete env.LICENSE_KEY;
      if (key !== undefined) env.LICENSE_KEY = key;
      const child = spawn(p.cmd, [...p.args, ...extra], { cwd: p.cwd, env, stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
      let out = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
      child.stderr.on("data", (c: Buffer) => (out += c.toString("utf8")));
      child.on("error", reject);
      child.on("close", (status) => resolve({ status, out }));
    });
  /** The cached state (license.json, license.state or JUCE's <app id>.license), not the license file. */
  const stateFile = () =>
    existsSync(stateDir)
      ? readdirSync(stateDir)
          .filter((f) => (f.startsWith("license") || f.endsWith(".license")) && !f.endsWith(".lic") && !f.includes("tmp") && !f.includes("_temp"))
          .map((f) => join(stateDir, f))[0]
      : undefined;
  return { run, stateDir, stateFile, licenseFile: join(stateDir, "license.lic"), forget: () => rmSync(stateDir, { recursive: true, force: true }) };
}

/**
 * A command-line driver for Electron's license module (plain Node: no electron import), used the way main.js uses it,
 * with appVersion as main.js passes app.getVersion().
 */
export function writeElectronCli(dir: string, appId: string, appVersion?: string): void {
  writeFileSync(
    join(dir, "cli.js"),
    `const path = require('node:path');
const { createLicenseClient, Status } = require('./license.js');
(async () => {
  const client = createLicenseClient({ stateDir: path.join(process.env.XDG_CONFIG_HOME, ${JSON.stringify(appId)}), appVersion: ${JSON.stringify(appVersion)} });
  if (process.argv[2] === '--deactivate') {
    const o = await client.deactivateThisMachine();
    console.log(o.message);
    process.exit(o.status === Status.NEEDS_KEY ? 0 : 1);
  }
  let o = await client.checkLicense();
  if (o.status === Status.NEEDS_KEY && process.env.LICENSE_KEY) o = await client.activateLicense(process.env.LICENSE_KEY);
  console.log(o.message);
  process.exit(o.allowed ? 0 : 1);
})();
`,
  );
}

/**
 * A command-line driver for Electron's `buyAndActivate()` (plain Node), printing what `license_check.py --buy` prints:
 * the verification address and code while it polls, then the activated key, or the device flow's error.
 */
export function writeElectronBuyCli(dir: string, appId: string, appVersion: string): void {
  writeFileSync(
    join(dir, "buy-cli.js"),
    `const fs = require('node:fs');
const path = require('node:path');
const { createLicenseClient, DeviceFlowError } = require('./license.js');
const stateDir = path.join(process.env.XDG_CONFIG_HOME, ${JSON.stringify(appId)});
createLicenseClient({ stateDir, appVersion: ${JSON.stringify(appVersion)} }).buyAndActivate().then(
  (o) => {
    if (o.allowed) console.log('Activated license key ' + JSON.parse(fs.readFileSync(path.join(stateDir, 'license.json'), 'utf8')).licenseKey + ' on this machine.');
    console.log(o.message);
    process.exit(o.allowed ? 0 : 1);
  },
  (e) => {
    if (!(e instanceof DeviceFlowError)) throw e;
    console.log('Activation failed (' + e.code + '): ' + e.detail);
    process.exit(1);
  },
);
`,
  );
}

/**
 * A command-line driver for Electron's update check (plain Node), with the generated Python's `--check-update`
 * arguments and messages: `update-cli.js --check-update VERSION [--platform P] [--channel C] [--format F]
 * [--download PATH]`; any other arguments run cli.js (writeElectronCli) instead.
 */
export function writeElectronUpdateCli(dir: string, appId: string): void {
  writeElectronCli(dir, appId);
  writeFileSync(
    join(dir, "update-cli.js"),
    `const path = require('node:path');
const { parseArgs } = require('node:util');
if (process.argv[2] !== '--check-update') {
  require('./cli.js');
} else {
  const { createLicenseClient, downloadUpdate, UpdateError } = require('./license.js');
  const { values, positionals } = parseArgs({
    args: process.argv.slice(3),
    allowPositionals: true,
    options: { platform: { type: 'string' }, channel: { type: 'string', default: 'stable' }, format: { type: 'string', default: '' }, download: { type: 'string' } },
  });
  const client = createLicenseClient({ stateDir: path.join(process.env.XDG_CONFIG_HOME, ${JSON.stringify(appId)}) });
  (async () => {
    try {
      const update = await client.checkForUpdate({ currentVersion: positionals[0], platform: values.platform, channel: values.channel, format: values.format });
      if (!update) {
        console.log('Up to date: ' + positionals[0] + ' is the newest version this license gets.');
        return;
      }
      console.log('Update available: ' + update.version + ' (' + update.filename + ', ' + update.artifact.size + ' bytes)');
      if (values.download) {
        const sha256 = await downloadUpdate(update, values.download);
        console.log('Downloaded and verified ' + update.version + ' to ' + values.download + ' (sha256 ' + sha256 + ')');
      }
    } catch (error) {
      if (!(error instanceof UpdateError)) throw error;
      console.log('Update failed (' + error.code + '): ' + error.detail);
      process.exitCode = 1;
    }
  })();
}
`,
  );
}

/** Builds a generated Rust program (its Cargo.toml saying `version`) offline against Debian's vendored crates; returns the binary. */
export function buildRust(dir: string, version = "0.1.0"): string {
  const deps = readFileSync(join(dir, "Cargo.toml"), "utf8");
  writeFileSync(join(dir, "Cargo.toml"), `[package]\nname = "license-check"\nversion = ${JSON.stringify(version)}\nedition = "2021"\n\n${deps}`);
  mkdirSync(join(dir, ".cargo"), { recursive: true });
  writeFileSync(
    join(dir, ".cargo/config.toml"),
    `[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\ndirectory = "${CARGO_REGISTRY}"\n\n[net]\noffline = true\n`,
  );
  const target = join(tmpdir(), "devtools-cargo-target"); // kept between runs: later builds take seconds
  mustRun("cargo", ["build", "--offline", "--quiet"], {
    cwd: dir,
    env: { ...process.env, CARGO_TARGET_DIR: target, RUSTFLAGS: "-D warnings" },
    timeout: 600_000,
  });
  const binary = join(dir, "license-check");
  writeFileSync(binary, readFileSync(join(target, "debug", "license-check")), { mode: 0o755 }); // the next build overwrites the target's
  return binary;
}

/** JUCE module objects (juce_core, juce_events, juce_data_structures, juce_cryptography), compiled once per process. */
const JUCE_FLAGS = [
  "-std=c++17",
  "-O0",
  "-w",
  `-I${JUCE_MODULES}`,
  "-DJUCE_GLOBAL_MODULE_SETTINGS_INCLUDED=1",
  "-DJUCE_STANDALONE_APPLICATION=1",
  "-DJUCE_USE_CURL=1",
  "-DJUCE_LOAD_CURL_SYMBOLS_LAZILY=0",
  ...["juce_core", "juce_events", "juce_data_structures", "juce_cryptography"].map((m) => `-DJUCE_MODULE_AVAILABLE_${m}=1`),
];
let juceObjects: Promise<string[]> | undefined;
function juceModuleObjects(root: string): Promise<string[]> {
  juceObjects ??= (async () => {
    const dir = mkdtempSync(join(root, "juce-modules-"));
    const modules = ["juce_core", "juce_events", "juce_data_structures", "juce_cryptography"];
    await Promise.all(
      modules.map(
        (m) =>
          new Promise<void>((resolve, reject) => {
            const child = spawn("g++", [...JUCE_FLAGS, "-c", `${JUCE_MODULES}/${m}/${m}.cpp`, "-o", join(dir, `${m}.o`)], {
              stdio: ["ignore", "ignore", "pipe"],
            });
            let err = "";
            child.stderr.on("data", (c: Buffer) => (err += c.toString("utf8")));
            child.on("error", reject);
            child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`g++ ${m}.cpp failed:\n${err}`))));
          }),
      ),
    );
    return modules.map((m) => join(dir, `${m}.o`));
  })();
  return juceObjects;
}

/**
 * Links the generated LicenseManager.cpp (and the shared license_file.c) into a command-line driver used the way
 * LicenseGate uses it, passing appVersion (UTF-8) as the app's version; `--buy` buys and activates from inside the
 * app, printing the purchase page's address instead of opening it.
 */
export async function buildJuceCli(dir: string, root: string, appVersion: string): Promise<string> {
  writeFileSync(
    join(dir, "Source/cli.cpp"),
    `#include "LicenseManager.h"
#include <cstdlib>
#include <cstring>
#include <iostream>
int main (int argc, char** argv)
{
    juce::ScopedJuceInitialiser_GUI juceInitialiser; // a MessageManager for PropertiesFile's change messages
    const auto appVersion = juce::String::fromUTF8 (${JSON.stringify(appVersion)});
    if (argc > 1 && std::strcmp (argv[1], "--deactivate") == 0)
    {
        const auto o = licensing::deactivateThisMachine();
        std::cout << o.message << std::endl;
        return o.status == licensing::Status::needsKey ? 0 : 1;
    }
    if (argc > 1 && std::strcmp (argv[1], "--buy") == 0)
    {
        licensing::BuyOptions options; // printed instead of opened: there is no browser here
        options.openUrl = [] (const juce::String& url, const juce::String& userCode)
        {
            std::cout << "To buy and activate, open " << url << " in your browser and check that it shows the code " << userCode << "." << std::endl;
        };
        const auto o = licensing::buyAndActivate (appVersion, options);
        std::cout << o.message << std::endl;
        if (o.allowed())
            std::cout << "License key: " << o.licenseKey << std::endl;
        return o.allowed() ? 0 : 1;
    }
    auto o = licensing::checkLicense (appVersion);
    if (o.status == licensing::Status::needsKey && std::getenv ("LICENSE_KEY") != nullptr)
        o = licensing::activateLicense (std::getenv ("LICENSE_KEY"), appVersion);
    std::cout << o.message << std::endl;
    return o.allowed() ? 0 : 1;
}
`,
  );
  const objects = await juceModuleObjects(root);
  mustRun("gcc", ["-std=c99", "-O1", "-c", "Source/license_file.c", "-o", "license_file.o"], { cwd: dir });
  mustRun(
    "g++",
    [
      ...JUCE_FLAGS,
      "Source/cli.cpp",
      "Source/LicenseManager.cpp",
      "license_file.o",
      ...objects,
      "-lcurl",
      "-lcrypto",
      "-lz",
      "-lpthread",
      "-ldl",
      "-o",
      "app",
    ],
    { cwd: dir },
  );
  return join(dir, "app");
}
