import { spawnSync } from "node:child_process";
import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GET as getOwn, PUT as putOwn } from "@/app/api/acp/platform/webhook/route";
import { POST as rotateOwn } from "@/app/api/acp/platform/webhook/rotate/route";
import { completeSession, createSession } from "@/lib/acp/checkout-sessions";
import { delegatePayment, delegatePaymentRequestSchema } from "@/lib/acp/delegate-payment";
import { registerAgentPlatform, revokeAgentPlatform } from "@/lib/acp/platforms";
import { completeSessionSchema } from "@/lib/acp/schemas";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";
import { refundOrder } from "@/lib/refunds/refund-order";
import { deliverPendingWebhooks } from "@/lib/webhooks/deliver";
import { delegateBody, testPaymentData } from "../helpers/acp";
import { call, type Reply } from "../helpers/http";
import { createTestProduct, sellingDeveloper } from "../helpers/sellers";

/**
 * An agent platform owns its order webhook: with its own key (`Authorization: Bearer acpk_…`) it reads, sets and
 * clears its webhook URL and rotates the signing secret (the new secret in that answer only), through the registry's
 * operations under /api/acp/platform/webhook. Its URL is under the seller webhooks' rules, WEBHOOK_ALLOW_PRIVATE
 * included; the ACP order events (order_create, order_update) then reach it signed with Merchant-Signature, checked
 * here as the acp-webhooks suite checks it (HMAC-SHA256 over `<t>.<raw body>`, written from the spec's text), over
 * http and https, outside production and in production.
 */

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const operator = { email: `own-hooks-ops-${run}@example.com` };
const saved = {
  NODE_ENV: process.env.NODE_ENV,
  WEBHOOK_ALLOW_PRIVATE: process.env.WEBHOOK_ALLOW_PRIVATE,
  ACP_ANONYMOUS: process.env.ACP_ANONYMOUS,
  PAYMENTS: process.env.PAYMENTS,
  NODE_TLS_REJECT_UNAUTHORIZED: process.env.NODE_TLS_REJECT_UNAUTHORIZED,
};
type Var = keyof typeof saved;
function setVar(name: Var, value: string | undefined): void {
  const vars: Record<string, string | undefined> = process.env;
  if (value === undefined) Reflect.deleteProperty(vars, name);
  else vars[name] = value;
  resetEnv();
}
const restore = (name: Var) => setVar(name, saved[name]);

/** Runs `fn` with these settings, then puts them back. */
async function withVars<T>(vars: Partial<Record<Var, string | undefined>>, fn: () => Promise<T>): Promise<T> {
  for (const [k, v] of Object.entries(vars)) setVar(k as Var, v);
  try {
    return await fn();
  } finally {
    for (const k of Object.keys(vars)) restore(k as Var);
  }
}

/* --- Receivers: plain http and https (a self-signed certificate made here), both on 127.0.0.1. ------------------ */

interface Received {
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}
let received: Received[] = [];
const handler = (req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    received.push({ path: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
    res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
  });
};
let plain: Server;
let tls: Server | null = null;
let plainBase = "";
let tlsBase = "";

/** A self-signed certificate for 127.0.0.1, made with the openssl command line (null when there is none). */
function selfSigned(): { key: Buffer; cert: Buffer } | null {
  const dir = mkdtempSync(join(tmpdir(), "own-hooks-tls-"));
  const made = spawnSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ],
    { encoding: "utf8", timeout: 60_000 },
  );
  if (made.status !== 0) return null;
  return { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) };
}
const certificate = selfSigned();

