import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { POST as authorizeRoute } from "@/app/api/v1/device/authorize/route";
import { POST as tokenRoute } from "@/app/api/v1/device/token/route";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER, rateLimiter } from "@/lib/http/rate-limit";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { issueLicense } from "@/lib/licensing/issue-license";
import { validateLicense } from "@/lib/licensing/validate-license";
import { runOperation } from "@/lib/transports/action";
import { call, expectProblem } from "../helpers/http";
import { fingerprint } from "../helpers/licenses";
import { buyerCookie, createTestProduct, sellingDeveloper } from "../helpers/sellers";

/**
 * Buying and activating from inside an app (RFC 8628's device grant), on both engines: the app's two calls through
 * their REST routes (problem documents with OAuth's names), and the verification page's operations run as its server
 * actions run them (runOperation, with the request's headers): look up, approve with a held license, buy in test
 * mode, deny; pacing (slow_down), expiry, unknown codes, guessing limits and refusals of licenses that are not the
 * buyer's or not of the product.
 */

const request = { headers: new Headers() };
vi.mock("next/headers", () => ({ headers: () => Promise.resolve(request.headers), cookies: () => Promise.resolve({ get: () => undefined }) }));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const ORIGIN = "http://localhost:3000";
const buyers = { a: `device-a-${run}@example.com`, b: `device-b-${run}@example.com` };
const fx = { product: "", pluginId: `com.deviceflow.app${run}`, other: "", otherPluginId: `com.deviceflow.other${run}`, cookieA: "" };

/** The request a page's action runs in: from this client address, with this cookie, from our own page. */
function as(cookie = "", client = "198.51.100.77"): void {
  const h = new Headers({ [CLIENT_ADDRESS_HEADER]: client, origin: ORIGIN });
  if (cookie) h.set("cookie", cookie);
  request.headers = h;
}

const licenseOf = (productId: string, buyerEmail: string, maxMachines = 2) =>
  issueLicense(getDb(), { productId, buyerEmail, maxMachines, source: "purchase" });

async function authorize(machine = fingerprint(`device-${run}-${Math.random()}`), pluginId = fx.pluginId) {
  const r = await call(authorizeRoute, "/api/v1/device/authorize", {
    method: "POST",
    json: { plugin_id: pluginId, machine_fingerprint: machine, machine_name: "Studio  Mac", platform: "linux-x64", app_version: "2.1.0" },
  });
  expect(r.status, r.text).toBe(200);
  const row = await getDb().deviceAuthorization.findUniqueOrThrow({ where: { userCode: String(r.body.user_code).replace("-", "") } });
  return { body: r.body as { device_code: string; user_code: string; interval: number; verification_uri_complete: string }, row, machine };
}

const poll = (deviceCode: string) => call(tokenRoute, "/api/v1/device/token", { method: "POST", json: { device_code: deviceCode } });

/** As if the app had waited its interval (the pacing compares with the last poll's time). */
const waited = (id: string) => getDb().deviceAuthorization.update({ where: { id }, data: { lastPolledAt: new Date(Date.now() - 3_600_000) } });

async function pollAfterWait(id: string, deviceCode: string) {
  await waited(id);
  return poll(deviceCode);
}

function expectGrantError(r: Awaited<ReturnType<typeof poll>>, error: string): void {
  expectProblem(r, 400, error);
  expect(r.body.error).toBe(error);
}

beforeAll(async () => {
  const email = `device-seller-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Device Seller ${run}`, website: null, bio: "" });
  fx.product = (await createTestProduct(dev.id, `Device App ${run}`, fx.pluginId, { max_machines: 2 })).id;
  fx.other = (await createTestProduct(dev.id, `Device Other ${run}`, fx.otherPluginId, { max_machines: 2 })).id;
  fx.cookieA = await buyerCookie(buyers.a);
});

beforeEach(() => {
  rateLimiter().reset();
});

afterAll(() => {
  delete process.env.RATE_LIMIT_DEVICE_CODE_PER_MIN;
  resetEnv();
  rateLimiter().reset();
});

