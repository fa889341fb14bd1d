/**
 * Buying and activating from inside an app, with the code generate_license_integration returns: the generated
 * Python program (`license_check.py --buy`) and the Node module Electron's main process uses (`buyAndActivate()`),
 * run with their real interpreters against the service in this process (tests/helpers/app-server.ts: the front door,
 * the lean path and every route file). The program prints its verification address; the test plays the buyer
 * through the operations' REST routes (approve with a license they hold, buy in test mode and pay, deny) or lets the
 * request expire, and the program ends with a key already activated on its machine, or cleanly with its error.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generateLicenseIntegration } from "@/lib/agents/devtools";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { getDb } from "@/lib/db";
import { rateLimiter } from "@/lib/http/rate-limit";
import { issueLicense } from "@/lib/licensing/issue-license";
import { validateLicense } from "@/lib/licensing/validate-license";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { extractFiles, tools, writeElectronBuyCli } from "../helpers/integration-programs";
import { buyerCookie, createTestProduct, sellingDeveloper } from "../helpers/sellers";

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const pluginId = `com.devicebuy.app${run}`;
const buyer = `device-int-${run}@example.com`;
const root = mkdtempSync(join(tmpdir(), "device-integrations-"));
/** Each run polls at the server's interval (5 s) at least once, besides the interpreter's start. */
const RUN_TIMEOUT = 60_000;
let app: AppServer;
let productId = "";
let cookie = "";

beforeAll(async () => {
  app = await startAppServer();
  const seller = `device-int-seller-${run}@example.com`;
  const dev = await sellingDeveloper(seller, { name: `Device Integrations ${run}`, website: null, bio: "" });
  productId = (await createTestProduct(dev.id, `Device Buy ${run}`, pluginId, { max_machines: 2 })).id;
  cookie = await buyerCookie(buyer);
});
beforeEach(() => rateLimiter().reset());
afterAll(async () => {
  await app.close();
  rmSync(root, { recursive: true, force: true });
});

function generate(language: "python" | "electron"): string {
  const dir = mkdtempSync(join(root, `${language}-`));
  extractFiles(generateLicenseIntegration({ language, app_id: pluginId, server_url: app.url }), dir);
  return dir;
}

interface Started {
  child: ChildProcess;
  /** The user code from the address the program printed. */
  userCode: string;
  verificationUrl: string;
  done: Promise<{ status: number | null; out: string }>;
}

/** Starts the program with a fresh configuration directory and waits until it prints its verification address. */
function start(cmd: string, args: string[], cwd: string): Promise<Started> {
  const config = mkdtempSync(join(root, "config-"));
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: config };
  delete env.LICENSE_KEY;
  const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], timeout: RUN_TIMEOUT });
  let out = "";
  return new Promise((resolve, reject) => {
    let announced = false;
    const done = new Promise<{ status: number | null; out: string }>((finish) => child.on("close", (status) => finish({ status, out })));
    const read = (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const m = /(https?:\/\/\S+\/device\?user_code=([A-Z]{4}-[A-Z]{4}))/.exec(out);
      if (m && !announced) {
        announced = true;
        resolve({ child, userCode: m[2]!, verificationUrl: m[1]!, done });
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("error", reject);
    void done.then((r) => {
      if (!announced) reject(new Error(`the program ended without a verification address:\n${r.out}`));
    });
  });
}

const requestOf = (userCode: string) => getDb().deviceAuthorization.findUniqueOrThrow({ where: { userCode: userCode.replace("-", "") } });

/** The buyer's approval through its REST route, as the verification page's form sends it (session cookie, our origin). */
async function approveWithHeldLicense(userCode: string) {
  const license = await issueLicense(getDb(), { productId, buyerEmail: buyer, maxMachines: 2, source: "purchase" });
  const r = await app.post("/api/v1/device/approve", { user_code: userCode, license_id: license.id }, { cookie, origin: app.url });
  expect(r.status, r.text).toBe(200);
  return license.key;
}

/** The buyer pays for a new license from the verification page: the device checkout, then test mode's Pay. */
async function buyAndPay(userCode: string): Promise<string> {
  const r = await app.post("/api/v1/device/checkout", { user_code: userCode, buyer_email: buyer });
  expect(r.status, r.text).toBe(200);
  await payTestCheckout(r.body.session_id);
  return (await getDb().license.findUniqueOrThrow({ where: { orderId: r.body.session_id } })).key;
}

async function expectActivated(started: Started, key: string): Promise<void> {
  const { status, out } = await started.done;
  expect(out, out).toContain(`Activated license key ${key} on this machine.`);
  expect(out).toMatch(/License valid/);
  expect(status, out).toBe(0);
  const req = await requestOf(started.userCode);
  expect(req.status).toBe("completed");
  const check = await validateLicense({ license_key: key, machine_fingerprint: req.machineFingerprint, plugin_id: pluginId });
  expect(check).toMatchObject({ valid: true, machine_bound: true });
}

async function expectEnded(started: Started, code: string): Promise<void> {
  const { status, out } = await started.done;
  expect(out, out).toContain(`Activation failed (${code})`);
  expect(status, out).toBe(1);
}

async function deny(userCode: string): Promise<void> {
  const r = await app.post("/api/v1/device/deny", { user_code: userCode });
  expect(r.status, r.text).toBe(200);
}

async function expire(userCode: string): Promise<void> {
  await getDb().deviceAuthorization.update({ where: { userCode: userCode.replace("-", "") }, data: { expiresAt: new Date(Date.now() - 1000) } });
}

const programs = {
  python: {
    available: tools.python && tools.machineId,
    start: (dir: string) => start("python3", ["license_check.py", "--buy", "--app-version", "3.0.0"], dir),
  },
  electron: {
    available: tools.machineId,
    start: (dir: string) => {
      writeElectronBuyCli(dir, pluginId, "3.0.0");
      return start(process.execPath, ["buy-cli.js"], dir);
    },
  },
};

for (const [language, program] of Object.entries(programs) as Array<[keyof typeof programs, (typeof programs)["python"]]>) {
  describe.skipIf(!program.available)(`${language} (needs ${language === "python" ? "python3 and " : ""}/etc/machine-id)`, () => {
    let dir = "";
    beforeAll(() => {
      dir = generate(language);
    });

    it(
      "approved with a license the buyer holds: prints the key, activated on this machine",
      async () => {
        const started = await program.start(dir);
        expect(started.verificationUrl).toBe(`${app.url}/device?user_code=${started.userCode}`);
        const req = await requestOf(started.userCode);
        expect(req).toMatchObject({ status: "pending", appVersion: "3.0.0", productId });
        await expectActivated(started, await approveWithHeldLicense(started.userCode));
      },
      RUN_TIMEOUT,
    );

    it(
      "bought and paid in test mode: prints the new key, activated on this machine",
      async () => {
        const started = await program.start(dir);
        await expectActivated(started, await buyAndPay(started.userCode));
      },
      RUN_TIMEOUT,
    );

    it(
      "denied: ends with access_denied",
      async () => {
        const started = await program.start(dir);
        await deny(started.userCode);
        await expectEnded(started, "access_denied");
      },
      RUN_TIMEOUT,
    );

    it(
      "expired: ends with expired_token",
      async () => {
        const started = await program.start(dir);
        await expire(started.userCode);
        await expectEnded(started, "expired_token");
      },
      RUN_TIMEOUT,
    );
  });
}