/** Merchant-Signature as a platform verifies it, from the spec's text: t=<unix s>,v1=<hex HMAC-SHA256(secret, "t.body")>. */
function signedWith(r: Received, secret: string): boolean {
  const header = r.headers["merchant-signature"];
  if (typeof header !== "string" || !/^t=\d+,v1=[0-9a-f]{64}$/.test(header)) return false;
  const parts = new Map(header.split(",").map((p) => p.split("=", 2) as [string, string]));
  const t = Number(parts.get("t"));
  if (Math.abs(Date.now() / 1000 - t) > 300) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${r.body}`, "utf8").digest();
  const given = Buffer.from(parts.get("v1") ?? "", "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/* --- The platform's calls, over REST through the route files. ---------------------------------------------------- */

const headers = (key: string | null, extra: Record<string, string> = {}) => ({
  [CLIENT_ADDRESS_HEADER]: "198.51.100.77",
  "api-version": "2026-04-17",
  ...(key ? { authorization: `Bearer ${key}` } : {}),
  ...extra,
});
const PATH = "/api/acp/platform/webhook";
const read = (key: string | null, extra?: Record<string, string>): Promise<Reply> => call(getOwn, PATH, { headers: headers(key, extra) });
const put = (key: string, url: string | null): Promise<Reply> =>
  call(putOwn, PATH, { method: "PUT", headers: headers(key), json: { webhook_url: url } });
const rotate = (key: string, idempotencyKey?: string): Promise<Reply> =>
  call(rotateOwn, `${PATH}/rotate`, { method: "POST", headers: headers(key, idempotencyKey ? { "idempotency-key": idempotencyKey } : {}) });

let productId = "";
let seq = 0;
async function newPlatform() {
  const made = await registerAgentPlatform(operator, { name: `Own Hooks ${run} ${++seq}` });
  return { id: made.platform.id, key: made.api_key, secret: made.webhook_secret };
}

/** An agent's purchase through ACP with the platform's key (create, delegate the payment, complete): order_create. */
async function buy(platformId: string): Promise<string> {
  const agent = { platformId, name: "own hooks suite" };
  const session = await createSession(
    { line_items: [{ id: productId }], currency: "usd", buyer: { email: `own-hooks-${run}-${++seq}@example.com` } },
    agent,
  );
  const token = await delegatePayment(delegatePaymentRequestSchema.parse(delegateBody(session.id, 2500)), { platformId, idempotencyKey: undefined });
  const done = await completeSession(session.id, completeSessionSchema.parse({ payment_data: testPaymentData(token.id) }), agent);
  expect(done.status).toBe("completed");
  return (done.order as { id: string }).id;
}

/** Buys, then refunds part of it: an order_create and an order_update for the platform. */
async function buyAndRefund(platformId: string): Promise<string> {
  const orderId = await buy(platformId);
  await refundOrder({ orderId, amountCents: 300, reason: "Part of it back", actor: { kind: "operator", email: operator.email } });
  return orderId;
}

beforeAll(async () => {
  // Deliveries an earlier file on this worker's database left pending (to receivers long gone) would fill the batches
  // deliverPendingWebhooks() takes, ahead of this file's own.
  await getDb().webhookDelivery.updateMany({ where: { status: "pending" }, data: { status: "failed", lastError: "left by an earlier file" } });
  setVar("PAYMENTS", "test");
  setVar("ACP_ANONYMOUS", "off");
  setVar("WEBHOOK_ALLOW_PRIVATE", "off");
  const dev = await sellingDeveloper(`own-hooks-${run}@example.com`, { name: `Own Hooks Studio ${run}`, website: null, bio: "" });
  productId = (await createTestProduct(dev.id, `Own Hooks ${run}`, `com.ownhooks.app${run}`, { price_cents: 2500 })).id;
  plain = createServer(handler);
  await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
  plainBase = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  if (certificate) {
    tls = createHttpsServer(certificate, handler);
    await new Promise<void>((resolve) => tls!.listen(0, "127.0.0.1", resolve));
    tlsBase = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
  }
});
afterEach(async () => {
  received = [];
  await getDb().webhookDelivery.updateMany({
    where: { kind: "acp_order", status: "pending" },
    data: { status: "failed", lastError: "left by an earlier test" },
  });
});
afterAll(async () => {
  await new Promise<void>((resolve) => plain.close(() => resolve()));
  if (tls) await new Promise<void>((resolve) => tls!.close(() => resolve()));
  for (const name of Object.keys(saved) as Var[]) restore(name);
  await disconnectDb();
});

describe("the platform's own webhook, with its own key", () => {
  it("reads, sets and clears its URL; rotating answers the new secret once; the operator's log names the platform", async () => {
    const p = await newPlatform();
    const first = await read(p.key);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ platform: { id: p.id }, webhook_url: null, events: ["order_create", "order_update"] });

    const set = await put(p.key, `${plainBase}/mine`);
    expect(set.status, set.text).toBe(200);
    expect(set.body.webhook_url).toBe(`${plainBase}/mine`);
    expect((await getDb().agentPlatform.findUniqueOrThrow({ where: { id: p.id } })).webhookUrl).toBe(`${plainBase}/mine`);

    const rotated = await rotate(p.key);
    expect(rotated.status, rotated.text).toBe(200);
    const secret = rotated.body.webhook_secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(secret).not.toBe(p.secret);
    expect((await getDb().agentPlatform.findUniqueOrThrow({ where: { id: p.id } })).webhookSecret).toBe(secret);
    // Once: no read shows it again, and a new rotation (a new Idempotency-Key, or none) makes another.
    const again = await read(p.key);
    expect(again.text).not.toContain(secret);
    expect(again.text).not.toContain("webhook_secret");
    const keyed = await rotate(p.key, `rotate-${run}`);
    const replay = await rotate(p.key, `rotate-${run}`);
    expect(replay.body.webhook_secret).toBe(keyed.body.webhook_secret);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(keyed.body.webhook_secret).not.toBe(secret);

    const audit = await getDb().auditEntry.findMany({ where: { targetId: p.id }, orderBy: { createdAt: "asc" } });
    expect(audit.map((a) => [a.action, a.actorEmail])).toEqual([
      ["agent_platform.register", operator.email],
      ["agent_platform.update", `agent-platform:${p.id}`],
      ["agent_platform.rotate_secret", `agent-platform:${p.id}`],
      ["agent_platform.rotate_secret", `agent-platform:${p.id}`],
    ]);
    expect(JSON.stringify(audit)).not.toContain("whsec_");

    const cleared = await put(p.key, null);
    expect(cleared.status).toBe(200);
    expect(cleared.body.webhook_url).toBeNull();
  });

  it("is each platform's own: another key reads and changes its own platform only", async () => {
    const [a, b] = [await newPlatform(), await newPlatform()];
    expect((await put(a.key, `${plainBase}/a`)).status).toBe(200);
    const theirs = await read(b.key);
    expect(theirs.body).toMatchObject({ platform: { id: b.id }, webhook_url: null });
    expect((await put(b.key, `${plainBase}/b`)).status).toBe(200);
    expect((await getDb().agentPlatform.findUniqueOrThrow({ where: { id: a.id } })).webhookUrl).toBe(`${plainBase}/a`);
  });

  it("refuses no key (also with anonymous agents allowed), a revoked key, and a call without API-Version, as ACP errors", async () => {
    const none = await read(null);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ type: "invalid_request", code: "unauthorized" });
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer realm="acp"/);
    await withVars({ ACP_ANONYMOUS: "on" }, async () => {
      const anonymous = await read(null);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.message).toMatch(/registered agent platform/);
    });

    const p = await newPlatform();
    const unversioned = await call(getOwn, PATH, { headers: { authorization: `Bearer ${p.key}`, [CLIENT_ADDRESS_HEADER]: "198.51.100.77" } });
    expect(unversioned.status).toBe(400);
    expect(unversioned.body.code).toBe("api_version_required");

    await revokeAgentPlatform(operator, p.id, "Gone");
    expect((await put(p.key, `${plainBase}/revoked`)).status).toBe(401);
  });

  it("takes URLs under the seller webhooks' rules: no credentials, no private address without WEBHOOK_ALLOW_PRIVATE", async () => {
    const p = await newPlatform();
    for (const bad of [
      "https://user:pass@93.184.216.34/hooks",
      "ftp://93.184.216.34/hooks",
      "https://10.0.0.8/hooks",
      "https://169.254.169.254/latest",
      "not a url",
    ]) {
      const refused = await put(p.key, bad);
      expect(refused.status, bad).toBe(400);
      expect(refused.body, bad).toMatchObject({ type: "invalid_request", code: "webhook_target_refused" });
    }
    // A public address literal is taken (nothing is sent to it here).
    expect((await put(p.key, "https://93.184.216.34/hooks")).body.webhook_url).toBe("https://93.184.216.34/hooks");
    await withVars({ NODE_ENV: "production" }, async () => {
      for (const bad of [`${plainBase}/prod`, "http://93.184.216.34/hooks", "https://127.0.0.1/hooks"]) {
        const refused = await put(p.key, bad);
        expect(refused.status, bad).toBe(400);
        expect(refused.body.code, bad).toBe("webhook_target_refused");
      }
    });
  });
});

describe("order events to the platform's own webhook", () => {
  it("a loopback receiver set by the platform gets order_create and order_update, signed with the secret it rotated to", async () => {
    const p = await newPlatform();
    expect((await put(p.key, `${plainBase}/dev`)).status).toBe(200);
    const secret = (await rotate(p.key)).body.webhook_secret as string;
    const orderId = await buyAndRefund(p.id);
    expect(await deliverPendingWebhooks()).toMatchObject({ sent: 2, failed: 0 });
    expect(received.map((r) => [r.path, (JSON.parse(r.body) as { type: string }).type])).toEqual([
      ["/dev", "order_create"],
      ["/dev", "order_update"],
    ]);
    for (const r of received) {
      expect(signedWith(r, secret)).toBe(true);
      expect(signedWith(r, p.secret)).toBe(false);
      expect((JSON.parse(r.body) as { data: { id: string } }).data.id).toBe(orderId);
    }
  });

  it("in production, a loopback http receiver works with WEBHOOK_ALLOW_PRIVATE=on (checked and pinned at delivery)", async () => {
    const p = await newPlatform();
    await withVars({ NODE_ENV: "production", WEBHOOK_ALLOW_PRIVATE: "on" }, async () => {
      const set = await put(p.key, `${plainBase}/prod`);
      expect(set.status, set.text).toBe(200);
    });
    await buyAndRefund(p.id);
    await withVars({ NODE_ENV: "production", WEBHOOK_ALLOW_PRIVATE: "on" }, async () => {
      expect(await deliverPendingWebhooks()).toMatchObject({ sent: 2, failed: 0 });
    });
    expect(received.map((r) => [r.path, (JSON.parse(r.body) as { type: string }).type])).toEqual([
      ["/prod", "order_create"],
      ["/prod", "order_update"],
    ]);
    for (const r of received) expect(signedWith(r, p.secret)).toBe(true);

    // The same URL once the operator turns the setting off: not sent (the check runs again at each delivery).
    await buy(p.id);
    await withVars({ NODE_ENV: "production", WEBHOOK_ALLOW_PRIVATE: "off" }, async () => {
      expect(await deliverPendingWebhooks()).toMatchObject({ sent: 0, failed: 1 });
    });
    const last = await getDb().webhookDelivery.findFirstOrThrow({ where: { targetId: p.id }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
    expect(last.lastError).toMatch(/not sent/);
    expect(received).toHaveLength(2);
  });

  it.skipIf(!certificate)(
    "in production, an https receiver the platform registered gets both events signed (skipped where no openssl makes its certificate)",
    async () => {
      const p = await newPlatform();
      await withVars({ NODE_ENV: "production", WEBHOOK_ALLOW_PRIVATE: "on" }, async () => {
        const set = await put(p.key, `${tlsBase}/tls`);
        expect(set.status, set.text).toBe(200);
        expect(set.body.webhook_url).toBe(`${tlsBase}/tls`);
      });
      await buyAndRefund(p.id);
      // The receiver's certificate is self-signed: this process trusts it for the delivery only.
      await withVars({ NODE_ENV: "production", WEBHOOK_ALLOW_PRIVATE: "on", NODE_TLS_REJECT_UNAUTHORIZED: "0" }, async () => {
        expect(await deliverPendingWebhooks()).toMatchObject({ sent: 2, failed: 0 });
      });
      expect(received.map((r) => [r.path, (JSON.parse(r.body) as { type: string }).type])).toEqual([
        ["/tls", "order_create"],
        ["/tls", "order_update"],
      ]);
      for (const r of received) expect(signedWith(r, p.secret)).toBe(true);
    },
  );
});
