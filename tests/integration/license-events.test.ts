import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buyerReleaseMachine } from "@/lib/buyer/licenses";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { issueComplimentaryLicense, sellerReleaseMachine, sellerSetLicenseStatus } from "@/lib/selling/licenses";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { deactivateMachine } from "@/lib/licensing/deactivate-machine";
import { restoreMachine, UNDO_WINDOW_MS } from "@/lib/licensing/restore-machine";
import { validateLicense } from "@/lib/licensing/validate-license";
import { flushValidations } from "@/lib/licensing/validation-log";
import { refundOrder } from "@/lib/refunds/refund-order";
import { EVENT_LABELS } from "@/lib/seller-api/licenses";
import { GET as eventsRoute } from "@/app/api/v1/licenses/[id]/events/route";
import { POST as refundRoute } from "@/app/api/v1/orders/[id]/refunds/route";
import { POST as revokeRoute } from "@/app/api/v1/licenses/[id]/revoke/route";
import { call, expectProblem } from "../helpers/http";
import { sellerToken } from "../helpers/seller-tokens";
import { simulateTestDispute } from "@/lib/refunds/test-disputes";
import { fingerprint } from "../helpers/licenses";
import { createTestProduct, sellingDeveloper } from "../helpers/sellers";

// The license event log and the seller webhooks queued with each change, in the transaction of the change.
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const operator = { email: `ops-${run}@example.com` };
const seller = { id: "", email: `events-${run}@example.com`, productId: "", pluginId: "", endpointId: "" };
const quiet = { id: "", email: `quiet-${run}@example.com`, productId: "" };
const SELLER = { type: "seller" as const, name: seller.email };
let seq = 0;

const product = (developerId: string, label: string, maxMachines: number) =>
  createTestProduct(developerId, `Logged ${label} ${run}`, `com.events.${label}${run}`, {
    category: "dev-tools",
    max_machines: maxMachines,
    price_cents: 2000,
  });

beforeAll(async () => {
  process.env.PAYMENTS = "test";
  resetEnv();
  const dev = await sellingDeveloper(seller.email, { name: `Event Studio ${run}`, website: null, bio: "" });
  seller.id = dev.id;
  const p = await product(dev.id, "main", 3);
  seller.productId = p.id;
  seller.pluginId = p.pluginId;
  seller.endpointId = `we_${randomBytes(8).toString("hex")}`;
  await getDb().sellerWebhookEndpoint.create({
    data: {
      id: seller.endpointId,
      developerId: dev.id,
      url: "https://hooks.example.com/in",
      secret: `whsec_${randomBytes(24).toString("base64")}`,
      events: [],
    },
  });
  const other = await sellingDeveloper(quiet.email, { name: `Quiet Studio ${run}`, website: null, bio: "" });
  quiet.id = other.id;
  quiet.productId = (await product(other.id, "quiet", 2)).id;
});
afterAll(async () => {
  Reflect.deleteProperty(process.env, "PAYMENTS");
  resetEnv();
  await disconnectDb();
});

async function paid() {
  const { session_id } = await createCheckout({ product_id: seller.productId, buyer_email: `ev-buyer-${run}-${++seq}@example.com` });
  await payTestCheckout(session_id);
  const order = await getDb().order.findUniqueOrThrow({ where: { id: session_id }, include: { license: true } });
  return { order, license: order.license! };
}

