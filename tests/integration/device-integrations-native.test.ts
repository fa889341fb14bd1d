/**
 * Buying and activating from inside the app (the device authorization of RFC 8628) with the generated C, C++, Rust
 * and JUCE code, each built once with its own toolchain (as integrations.test.ts builds them) and run with `--buy`
 * against the service's real device routes (tests/helpers/licensing-server.ts serves app/api/v1/device): the program
 * starts a request and prints the purchase page's address; this side reads the user code from it and approves the
 * request with a license of the product the way the buyer does at that page (the approveDeviceWithLicense
 * operation, signed in as the license's buyer), or denies it (denyDevice). The program must then print the key it
 * received, activated on this machine with the machine's details, stored so that the next start validates it; a
 * denied request must end with its error and nothing stored.
 *
 * Tauri's Rust is the Rust integration's module (integrations.test.ts checks they are the same file), so the Rust
 * run covers it. C# is built only where the .NET 8 SDK is installed. A language whose toolchain is missing is
 * reported as skipped with what it needs.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateLicenseIntegration, type IntegrationLanguage } from "@/lib/agents/devtools";
import { getDb } from "@/lib/db";
import { validateLicense } from "@/lib/licensing/validate-license";
import { execute, parseParts } from "@/lib/operations/execute";
import { operationById } from "@/lib/operations";
import type { CallContext } from "@/lib/operations/define";
import { buildJuceCli, buildRust, extractFiles, mustRun, programRunner, tools, type Program, type Run } from "../helpers/integration-programs";
import { newLicense } from "../helpers/licenses";
import { startLicensingServer, type LicensingServer } from "../helpers/licensing-server";

/** The version each program is built with: a quote and a non-ASCII letter, escaped by the program. Rust's is semver. */
const APP_VERSION = '3.1.0-β "buy"';
const RUST_APP_VERSION = "3.1.0-rc.2";
/** This machine's platform as the generated code names it (releases' names: "linux-x64"). */
const PLATFORM = `${{ win32: "windows", darwin: "macos", linux: "linux" }[process.platform as string] ?? "other"}-${{ x64: "x64", arm64: "arm64" }[process.arch as string] ?? "other"}`;
/** A buy run waits one poll interval (5 s) before its first poll; the rest is the program and the service. */
const RUN_TIMEOUT = 60_000;
const BUILD = 660_000;

const root = mkdtempSync(join(tmpdir(), "device-integrations-"));
let server: LicensingServer;
let appId: string;
let productId: string;

beforeAll(async () => {
  server = await startLicensingServer();
  const product = await getDb().product.findFirstOrThrow({ where: { status: "active", maxMachines: { gte: 1 } }, orderBy: { id: "asc" } });
  appId = product.pluginId;
  productId = product.id;
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

function generate(language: IntegrationLanguage) {
  const dir = mkdtempSync(join(root, `${language}-`));
  const markdown = generateLicenseIntegration({ language, app_id: appId, server_url: server.url });
  expect(extractFiles(markdown, dir).size).toBeGreaterThan(0);
  // The Markdown says how to buy from inside the app.
  expect(markdown).toContain("Buying from inside the app");
  expect(markdown).toContain(`${server.url}/api/v1/device/authorize`);
  return { dir, markdown };
}

/** Runs a device operation the way its REST route does: the body parsed by its schema, then execute(). */
async function runOperation(id: string, body: Record<string, unknown>, caller?: { buyer: { email: string } }) {
  const op = operationById(id);
  const ctx: CallContext = {
    transport: "rest",
    // A fresh address per call: the user-code tries are limited per client, and this file approves several.
    client: `198.51.100.${Math.floor(Math.random() * 250) + 1}-${randomUUID()}`,
    requestId: randomUUID(),
    headers: new Headers(),
    origin: server.url,
  };
  return execute(op, parseParts(op, { body }), ctx, caller ? { caller } : {});
}

/**
 * `--buy` started in the background with its state under stateDir's configuration folder: `shown` resolves with the
 * user code once the program has printed the purchase page's address, `done` when it exits.
 */
function startBuy(p: Program, stateDir: string) {
  const config = dirname(stateDir);
  const env: NodeJS.ProcessEnv = { ...process.env, ...p.env, XDG_CONFIG_HOME: config, ...(p.stateInHome ? { HOME: config } : {}) };
  delete env.LICENSE_KEY;
  const child = spawn(p.cmd, [...p.args, "--buy"], { cwd: p.cwd, env, stdio: ["ignore", "pipe", "pipe"], timeout: RUN_TIMEOUT });
  let out = "";
  let show: (page: { url: string; code: string; shownCode: string }) => void;
  let fail: (error: Error) => void;
  const shown = new Promise<{ url: string; code: string; shownCode: string }>((resolve, reject) => {
    show = resolve;
    fail = reject;
  });
  const page = /open (\S+\/device\?user_code=([A-Z]{4}-[A-Z]{4})) in your browser and check that it shows the code ([A-Z]{4}-[A-Z]{4})\./;
  const read = (c: Buffer) => {
    out += c.toString("utf8");
    const m = page.exec(out);
    if (m) show({ url: m[1]!, code: m[2]!, shownCode: m[3]! });
  };
  child.stdout.on("data", read);
  child.stderr.on("data", read);
  const done = new Promise<Run>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status) => {
      fail(new Error(`the program exited (${status}) without showing the purchase page:\n${out}`));
      resolve({ status, out });
    });
  });
  return { shown, done };
}

