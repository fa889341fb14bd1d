import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { completeSession, createSession } from "@/lib/acp/checkout-sessions";
import { delegatePayment, delegatePaymentRequestSchema } from "@/lib/acp/delegate-payment";
import { recordAcpOrderEvent } from "@/lib/acp/order-events";
import { completeSessionSchema } from "@/lib/acp/schemas";
import { registerAgentPlatform, revokeAgentPlatform, rotateAgentPlatformSecret, setAgentPlatformWebhook } from "@/lib/acp/platforms";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { createProduct } from "@/lib/selling/products";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { refundOrder } from "@/lib/refunds/refund-order";
import { simulateTestDispute } from "@/lib/refunds/test-disputes";
import { deliverPendingWebhooks } from "@/lib/webhooks/deliver";
import { listWebhookDeliveries, retryWebhookDelivery } from "@/lib/webhooks/deliveries";
import { delegateBody, testPaymentData } from "../helpers/acp";
import { sellingDeveloper } from "../helpers/sellers";

/**
 * ACP order webhooks, end to end against a real HTTP receiver on this machine: the outbox row is written with the
 * fact (order created, refunded, disputed), the sender POSTs it signed as the spec says, and the receiver checks the
 * signature with its own HMAC code (not ours) and the payload against the official WebhookEvent schema. Failures are
 * retried with backoff until the last attempt; events of one order arrive in order; several senders never send one
 * row twice.
 */

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const operator = { email: `webhooks-ops-${run}@example.com` };
const seller = { productId: "" };
let seq = 0;