const events = (licenseId: string) => getDb().licenseEvent.findMany({ where: { licenseId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
const types = async (licenseId: string) => (await events(licenseId)).filter((e) => e.type !== "validation_failed").map((e) => e.type);

interface Hook {
  type: string;
  data: Record<string, any>;
}
/** The seller's queued webhooks about a subject (license or order id), oldest first. */
async function hooks(subject: string): Promise<Hook[]> {
  const rows = await getDb().webhookDelivery.findMany({
    where: { kind: "seller", dedupeKey: { startsWith: `sw:${subject}:` } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  for (const r of rows) expect(r.targetId).toBe(seller.endpointId);
  return rows.map((r) => JSON.parse(r.payload) as Hook);
}

describe("the license event log", () => {
  it("issue, activate with details, aggregated validation failures, release by the seller, undo within the window", async () => {
    const { order, license } = await paid();
    const [issued] = await events(license.id);
    expect(issued).toMatchObject({ type: "issued", actorType: "payment", actor: "test", detail: { source: "purchase", order_id: order.id } });
    const orderHooks = await hooks(order.id);
    expect(orderHooks.map((h) => h.type)).toEqual(["order.paid"]);
    expect(orderHooks[0]!.data.order).toMatchObject({
      id: order.id,
      product_id: seller.productId,
      amount_cents: 2000,
      currency: "usd",
      status: "paid",
    });
    expect(orderHooks[0]!.data.order.paid_at).toEqual(expect.any(String));

    const fp = fingerprint();
    const req = { license_key: license.key, machine_fingerprint: fp, plugin_id: seller.pluginId };
    const before = Date.now();
    const activated = await activateMachine({ ...req, machine_name: "Studio Mac", platform: "macOS 15.1 arm64", app_version: "2.4.0" });
    expect(activated.code).toBe("ACTIVATED");
    const machine = await getDb().activation.findFirstOrThrow({ where: { licenseId: license.id, fingerprint: fp } });
    expect(machine).toMatchObject({ machineName: "Studio Mac", platform: "macOS 15.1 arm64", appVersion: "2.4.0" });
    expect(machine.lastValidatedAt!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    const act = (await events(license.id)).find((e) => e.type === "activated")!;
    expect(act).toMatchObject({
      actorType: "app",
      actor: null,
      detail: { fingerprint: fp, machine_name: "Studio Mac", platform: "macOS 15.1 arm64", app_version: "2.4.0" },
    });

    // Failures of this known license: counted per code and hour into one row each, across flushes.
    const other = { ...req, machine_fingerprint: fingerprint() };
    for (let i = 0; i < 3; i++) expect((await validateLicense(other)).code).toBe("FINGERPRINT_SCOPE_MISMATCH");
    await validateLicense({ ...req, plugin_id: "com.events.someone-else" });
    await flushValidations();
    for (let i = 0; i < 2; i++) await validateLicense(other);
    // Two flushes racing on the same row (as two instances would): neither count is lost.
    const a = flushValidations();
    await validateLicense(other);
    await Promise.all([a, flushValidations()]);
    expect((await validateLicense(req)).valid).toBe(true);
    await validateLicense({ ...req, license_key: "ZZZZ-ZZZZ-ZZZZ-ZZZZ" });
    await flushValidations();
    const failed = (await events(license.id)).filter((e) => e.type === "validation_failed");
    expect(failed.map((e) => [e.code, e.count]).sort()).toEqual([
      ["FINGERPRINT_SCOPE_MISMATCH", 6],
      ["PRODUCT_MISMATCH", 1],
    ]);
    const hour = failed[0]!.hour!.getTime();
    expect(hour % 3_600_000).toBe(0);
    expect(failed[0]!.lastAt.getTime()).toBeGreaterThanOrEqual(hour);
    expect(await getDb().licenseEvent.count({ where: { code: "NOT_FOUND" } })).toBe(0);

    await sellerReleaseMachine(seller.id, license.id, machine.id, SELLER);
    expect(await getDb().activation.count({ where: { licenseId: license.id } })).toBe(0);
    const released = (await events(license.id)).find((e) => e.type === "released")!;
    expect(released).toMatchObject({
      actorType: "seller",
      actor: seller.email,
      detail: { fingerprint: fp, activation_id: machine.id, machine_name: "Studio Mac" },
    });

    const restored = await restoreMachine(license.id, fp, SELLER);
    expect(restored).toMatchObject({ restored: true, activationId: machine.id, activeMachines: 1 });
    expect(await getDb().activation.findUniqueOrThrow({ where: { id: machine.id } })).toMatchObject({
      fingerprint: fp,
      machineName: "Studio Mac",
      appVersion: "2.4.0",
      activatedAt: machine.activatedAt,
    });
    expect((await validateLicense(req)).valid).toBe(true);
    // A repeated undo changes nothing.
    expect(await restoreMachine(license.id, fp, SELLER)).toMatchObject({ restored: false, activeMachines: 1 });

    await sellerReleaseMachine(seller.id, license.id, machine.id, SELLER);
    await expect(restoreMachine(license.id, fp, SELLER, Date.now() + UNDO_WINDOW_MS + 1000)).rejects.toMatchObject({
      code: "undo_expired",
      status: 409,
    });
    // The app's own release is "deactivated"; the buyer's from My licenses is "released" by the buyer.
    await activateMachine(req);
    expect((await deactivateMachine({ license_key: license.key, machine_fingerprint: fp })).deactivated).toBe(true);
    const again = await activateMachine(req);
    expect(again.code).toBe("ACTIVATED");
    const now = await getDb().activation.findFirstOrThrow({ where: { licenseId: license.id, fingerprint: fp } });
    await buyerReleaseMachine(license.buyerEmail.toUpperCase(), license.id, now.id);

    expect(await types(license.id)).toEqual([
      "issued",
      "activated",
      "released",
      "restored",
      "released",
      "activated",
      "deactivated",
      "activated",
      "released",
    ]);
    const all = await events(license.id);
    expect(all.find((e) => e.type === "deactivated")).toMatchObject({ actorType: "app" });
    expect(all.at(-1)).toMatchObject({ actorType: "buyer", actor: license.buyerEmail });

    const licenseHooks = await hooks(license.id);
    expect(licenseHooks.map((h) => h.type)).toEqual([
      "license.created",
      "license.activated",
      "license.deactivated",
      "license.activated",
      "license.deactivated",
      "license.activated",
      "license.deactivated",
      "license.activated",
      "license.deactivated",
    ]);
    expect(licenseHooks[0]!.data.license).toMatchObject({
      id: license.id,
      key: license.key,
      product_id: seller.productId,
      plugin_id: seller.pluginId,
      buyer_email: license.buyerEmail,
      status: "active",
      revocation: null,
      max_machines: 3,
      active_machines: 0,
      source: "purchase",
      order_id: order.id,
      expires_at: null,
    });
    expect(licenseHooks[1]!.data).toMatchObject({
      license: { active_machines: 1 },
      machine: { fingerprint: fp, name: "Studio Mac", platform: "macOS 15.1 arm64", app_version: "2.4.0" },
      actor: { type: "app", name: null },
    });
    expect(licenseHooks[2]!.data).toMatchObject({
      license: { active_machines: 0 },
      machine: { fingerprint: fp },
      actor: { type: "seller", name: seller.email },
    });
  });

  it("undo needs a free seat", async () => {
    const { license } = await paid();
    const fps = [fingerprint(), fingerprint(), fingerprint(), fingerprint()];
    for (const fp of fps.slice(0, 3)) await activateMachine({ license_key: license.key, machine_fingerprint: fp, plugin_id: seller.pluginId });
    const first = await getDb().activation.findFirstOrThrow({ where: { licenseId: license.id, fingerprint: fps[0] } });
    await sellerReleaseMachine(seller.id, license.id, first.id, SELLER);
    await activateMachine({ license_key: license.key, machine_fingerprint: fps[3]!, plugin_id: seller.pluginId });
    await expect(restoreMachine(license.id, fps[0]!, SELLER)).rejects.toMatchObject({ code: "no_free_seat", status: 409 });
    expect((await getDb().license.findUniqueOrThrow({ where: { id: license.id } })).activeMachines).toBe(3);
  });

  it("revoke and reinstate by the seller, with the reason; racing revocations log one", async () => {
    const { license } = await paid();
    const results = await Promise.allSettled([0, 1, 2].map(() => sellerSetLicenseStatus(seller.id, license.id, false, "Chargeback fraud", SELLER)));
    expect(results.every((r) => r.status === "fulfilled")).toBe(true);
    await sellerSetLicenseStatus(seller.id, license.id, true, undefined, SELLER);
    await sellerSetLicenseStatus(seller.id, license.id, true, undefined, SELLER);
    expect(await types(license.id)).toEqual(["issued", "revoked", "reinstated"]);
    const revoked = (await events(license.id)).find((e) => e.type === "revoked")!;
    expect(revoked).toMatchObject({ actorType: "seller", actor: seller.email, detail: { reason: "Chargeback fraud" } });
    const h = await hooks(license.id);
    expect(h.map((x) => x.type)).toEqual(["license.created", "license.revoked", "license.reinstated"]);
    expect(h[1]!.data).toMatchObject({
      license: { status: "revoked", revocation: "seller" },
      reason: "Chargeback fraud",
      actor: { type: "seller", name: seller.email },
    });
    expect(h[2]!.data.license).toMatchObject({ status: "active", revocation: null });
  });

  it("refunds: a partial one is announced with its amount; a full one revokes the license, logged with who refunded", async () => {
    const { order, license } = await paid();
    await refundOrder({
      orderId: order.id,
      amountCents: 500,
      reason: "Partial goodwill",
      actor: { kind: "seller", developerId: seller.id, email: seller.email },
    });
    expect(await types(license.id)).toEqual(["issued"]);
    await refundOrder({ orderId: order.id, reason: "Did not work for them", actor: { kind: "seller", developerId: seller.id, email: seller.email } });
    expect(await types(license.id)).toEqual(["issued", "refunded"]);
    expect((await events(license.id)).at(-1)).toMatchObject({ actorType: "seller", actor: seller.email, detail: { order_id: order.id } });
    const o = await hooks(order.id);
    expect(o.map((h) => h.type)).toEqual(["order.paid", "order.refunded", "order.refunded"]);
    expect(o[1]!.data).toMatchObject({
      order: { id: order.id, refunded_cents: 500 },
      refund: { amount_cents: 500, currency: "usd", full: false, initiated_by: "seller" },
    });
    expect(o[2]!.data).toMatchObject({ order: { refunded_cents: 2000 }, refund: { amount_cents: 1500, full: true } });
    const l = await hooks(license.id);
    expect(l.map((h) => h.type)).toEqual(["license.created", "license.revoked"]);
    expect(l[1]!.data.license).toMatchObject({ status: "revoked", revocation: "refunded" });
  });

  it("disputes: opened suspends (disputed), won reinstates; lost revokes; each told to the seller", async () => {
    const won = await paid();
    await simulateTestDispute(won.order.id, "open", operator);
    await simulateTestDispute(won.order.id, "won", operator);
    expect(await types(won.license.id)).toEqual(["issued", "disputed", "dispute_won"]);
    expect((await events(won.license.id)).at(-1)).toMatchObject({ actorType: "payment", actor: "test" });
    expect((await hooks(won.license.id)).map((h) => h.type)).toEqual(["license.created", "license.revoked", "license.reinstated"]);
    const o = await hooks(won.order.id);
    expect(o.map((h) => h.type)).toEqual(["order.paid", "dispute.opened", "dispute.closed"]);
    expect(o[1]!.data).toMatchObject({
      order: { dispute_status: "open" },
      dispute: { id: `dp_test_${won.order.id}`, amount_cents: 2000, currency: "usd" },
    });
    expect(o[2]!.data).toMatchObject({ order: { dispute_status: "won" }, dispute: { outcome: "won" } });

    const lost = await paid();
    await simulateTestDispute(lost.order.id, "open", operator);
    await simulateTestDispute(lost.order.id, "lost", operator);
    expect(await types(lost.license.id)).toEqual(["issued", "disputed", "dispute_lost"]);
    const l = await hooks(lost.license.id);
    expect(l.map((h) => h.type)).toEqual(["license.created", "license.revoked", "license.revoked"]);
    expect(l[2]!.data.license).toMatchObject({ status: "revoked", revocation: "dispute_lost" });
    expect((await hooks(lost.order.id)).at(-1)!.data).toMatchObject({ dispute: { outcome: "lost" } });
  });

  it("racing activations for three seats log exactly three", async () => {
    const { license } = await paid();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => activateMachine({ license_key: license.key, machine_fingerprint: fingerprint(), plugin_id: seller.pluginId })),
    );
    expect(results.filter((r) => r.code === "ACTIVATED")).toHaveLength(3);
    expect((await types(license.id)).filter((t) => t === "activated")).toHaveLength(3);
    expect((await hooks(license.id)).filter((h) => h.type === "license.activated")).toHaveLength(3);
  });

  it("a seller without an endpoint gets the log but no webhook", async () => {
    const l = await issueComplimentaryLicense(quiet.id, { product_id: quiet.productId, buyer_email: `gift-${run}@example.com` }, Date.now(), {
      type: "seller",
      name: "token:ci",
    });
    expect(await events(l.id)).toMatchObject([{ type: "issued", actorType: "seller", actor: "token:ci", detail: { source: "complimentary" } }]);
    expect(await getDb().webhookDelivery.count({ where: { kind: "seller", dedupeKey: { startsWith: `sw:${l.id}:` } } })).toBe(0);
  });
});

describe("the event log through the seller API", () => {
  interface EventOut {
    type: string;
    actor: { type: string; name: string | null };
    summary: string;
    detail: Record<string, unknown>;
  }
  const eventsOf = (bearer: string, licenseId: string, query = "") =>
    call<{ events: EventOut[]; next_cursor: string | null }>(eventsRoute, `/api/v1/licenses/${licenseId}/events${query}`, {
      headers: { authorization: `Bearer ${bearer}` },
      params: { id: licenseId },
    });
  /** A summary that says its first words twice ("Refunded: Refunded: …"). */
  const repeatsItself = (summary: string) => /^(.{3,}?):\s*\1\b/i.test(summary);

  it("a refund made with a seller API token is logged as that token, as a revocation is; the summary says Refunded once", async () => {
    const name = `ci refunds ${run}`;
    const bearer = await sellerToken(seller.id, ["orders", "licenses"], { name });
    const { order, license } = await paid();
    const refunded = await call(refundRoute, `/api/v1/orders/${order.id}/refunds`, {
      method: "POST",
      headers: { authorization: `Bearer ${bearer}` },
      json: { reason: "Bought the wrong edition" },
      params: { id: order.id },
    });
    expect(refunded.status, refunded.text).toBe(201);
    expect(refunded.body.refund).toMatchObject({ initiated_by: "seller", actor: `token:${name}` });
    const logged = await eventsOf(bearer, license.id);
    expect(logged.status, logged.text).toBe(200);
    expect(logged.body.events[0]).toMatchObject({
      type: "refunded",
      actor: { type: "seller", name: `token:${name}` },
      summary: "Refunded: Bought the wrong edition",
    });
    // The same token revoking: the same actor (the revocation path this follows).
    const { license: other } = await paid();
    const revoked = await call(revokeRoute, `/api/v1/licenses/${other.id}/revoke`, {
      method: "POST",
      headers: { authorization: `Bearer ${bearer}` },
      json: { reason: "Revoked: leaked on a forum" },
      params: { id: other.id },
    });
    expect(revoked.status, revoked.text).toBe(200);
    const revokedLog = await eventsOf(bearer, other.id);
    expect(revokedLog.body.events[0]).toMatchObject({
      type: "revoked",
      actor: { type: "seller", name: `token:${name}` },
      summary: "Revoked: leaked on a forum",
    });
    for (const e of [...logged.body.events, ...revokedLog.body.events]) expect(repeatsItself(e.summary), e.summary).toBe(false);
    // The dashboard's session refunding is still logged by its e-mail.
    const byMail = await paid();
    await refundOrder({
      orderId: byMail.order.id,
      reason: "Refunded: asked twice",
      actor: { kind: "seller", developerId: seller.id, email: seller.email },
    });
    const mailLog = await eventsOf(bearer, byMail.license.id);
    expect(mailLog.body.events[0]).toMatchObject({ actor: { type: "seller", name: seller.email }, summary: "Refunded: asked twice" });
  });

  it("no summary of any kind repeats its own label, whatever the reason already says", async () => {
    const { license } = await paid();
    const at = new Date();
    const kinds = Object.entries(EVENT_LABELS);
    await getDb().licenseEvent.createMany({
      data: kinds.map(([type, label], i) => ({
        licenseId: license.id,
        type,
        actorType: "system",
        actor: null,
        detail: { reason: `${label.toUpperCase()}: why ${type}` },
        createdAt: new Date(at.getTime() + i + 1),
        lastAt: new Date(at.getTime() + i + 1),
      })),
    });
    const bearer = await sellerToken(seller.id, ["read"]);
    const { body } = await eventsOf(bearer, license.id, "?limit=100");
    // Newest first: the rows written here come before the license's own "issued".
    const byType = new Map(body.events.toReversed().map((e) => [e.type, e.summary]));
    for (const [type, label] of kinds) {
      expect(byType.get(type), type).toBe(`${label}: why ${type}`);
      expect(repeatsItself(byType.get(type)!), type).toBe(false);
    }
  });

  it("filters by event type, one or several; an unknown type is a 400 naming the known ones", async () => {
    const bearer = await sellerToken(seller.id, ["licenses"]);
    const { license } = await paid();
    await sellerSetLicenseStatus(seller.id, license.id, false, "test", SELLER);
    await sellerSetLicenseStatus(seller.id, license.id, true, undefined, SELLER);
    await activateMachine({ license_key: license.key, machine_fingerprint: fingerprint(), plugin_id: seller.pluginId });
    const all = await eventsOf(bearer, license.id);
    expect(all.body.events.map((e) => e.type)).toEqual(["activated", "reinstated", "revoked", "issued"]);
    const one = await eventsOf(bearer, license.id, "?type=revoked");
    expect(one.status, one.text).toBe(200);
    expect(one.body.events.map((e) => e.type)).toEqual(["revoked"]);
    const two = await eventsOf(bearer, license.id, `?${new URLSearchParams({ type: "issued, reinstated" }).toString()}`);
    expect(two.body.events.map((e) => e.type)).toEqual(["reinstated", "issued"]);
    // Paged within the filter.
    const first = await eventsOf(bearer, license.id, "?type=issued,revoked,reinstated&limit=2");
    expect(first.body.events.map((e) => e.type)).toEqual(["reinstated", "revoked"]);
    const rest = await eventsOf(bearer, license.id, `?type=issued,revoked,reinstated&limit=2&cursor=${first.body.next_cursor!}`);
    expect(rest.body.events.map((e) => e.type)).toEqual(["issued"]);
    expect(rest.body.next_cursor).toBeNull();
    expect((await eventsOf(bearer, license.id, "?type=refunded")).body.events).toEqual([]);
    expect((await eventsOf(bearer, license.id, "?type=")).body.events).toHaveLength(4);

    const unknown = await eventsOf(bearer, license.id, "?type=revoked,deleted");
    expectProblem(unknown, 400, "invalid_query");
    const detail = (unknown.body as unknown as { detail: string }).detail;
    expect(detail).toContain('"deleted"');
    for (const known of ["issued", "revoked", "refunded", "validation_failed"]) expect(detail).toContain(known);
    expectProblem(await eventsOf(bearer, license.id, "?type=%25"), 400, "invalid_query");
  });
});