/** Whether the license is activated on the machine, asked of the service directly (not through the app). */
async function bound(key: string, fingerprint: string): Promise<boolean> {
  return (await validateLicense({ license_key: key, machine_fingerprint: fingerprint, plugin_id: appId })).machine_bound;
}

/** The device request a user code names, as the service stored it. */
const deviceRequest = (userCode: string) => getDb().deviceAuthorization.findUniqueOrThrow({ where: { userCode: userCode.replace("-", "") } });

/**
 * One built program through the flow: approved with a license the buyer holds (the key printed, activated on this
 * machine with its details, stored for the next start), then a second request denied at the page (its error, and
 * nothing stored).
 */
async function exerciseBuy(p: Program, appVersion: string): Promise<void> {
  server.reset();
  const { license } = await newLicense({ productId, maxMachines: 2 });

  // Approved: the program receives the license, already activated here, and stores it.
  const approved = programRunner(p, appId, root);
  const buy = startBuy(p, approved.stateDir);
  const shown = await buy.shown;
  const code = shown.code;
  // The address the service answered (BASE_URL's /device, the code filled in), with the same code shown beside it.
  expect(shown.url).toMatch(/^https?:\/\/[^/]+\/device\?user_code=[A-Z]{4}-[A-Z]{4}$/);
  expect(shown.shownCode).toBe(code);
  const pending = await deviceRequest(code);
  expect({ status: pending.status, machineName: pending.machineName, platform: pending.platform, appVersion: pending.appVersion }).toEqual({
    status: "pending",
    machineName: hostname(),
    platform: PLATFORM,
    appVersion,
  });
  expect(pending.machineFingerprint).toMatch(/^[0-9a-f]{64}$/);
  const approval = (await runOperation(
    "approveDeviceWithLicense",
    { user_code: code.toLowerCase(), license_id: license.id },
    {
      buyer: { email: license.buyerEmail },
    },
  )) as { license_key: string; activated: boolean };
  expect(approval).toMatchObject({ license_key: license.key, activated: true });
  const r = await buy.done;
  expect(r.out, r.out).toMatch(/License valid\./);
  expect(r.out, r.out).toContain(`License key: ${license.key}`);
  expect(r.status, r.out).toBe(0);
  expect(await bound(license.key, pending.machineFingerprint)).toBe(true);
  const machine = await getDb().activation.findUniqueOrThrow({
    where: { licenseId_fingerprint: { licenseId: license.id, fingerprint: pending.machineFingerprint } },
  });
  expect({ machineName: machine.machineName, platform: machine.platform, appVersion: machine.appVersion }).toEqual({
    machineName: hostname(),
    platform: PLATFORM,
    appVersion,
  });
  expect((await deviceRequest(code)).status).toBe("completed");
  // The program polled the token endpoint (and the service validated the key it stored), all as JSON.
  const device = server.state.routes.filter((c) => c.path.startsWith("/api/v1/device/"));
  expect(device.map((c) => c.path).slice(0, 1)).toEqual(["/api/v1/device/authorize"]);
  expect(device.filter((c) => c.path === "/api/v1/device/token" && c.status === 200)).toHaveLength(1);
  expect(device.filter((c) => c.path === "/api/v1/device/token" && c.status !== 200 && c.status !== 400)).toHaveLength(0);
  expect(server.state.calls.some((c) => c.path === "/validate" && c.body.license_key === license.key)).toBe(true);
  expect(approved.stateFile()).toBeDefined();
  // The next start validates the stored key, with nothing to type.
  const again = await approved.run();
  expect(again.out, again.out).toMatch(/License valid\./);
  expect(again.status, again.out).toBe(0);

  // Denied at the page: the program stops with the error, and stores nothing.
  const denied = programRunner(p, appId, root);
  const refused = startBuy(p, denied.stateDir);
  const deniedCode = (await refused.shown).code;
  expect(deniedCode).not.toBe(code);
  await runOperation("denyDevice", { user_code: deniedCode.replace("-", "") });
  const d = await refused.done;
  expect(d.out, d.out).toMatch(/declined in the browser \(access_denied\)/);
  expect(d.out, d.out).not.toMatch(/License key:/);
  expect(d.status, d.out).toBe(1);
  expect(denied.stateFile()).toBeUndefined();
  expect((await deviceRequest(deniedCode)).status).toBe("denied");
}