// --- The official schema: the webhook spec's WebhookEvent (JSON form, vendored) over the checkout bundle's Order.
const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/acp-2026-04-17/${name}`, import.meta.url), "utf8")) as Record<string, any>;
const webhookSchema = fixture("webhook-event.schema.json");
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(fixture("schema.agentic_checkout.json"));
const validateEvent = ajv.compile(webhookSchema);
/** The header's pattern as the spec's parameter declares it: t=<digits>,v1=<64 hex>. */
const SIGNATURE_PATTERN = new RegExp(webhookSchema.$defs.MerchantSignature.pattern as string);

// --- The receiver: records each request; answers what the test queued (200 once the queue is empty).
interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  signatureValid: boolean;
}
let receiver: Server;
let receiverUrl = "";
let received: Received[] = [];
let answers: Array<number | "redirect"> = [];
let secretOf: () => string = () => "";

/**
 * Verifies Merchant-Signature as a platform would, written here from the spec's text: HMAC-SHA256 over
 * `<t>.<raw body>` with the shared secret, hex, compared in constant time, within 300 s of now.
 */
function verify(header: string | undefined, rawBody: string, secret: string): boolean {
  if (!header || !SIGNATURE_PATTERN.test(header)) return false;
  const parts = new Map(header.split(",").map((p) => p.split("=", 2) as [string, string]));
  const t = Number(parts.get("t"));
  if (!Number.isSafeInteger(t) || Math.abs(Date.now() / 1000 - t) > 300) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${rawBody}`, "utf8").digest();
  const given = Buffer.from(parts.get("v1") ?? "", "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

beforeAll(async () => {
  process.env.PAYMENTS = "test";
  resetEnv();
  const dev = await sellingDeveloper(`webhooks-${run}@example.com`, { name: `Hooked ${run}`, website: null, bio: "" });
  seller.productId = (
    await createProduct(
      dev.id,
      productInputSchema.parse({
        name: `Webhooked ${run}`,
        description: "A product bought by agents in the ACP webhook suite, long enough to be valid.",
        plugin_id: `com.webhooks.app${run}`,
        price_cents: 2500,
        category: "dev-tools",
        max_machines: 2,
        seat_model: "per-machine",
        platforms: ["linux"],
        download_url: "https://example.com/download.zip",
        icon_url: "/icons/tape-warmth.svg",
      }),
      { publish: true },
    )
  ).id;
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const header = req.headers["merchant-signature"];
      received.push({ headers: req.headers, body, signatureValid: verify(typeof header === "string" ? header : undefined, body, secretOf()) });
      const answer = answers.shift() ?? 200;
      if (answer === "redirect") {
        res.writeHead(302, { location: "https://elsewhere.example/hooks" }).end();
      } else {
        res
          .writeHead(answer, { "content-type": "application/json" })
          .end(answer < 300 ? '{"received":true}' : '{"type":"processing_error","code":"down","message":"down for maintenance"}');
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/acp/order_events`;
});
afterEach(async () => {
  received = [];
  answers = [];
  // Each test starts with an empty outbox: what one left pending must not reach the next one's receiver counts.
  await getDb().webhookDelivery.updateMany({ where: { status: "pending" }, data: { status: "failed", lastError: "left by an earlier test" } });
});
afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  Reflect.deleteProperty(process.env, "PAYMENTS");
  resetEnv();
  await disconnectDb();
});

/** A platform whose webhook goes to the receiver; the receiver checks signatures with its secret. */
async function platform(url: string | null = receiverUrl) {
  const made = await registerAgentPlatform(operator, { name: `Platform ${run} ${++seq}`, webhook_url: url });
  let secret = made.webhook_secret;
  secretOf = () => secret;
  return { id: made.platform.id, key: made.api_key, setSecret: (s: string) => (secret = s) };
}

/**
 * An order an agent bought through ACP: a paid test-mode order, linked to a completed checkout session of the
 * platform, with order_create queued in the transaction that links them (as ACP's complete does).
 */
async function acpOrder(platformId: string | null) {
  const { session_id: orderId } = await createCheckout({ product_id: seller.productId, buyer_email: `agent-buyer-${run}-${++seq}@example.com` });
  await payTestCheckout(orderId);
  await getDb().$transaction(async (tx) => {
    await tx.acpCheckoutSession.create({
      data: {
        id: `cs_acp_${randomBytes(8).toString("hex")}`,
        platformId,
        status: "completed",
        productId: seller.productId,
        quantity: 1,
        currency: "usd",
        orderId,
        expiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    await recordAcpOrderEvent(tx, orderId, "order_create");
  });
  return orderId;
}

const rows = (targetId: string) => getDb().webhookDelivery.findMany({ where: { targetId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
const later = (ms: number) => new Date(Date.now() + ms);
const HOUR = 3_600_000;

describe("the vendored webhook spec", () => {
  const official = process.env.ACP_SPEC_DIR ?? "/work/shared/reference/acp-2026-04-17";
  const yamlPath = join(official, "spec/2026-04-17/openapi/openapi.agentic_checkout_webhook.yaml");
  it.skipIf(!existsSync(yamlPath))(`is byte-identical to the official release (skipped: no ACP spec at ${official}; set ACP_SPEC_DIR)`, () => {
    const vendored = readFileSync(new URL("../fixtures/acp-2026-04-17/openapi.agentic_checkout_webhook.yaml", import.meta.url));
    expect(vendored.equals(readFileSync(yamlPath))).toBe(true);
  });

  it("its JSON form carries the YAML's WebhookEvent and Merchant-Signature pattern", () => {
    const yaml = readFileSync(new URL("../fixtures/acp-2026-04-17/openapi.agentic_checkout_webhook.yaml", import.meta.url), "utf8");
    // The YAML writes the pattern as a double-quoted string, escaped as JSON escapes it.
    expect(yaml).toContain(`pattern: ${JSON.stringify(webhookSchema.$defs.MerchantSignature.pattern)}`);
    expect(webhookSchema.$defs.WebhookEvent).toMatchObject({ additionalProperties: false, required: ["type", "data"] });
    expect(webhookSchema.$defs.EventDataOrder.required).toEqual(["type", "checkout_session_id", "permalink_url", "status"]);
    expect(yaml).toContain("required: [type, checkout_session_id, permalink_url, status]");
  });
});

describe("order events queued with their facts", () => {
  it("order_create once per order; nothing for anonymous agents, other orders, or platforms without a webhook URL", async () => {
    const p = await platform();
    const orderId = await acpOrder(p.id);
    await getDb().$transaction((tx) => recordAcpOrderEvent(tx, orderId, "order_create"));
    const queued = await rows(p.id);
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({
      kind: "acp_order",
      eventType: "order_create",
      status: "pending",
      url: receiverUrl,
      dedupeKey: `acp:${orderId}:order_create`,
    });

    const before = await getDb().webhookDelivery.count();
    await acpOrder(null);
    const silent = await platform(null);
    await acpOrder(silent.id);
    const { session_id: webOrder } = await createCheckout({ product_id: seller.productId, buyer_email: `web-buyer-${run}@example.com` });
    await payTestCheckout(webOrder);
    await getDb().$transaction((tx) => recordAcpOrderEvent(tx, webOrder, "order_update"));
    expect(await getDb().webhookDelivery.count()).toBe(before);
  });

  it("a failed fact leaves no event: the row is written in the fact's own transaction", async () => {
    const p = await platform();
    const orderId = await acpOrder(p.id);
    const before = (await rows(p.id)).length;
    await expect(
      getDb().$transaction(async (tx) => {
        await recordAcpOrderEvent(tx, orderId, "order_update", "rolled-back");
        throw new Error("the fact failed");
      }),
    ).rejects.toThrow("the fact failed");
    expect(await rows(p.id)).toHaveLength(before);
  });
});

describe("delivery", () => {
  it("POSTs the WebhookEvent signed with Merchant-Signature, Request-Id and Timestamp; the payload is valid against the official schema", async () => {
    const p = await platform();
    const orderId = await acpOrder(p.id);
    expect(await deliverPendingWebhooks()).toMatchObject({ sent: 1, failed: 0 });
    expect(received).toHaveLength(1);
    const [hit] = received;
    const [row] = await rows(p.id);
    expect(hit!.signatureValid).toBe(true);
    expect(hit!.headers["content-type"]).toBe("application/json");
    expect(hit!.headers["merchant-signature"]).toMatch(SIGNATURE_PATTERN);
    expect(hit!.headers["request-id"]).toBe(row!.id);
    expect(Math.abs(Date.parse(String(hit!.headers.timestamp)) - Date.now())).toBeLessThan(60_000);
    // The exact stored bytes are what was signed and sent.
    expect(hit!.body).toBe(row!.payload);

    const event = JSON.parse(hit!.body) as { type: string; data: Record<string, any> };
    expect(validateEvent(event), JSON.stringify(validateEvent.errors, null, 1)).toBe(true);
    expect(event.type).toBe("order_create");
    expect(event.data).toMatchObject({ type: "order", id: orderId, status: "completed" });
    expect(event.data.checkout_session_id).toMatch(/^cs_acp_/);
    expect(event.data.fulfillments[0].digital_delivery.license_key).toEqual(expect.any(String));

    expect(row).toMatchObject({ status: "sent", attempts: 1, lastStatus: 200, lastError: null, lockedUntil: null });
    expect(row!.sentAt).toBeInstanceOf(Date);
    // Sent is sent: another run finds nothing.
    expect(await deliverPendingWebhooks()).toEqual({ sent: 0, failed: 0 });
    expect(received).toHaveLength(1);
  });

  it("a refund and a dispute of the order each send an order_update with the full order, after the order_create", async () => {
    const p = await platform();
    const orderId = await acpOrder(p.id);
    await refundOrder({ orderId, amountCents: 500, reason: "Partial refund for the agent", actor: { kind: "operator", email: operator.email } });
    await simulateTestDispute(orderId, "open", operator);
    await simulateTestDispute(orderId, "won", operator);
    expect((await rows(p.id)).map((r) => r.eventType)).toEqual(["order_create", "order_update", "order_update", "order_update"]);

    expect(await deliverPendingWebhooks()).toMatchObject({ sent: 4 });
    expect(received.every((r) => r.signatureValid)).toBe(true);
    const events = received.map((r) => JSON.parse(r.body) as { type: string; data: Record<string, any> });
    for (const e of events) expect(validateEvent(e), JSON.stringify(validateEvent.errors, null, 1)).toBe(true);
    expect(events.map((e) => e.type)).toEqual(["order_create", "order_update", "order_update", "order_update"]);
    const [, refunded, opened, won] = events;
    expect(refunded!.data.adjustments).toContainEqual(expect.objectContaining({ type: "refund", status: "completed", amount: 500, currency: "usd" }));
    expect(refunded!.data.totals).toContainEqual(expect.objectContaining({ type: "amount_refunded", amount: 500 }));
    expect(opened!.data.adjustments).toContainEqual(expect.objectContaining({ type: "dispute", status: "pending" }));
    expect(won!.data.adjustments).toContainEqual(expect.objectContaining({ type: "dispute", status: "completed", reason: "dispute_won" }));
  });

  it("an ACP checkout completed with the platform's key sends order_create for the real session", async () => {
    const p = await platform();
    const agent = { platformId: p.id, name: "webhook suite" };
    const session = await createSession(
      { line_items: [{ id: seller.productId }], currency: "usd", buyer: { email: `acp-complete-${run}@example.com` } },
      agent,
    );
    const token = await delegatePayment(delegatePaymentRequestSchema.parse(delegateBody(session.id, 2500)), {
      platformId: p.id,
      idempotencyKey: undefined,
    });
    const done = await completeSession(session.id, completeSessionSchema.parse({ payment_data: testPaymentData(token.id) }), agent);
    expect(done.status).toBe("completed");
    expect((await rows(p.id)).map((r) => r.eventType)).toEqual(["order_create"]);
    expect(await deliverPendingWebhooks()).toMatchObject({ sent: 1 });
    const event = JSON.parse(received[0]!.body) as { type: string; data: Record<string, any> };
    expect(received[0]!.signatureValid).toBe(true);
    expect(validateEvent(event), JSON.stringify(validateEvent.errors, null, 1)).toBe(true);
    expect(event.data).toMatchObject({ checkout_session_id: session.id, status: "completed" });
    const license = await getDb().license.findUniqueOrThrow({ where: { orderId: event.data.id as string } });
    expect(event.data.fulfillments[0].digital_delivery.license_key).toBe(license.key);
  });

  it("retries after a 500 (and a redirect) with backoff, then succeeds; the next attempt is not due before its time", async () => {
    const p = await platform();
    await acpOrder(p.id);
    answers = [500, "redirect"];
    expect(await deliverPendingWebhooks()).toMatchObject({ sent: 0, failed: 1 });
    let [row] = await rows(p.id);
    expect(row).toMatchObject({ status: "pending", attempts: 1, lastStatus: 500 });
    expect(row!.lastError).toMatch(/^HTTP 500/);
    expect(row!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
    // Not due yet.
    expect(await deliverPendingWebhooks()).toEqual({ sent: 0, failed: 0 });
    expect(received).toHaveLength(1);

    expect(await deliverPendingWebhooks({ now: later(HOUR) })).toMatchObject({ failed: 1 });
    [row] = await rows(p.id);
    expect(row).toMatchObject({ status: "pending", attempts: 2, lastStatus: 302 });

    expect(await deliverPendingWebhooks({ now: later(2 * HOUR) })).toMatchObject({ sent: 1 });
    [row] = await rows(p.id);
    expect(row).toMatchObject({ status: "sent", attempts: 3, lastStatus: 200, lastError: null });
    expect(received).toHaveLength(3);
    // Every attempt carries the same Request-Id (the delivery's), so the receiver can tell retries from new events.
    expect(new Set(received.map((r) => r.headers["request-id"]))).toEqual(new Set([row!.id]));
    expect(received.every((r) => r.signatureValid)).toBe(true);
  });

  it("gives up after the 8th failed attempt: failed, with the last status and error; the operator can send it again", async () => {
    const p = await platform();
    await acpOrder(p.id);
    answers = Array.from({ length: 8 }, () => 503);
    for (let i = 1; i <= 8; i++) {
      expect(await deliverPendingWebhooks({ now: later(i * 24 * HOUR) })).toMatchObject({ failed: 1 });
    }
    const [row] = await rows(p.id);
    expect(row).toMatchObject({ status: "failed", attempts: 8, lastStatus: 503 });
    expect(row!.lastError).toContain("down for maintenance");
    expect(await deliverPendingWebhooks({ now: later(30 * 24 * HOUR) })).toEqual({ sent: 0, failed: 0 });
    expect(received).toHaveLength(8);

    const [listed] = await listWebhookDeliveries({ platform_id: p.id });
    expect(listed).toMatchObject({ id: row!.id, status: "failed", attempts: 8, last_status: 503, event_type: "order_create", next_attempt_at: null });
    const again = await retryWebhookDelivery(operator, row!.id);
    expect(again).toMatchObject({ status: "pending", attempts: 0 });
    await expect(retryWebhookDelivery(operator, row!.id)).rejects.toMatchObject({ code: "webhook_delivery_not_failed", status: 409 });
    expect(await deliverPendingWebhooks({ now: later(HOUR) })).toMatchObject({ sent: 1 });
    expect((await rows(p.id))[0]).toMatchObject({ status: "sent", attempts: 1 });
  });

  it("a receiver that is not there is a failed attempt without a status", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const p = await platform(`http://127.0.0.1:${port}/gone`);
    await acpOrder(p.id);
    expect(await deliverPendingWebhooks()).toMatchObject({ failed: 1 });
    const [row] = await rows(p.id);
    expect(row).toMatchObject({ status: "pending", attempts: 1, lastStatus: null });
    expect(row!.lastError).toEqual(expect.any(String));
  });

  it("an update waits while the order's create is still failing, then both arrive in order", async () => {
    const p = await platform();
    const orderId = await acpOrder(p.id);
    answers = [500];
    expect(await deliverPendingWebhooks()).toMatchObject({ failed: 1 });
    await refundOrder({ orderId, reason: "Full refund for the agent", actor: { kind: "operator", email: operator.email } });
    // The update is due, but held back behind the pending create (not an attempt).
    expect(await deliverPendingWebhooks()).toEqual({ sent: 0, failed: 0 });
    const update = (await rows(p.id)).find((r) => r.eventType === "order_update");
    expect(update).toMatchObject({ status: "pending", attempts: 0 });
    expect(received).toHaveLength(1);

    await deliverPendingWebhooks({ now: later(HOUR) });
    await deliverPendingWebhooks({ now: later(HOUR + 5_000) });
    expect((await rows(p.id)).map((r) => r.status)).toEqual(["sent", "sent"]);
    expect(received.slice(1).map((r) => (JSON.parse(r.body) as { type: string }).type)).toEqual(["order_create", "order_update"]);
  });

  it("signs with the platform's current secret and URL at send time; revoking drops what is pending", async () => {
    const p = await platform("https://agent.invalid/hooks");
    await acpOrder(p.id);
    const rotated = await rotateAgentPlatformSecret(operator, p.id);
    p.setSecret(rotated.webhook_secret);
    await setAgentPlatformWebhook(operator, p.id, receiverUrl);
    expect(await deliverPendingWebhooks()).toMatchObject({ sent: 1 });
    expect(received[0]!.signatureValid).toBe(true);
    expect((await rows(p.id))[0]!.url).toBe(receiverUrl);

    const orderId = await acpOrder(p.id);
    await refundOrder({ orderId, amountCents: 100, reason: "Refund before the revocation", actor: { kind: "operator", email: operator.email } });
    await revokeAgentPlatform(operator, p.id, "Contract ended");
    expect(await deliverPendingWebhooks()).toEqual({ sent: 0, failed: 0 });
    const after = await rows(p.id);
    expect(after.map((r) => r.status)).toEqual(["sent", "failed", "failed"]);
    expect(after[1]!.lastError).toMatch(/revoked/);
    expect(received).toHaveLength(1);
    // A revoked platform gets no new events either.
    await getDb().$transaction((tx) => recordAcpOrderEvent(tx, orderId, "order_update", "after-revocation"));
    expect(await rows(p.id)).toHaveLength(3);
  });

  it("senders running at once (as instances on one database do) send each delivery exactly once", async () => {
    const p = await platform();
    for (let i = 0; i < 6; i++) await acpOrder(p.id);
    const results = await Promise.all(Array.from({ length: 4 }, () => deliverPendingWebhooks()));
    expect(results.reduce((n, r) => n + r.sent, 0)).toBe(6);
    expect(received).toHaveLength(6);
    expect(new Set(received.map((r) => r.headers["request-id"])).size).toBe(6);
    expect((await rows(p.id)).every((r) => r.status === "sent" && r.attempts === 1)).toBe(true);
  });
});