describe("the app's calls", () => {
  it("authorize answers the codes, stores only the device code's hash and the machine, and refuses an unknown product", async () => {
    const { body, row, machine } = await authorize();
    expect(body.device_code).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(body.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(body).toMatchObject({
      verification_uri: "http://localhost:3000/device",
      verification_uri_complete: `http://localhost:3000/device?user_code=${body.user_code}`,
      expires_in: 900,
      interval: 5,
      product_id: fx.product,
    });
    expect(row.deviceCodeHash).toBe(createHash("sha256").update(body.device_code).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(body.device_code);
    expect(row).toMatchObject({
      status: "pending",
      machineFingerprint: machine,
      machineName: "Studio Mac",
      platform: "linux-x64",
      appVersion: "2.1.0",
    });
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBeGreaterThanOrEqual(899_000);

    const unknown = await call(authorizeRoute, "/api/v1/device/authorize", {
      method: "POST",
      json: { plugin_id: `com.nothing.here${run}`, machine_fingerprint: machine },
    });
    expectProblem(unknown, 404, "product_not_found");
    const bad = await call(authorizeRoute, "/api/v1/device/authorize", {
      method: "POST",
      json: { plugin_id: fx.pluginId, machine_fingerprint: "nope" },
    });
    expect(bad.status).toBe(400);
  });

  it("answers authorization_pending, then slow_down with a growing interval when polled too fast (racing polls raise it once)", async () => {
    const { body, row } = await authorize();
    expectGrantError(await poll(body.device_code), "authorization_pending");
    const fast = await poll(body.device_code);
    expectGrantError(fast, "slow_down");
    expect(fast.body.interval).toBe(10);
    const faster = await poll(body.device_code);
    expect(faster.body.interval).toBe(15);
    const raced = await Promise.all([poll(body.device_code), poll(body.device_code)]);
    for (const r of raced) expectGrantError(r, "slow_down");
    expect((await getDb().deviceAuthorization.findUniqueOrThrow({ where: { id: row.id } })).interval).toBe(20);
    // Waiting the interval out: pending again, with the grown interval.
    const later = await pollAfterWait(row.id, body.device_code);
    expectGrantError(later, "authorization_pending");
    expect(later.body.interval).toBe(20);
  });

  it("answers invalid_grant for a device code no request has, and 400 for one that is not a device code", async () => {
    expectGrantError(await poll("A".repeat(43)), "invalid_grant");
    expect((await call(tokenRoute, "/api/v1/device/token", { method: "POST", json: { device_code: "x" } })).status).toBe(400);
  });

  it("answers expired_token once the request expired, and records it", async () => {
    const { body, row } = await authorize();
    await getDb().deviceAuthorization.update({ where: { id: row.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expectGrantError(await poll(body.device_code), "expired_token");
    expect((await getDb().deviceAuthorization.findUniqueOrThrow({ where: { id: row.id } })).status).toBe("expired");
    as(fx.cookieA);
    const view = await runOperation<{ status: string }>("lookupDeviceCode", { body: { user_code: body.user_code } });
    expect(view).toMatchObject({ ok: true, output: { status: "expired" } });
    const license = await licenseOf(fx.product, buyers.a);
    const approve = await runOperation("approveDeviceWithLicense", { body: { user_code: body.user_code, license_id: license.id } });
    expect(approve.ok || approve.problem.code).toBe("device_code_expired");
  });
});

describe("the buyer's side", () => {
  it("looks a code up case-insensitively, with or without the dash", async () => {
    const { body } = await authorize();
    as();
    const typed = body.user_code.replace("-", "").toLowerCase();
    const view = await runOperation<{ user_code: string; product: { id: string }; machine: { name: string } }>("lookupDeviceCode", {
      body: { user_code: typed },
    });
    expect(view.ok && view.output).toMatchObject({
      user_code: body.user_code,
      product: { id: fx.product },
      machine: { name: "Studio Mac", platform: "linux-x64", app_version: "2.1.0" },
    });
  });

  it("limits mistyped codes per client (404 device_code_not_found, then 429) and per code", async () => {
    // The suite sets the limit high; the deployment's default is 10 a minute per client (20 per code).
    process.env.RATE_LIMIT_DEVICE_CODE_PER_MIN = "10";
    resetEnv();
    as("", "198.51.100.90");
    for (let i = 0; i < 10; i++) {
      const r = await runOperation("lookupDeviceCode", { body: { user_code: `BBBB-BBB${"BCDFGHJKLM"[i]}` } });
      expect(r.ok || r.problem.code).toBe("device_code_not_found");
    }
    const eleventh = await runOperation("lookupDeviceCode", { body: { user_code: "BBBB-CCCC" } });
    expect(eleventh.ok || [eleventh.problem.status, eleventh.problem.code]).toEqual([429, "rate_limited"]);
    // Another client is not held back by this one...
    as("", "198.51.100.91");
    const other = await runOperation("lookupDeviceCode", { body: { user_code: "BBBB-CCCC" } });
    expect(other.ok || other.problem.code).toBe("device_code_not_found");
    // ...but one code tried from many addresses is limited too.
    for (let i = 0; i < 20; i++) {
      as("", `203.0.113.${i + 1}`);
      await runOperation("lookupDeviceCode", { body: { user_code: "DDDD-DDDD" } });
    }
    as("", "203.0.113.200");
    const spread = await runOperation("lookupDeviceCode", { body: { user_code: "dddd-dddd" } });
    expect(spread.ok || spread.problem.status).toBe(429);
  });

  it("approves with a license the buyer holds: the poll returns the key, the machine is activated once, and a second poll answers the same", async () => {
    const license = await licenseOf(fx.product, buyers.a);
    const { body, row, machine } = await authorize();
    as(fx.cookieA);
    const approved = await runOperation<{ license_key: string }>("approveDeviceWithLicense", {
      body: { user_code: body.user_code, license_id: license.id },
    });
    expect(approved.ok && approved.output).toMatchObject({ license_key: license.key, activated: true, code: "ACTIVATED" });

    const first = await pollAfterWait(row.id, body.device_code);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({
      license_key: license.key,
      plugin_id: fx.pluginId,
      activated: true,
      machine_fingerprint: machine,
      code: "ACTIVATED",
      max_machines: 2,
      active_machines: 1,
      expires_at: null,
    });
    const activation = await getDb().activation.findUniqueOrThrow({
      where: { licenseId_fingerprint: { licenseId: license.id, fingerprint: machine } },
    });
    expect(activation).toMatchObject({ machineName: "Studio Mac", platform: "linux-x64", appVersion: "2.1.0" });
    expect(first.body.activated_at).toBe(activation.activatedAt.toISOString());
    expect((await validateLicense({ license_key: license.key, machine_fingerprint: machine, plugin_id: fx.pluginId })).code).toBe("VALID");

    const second = await pollAfterWait(row.id, body.device_code);
    expect(second.body).toEqual(first.body);
    expect(await getDb().activation.count({ where: { licenseId: license.id } })).toBe(1);
    expect((await getDb().deviceAuthorization.findUniqueOrThrow({ where: { id: row.id } })).status).toBe("completed");
    // Done is done: approving again, buying or denying is refused.
    const again = await runOperation("approveDeviceWithLicense", { body: { user_code: body.user_code, license_id: license.id } });
    expect(again.ok || again.problem.code).toBe("device_request_completed");
    const deny = await runOperation("denyDevice", { body: { user_code: body.user_code } });
    expect(deny.ok || deny.problem.code).toBe("device_request_completed");
  });

  it("refuses a license of another product or of another buyer (404), and a full license with its licensing code (409), leaving the request pending", async () => {
    const { body, row } = await authorize();
    as(fx.cookieA);
    const otherProduct = await licenseOf(fx.other, buyers.a);
    const r1 = await runOperation("approveDeviceWithLicense", { body: { user_code: body.user_code, license_id: otherProduct.id } });
    expect(r1.ok || [r1.problem.status, r1.problem.code]).toEqual([404, "license_not_found"]);
    const othersLicense = await licenseOf(fx.product, buyers.b);
    const r2 = await runOperation("approveDeviceWithLicense", { body: { user_code: body.user_code, license_id: othersLicense.id } });
    expect(r2.ok || [r2.problem.status, r2.problem.code]).toEqual([404, "license_not_found"]);

    const full = await licenseOf(fx.product, buyers.a, 1);
    await activateMachine({ license_key: full.key, machine_fingerprint: fingerprint(`full-${run}`), plugin_id: fx.pluginId });
    const r3 = await runOperation("approveDeviceWithLicense", { body: { user_code: body.user_code, license_id: full.id } });
    expect(r3.ok).toBe(false);
    if (!r3.ok) {
      expect([r3.problem.status, r3.problem.code, r3.problem.extra.members?.activation_code]).toEqual([
        409,
        "activation_refused",
        "TOO_MANY_MACHINES",
      ]);
    }
    expect(await getDb().deviceAuthorization.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ status: "pending", licenseId: null });
    expectGrantError(await pollAfterWait(row.id, body.device_code), "authorization_pending");
    // Without a buyer session the approval is refused outright.
    as();
    const r4 = await runOperation("approveDeviceWithLicense", { body: { user_code: body.user_code, license_id: full.id } });
    expect(r4.ok || r4.problem.status).toBe(401);
  });

  it("buys in test mode: the poll waits for the payment, then returns the new license already activated", async () => {
    const { body, row, machine } = await authorize();
    as();
    const started = await runOperation<{ url: string; session_id: string }>("startDeviceCheckout", {
      body: { user_code: body.user_code, buyer_email: `device-buyer-${run}@example.com` },
    });
    expect(started.ok).toBe(true);
    if (!started.ok) throw new Error(`startDeviceCheckout refused: ${started.problem.code}`);
    expect((await getDb().deviceAuthorization.findUniqueOrThrow({ where: { id: row.id } })).orderId).toBe(started.output.session_id);
    expectGrantError(await pollAfterWait(row.id, body.device_code), "authorization_pending");

    await payTestCheckout(started.output.session_id);
    const license = await getDb().license.findUniqueOrThrow({ where: { orderId: started.output.session_id } });
    const paid = await pollAfterWait(row.id, body.device_code);
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({
      license_key: license.key,
      activated: true,
      code: "ACTIVATED",
      machine_fingerprint: machine,
      active_machines: 1,
    });
    expect((await validateLicense({ license_key: license.key, machine_fingerprint: machine, plugin_id: fx.pluginId })).machine_bound).toBe(true);
    expect(await getDb().deviceAuthorization.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
      status: "completed",
      licenseId: license.id,
      buyerEmail: `device-buyer-${run}@example.com`,
    });
    expect((await pollAfterWait(row.id, body.device_code)).body).toEqual(paid.body);
  });

  it("denies: the poll answers access_denied, denying again changes nothing, and nothing can approve it after", async () => {
    const { body, row } = await authorize();
    as();
    const denied = await runOperation("denyDevice", { body: { user_code: body.user_code } });
    expect(denied).toMatchObject({ ok: true, output: { status: "denied" } });
    expect(await runOperation("denyDevice", { body: { user_code: body.user_code } })).toMatchObject({ ok: true });
    expectGrantError(await pollAfterWait(row.id, body.device_code), "access_denied");
    as(fx.cookieA);
    const license = await licenseOf(fx.product, buyers.a);
    const approve = await runOperation("approveDeviceWithLicense", { body: { user_code: body.user_code, license_id: license.id } });
    expect(approve.ok || approve.problem.code).toBe("device_request_denied");
    const buy = await runOperation("startDeviceCheckout", { body: { user_code: body.user_code, buyer_email: buyers.a } });
    expect(buy.ok || buy.problem.code).toBe("device_request_denied");
    expect(await getDb().activation.count({ where: { licenseId: license.id } })).toBe(0);
  });
});