const needs = (what: string) => ` (needs ${what})`;

describe.skipIf(!tools.machineId)(
  "buying and activating from inside the app with the generated code" + (tools.machineId ? "" : needs("/etc/machine-id")),
  () => {
    it.skipIf(!tools.gcc)(
      "C: builds with -Wall -Wextra -Werror; license_buy_and_activate receives an approved license and stops on a denied one" +
        needs("gcc, libcurl4-openssl-dev, libssl-dev"),
      async () => {
        const { dir } = generate("c");
        mustRun("gcc", ["-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "license.c", "main.c", "license_file.c"], { cwd: dir });
        const version = `-DAPP_VERSION=${JSON.stringify(APP_VERSION)}`; // a C string literal
        mustRun("gcc", ["-std=c99", "-O1", version, "main.c", "license.c", "license_file.c", "-lcurl", "-lcrypto", "-o", "app"], { cwd: dir });
        await exerciseBuy({ cmd: join(dir, "app"), args: [], cwd: dir }, APP_VERSION);
      },
      BUILD,
    );

    it.skipIf(!tools.gxx)(
      "C++: builds with -Wall -Wextra -Werror; buyAndActivate receives an approved license and stops on a denied one" +
        needs("g++, libcurl4-openssl-dev, libssl-dev"),
      async () => {
        const { dir } = generate("cpp");
        mustRun("g++", ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "license_client.cpp", "main.cpp"], { cwd: dir });
        mustRun("gcc", ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O1", "-c", "license_file.c"], { cwd: dir });
        const version = `-DAPP_VERSION=${JSON.stringify(APP_VERSION)}`;
        mustRun("g++", ["-std=c++17", "-O1", version, "main.cpp", "license_client.cpp", "license_file.o", "-lcurl", "-lcrypto", "-o", "app"], {
          cwd: dir,
        });
        await exerciseBuy({ cmd: join(dir, "app"), args: [], cwd: dir }, APP_VERSION);
      },
      BUILD,
    );

    it.skipIf(!tools.cargo)(
      "Rust (and Tauri's module): builds with -D warnings; buy_and_activate receives an approved license and stops on a denied one" +
        needs("cargo and Debian's librust-{ureq,sha2,serde-json,serde-derive,ring}-dev"),
      async () => {
        const { dir } = generate("rust");
        const tauri = generate("tauri");
        // Tauri's app runs the same module through its buy_license command.
        expect(tauri.markdown).toContain("buy_license");
        await exerciseBuy({ cmd: buildRust(dir, RUST_APP_VERSION), args: [], cwd: dir }, RUST_APP_VERSION);
      },
      BUILD,
    );

    it.skipIf(!tools.juce)(
      "JUCE: LicenseManager links against JUCE's modules; buyAndActivate receives an approved license and stops on a denied one" +
        needs("g++, juce-modules-source-data, libcurl4-openssl-dev, libssl-dev, zlib1g-dev"),
      async () => {
        const { dir } = generate("juce");
        await exerciseBuy({ cmd: await buildJuceCli(dir, root, APP_VERSION), args: [], cwd: dir, stateInHome: true }, APP_VERSION);
      },
      BUILD,
    );

    it.skipIf(!tools.dotnet)(
      "C#: builds, and BuyAndActivateAsync receives an approved license and stops on a denied one" +
        needs("the .NET 8 SDK (dotnet); Mono's mcs cannot compile C# 10 and Debian has no .NET SDK"),
      async () => {
        const { dir } = generate("csharp");
        writeFileSync(
          join(dir, "app.csproj"),
          `<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><OutputType>Exe</OutputType><TargetFramework>net8.0</TargetFramework><Nullable>enable</Nullable><ImplicitUsings>enable</ImplicitUsings><Version>${RUST_APP_VERSION}</Version></PropertyGroup><ItemGroup><PackageReference Include="BouncyCastle.Cryptography" Version="2.*" /></ItemGroup></Project>`,
        );
        mustRun("dotnet", ["build", "-warnaserror", "-o", "out"], { cwd: dir, timeout: 300_000 });
        // The state lives under ApplicationData, which .NET takes from XDG_CONFIG_HOME on Linux.
        await exerciseBuy({ cmd: "dotnet", args: [join(dir, "out", "app.dll")], cwd: dir }, RUST_APP_VERSION);
      },
      BUILD,
    );
  },
);
