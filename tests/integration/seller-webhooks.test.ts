import { lookup } from "node:dns/promises";
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as listRoute, POST as createRoute } from "@/app/api/v1/webhooks/route";
import { DELETE as deleteRoute, GET as getRoute, PATCH as patchRoute } from "@/app/api/v1/webhooks/[id]/route";
import { POST as rotateRoute } from "@/app/api/v1/webhooks/[id]/rotate-secret/route";
import { POST as testRoute } from "@/app/api/v1/webhooks/[id]/test/route";
import { GET as deliveriesRoute } from "@/app/api/v1/webhooks/[id]/deliveries/route";
import { GET as deliveryRoute } from "@/app/api/v1/webhooks/deliveries/[delivery_id]/route";
import { POST as redeliverRoute } from "@/app/api/v1/webhooks/deliveries/[delivery_id]/redeliver/route";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { ingestArtifact } from "@/lib/releases/ingest";
import { createRelease, publishRelease } from "@/lib/releases/manage";
import { subscribed } from "@/lib/seller-webhooks/events";
import { resetObjectStore } from "@/lib/storage/index";
import { AUTO_DISABLE_AFTER, deliverPendingWebhooks } from "@/lib/webhooks/deliver";
import { listWebhookDeliveries } from "@/lib/webhooks/deliveries";
import { rateLimiter } from "@/lib/http/rate-limit";
import { call, expectProblem } from "../helpers/http";
import { sellerToken } from "../helpers/seller-tokens";
import { createTestProduct, sellerCookie, sellingDeveloper } from "../helpers/sellers";

/**
 * Sellers' outgoing webhooks (Standard Webhooks) end to end, through the /api/v1/webhooks route handlers with a
 * seller API token, against a real HTTP receiver on this machine that verifies every request with the
 * standardwebhooks library: the secret shown once, the event filter, release.published from publishing, retries with
 * growing backoff and the attempt log, auto-disable with the seller's e-mail, redelivery, the test event, secret
 * rotation, another seller's ids as 404, SSRF refusals (on save and at delivery), and two senders racing.
 */

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const saved = { WEBHOOK_ALLOW_PRIVATE: process.env.WEBHOOK_ALLOW_PRIVATE, UPLOAD_DIR: process.env.UPLOAD_DIR };

// --- The receiver: records each request; answers what the test queued for its path (200 once the queue is empty).
interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}
let receiver: Server;
let base = "";
const received: Received[] = [];
const answers = new Map<string, number[]>();

const hits = (path: string) => received.filter((r) => r.path === path);

interface Seller {
  id: string;
  email: string;
  bearer: string;
  product: string;
}
let a: Seller;
let b: Seller;

async function newSeller(label: string): Promise<Seller> {
  const id = unique();
  const email = `swh-${label}-${id}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Hooks ${label} ${id}`, website: null, bio: "" });
  const product = await createTestProduct(dev.id, `Hookable ${label} ${id}`, `com.sellerwebhooks.${label}${id}`, { price_cents: 900 });
  // Unlisted, so the demo-catalogue checks never see it.
  await getDb()
    .product.update({ where: { id: product.id }, data: { status: "draft" } })
    .catch(() => undefined);
  return { id: dev.id, email, bearer: await sellerToken(dev.id, ["webhooks"], { name: `hooks ${label}` }), product: product.id };
}

const auth = (s: Seller) => ({ authorization: `Bearer ${s.bearer}` });

async function createEndpoint(s: Seller, body: Record<string, unknown>) {
  const reply = await call(createRoute, "/api/v1/webhooks", { method: "POST", headers: auth(s), json: body });
  expect(reply.status, reply.text).toBe(201);
  return reply.body.endpoint as { id: string; secret: string; url: string; events: string[] };
}

/**
 * Runs the sender at `now` until a run finds nothing due (rows of other test files may be due too); a sender that
 * still finds work after 10 runs of 500 rows is a failure, not something to stop waiting for silently.
 */
async function deliver(now = new Date()) {
  const run = () => deliverPendingWebhooks({ now, limit: 500 });
  let runs = 1;
  for (let r = await run(); r.sent + r.failed > 0; r = await run()) {
    if (++runs > 10) throw new Error("the webhook sender still had deliveries due after 10 runs");
  }
}

const detail = async (s: Seller, id: string) => {
  const reply = await call(deliveryRoute, `/api/v1/webhooks/deliveries/${id}`, { headers: auth(s), params: { delivery_id: id } });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.delivery as {
    status: string;
    attempts: number;
    next_attempt_at: string | null;
    last_duration_ms: number | null;
    payload: string;
    attempt_log: Array<{ attempt: number; status: number | null; duration_ms: number; error: string | null; at: string }>;
  };
};

const sendTest = async (s: Seller, endpointId: string) => {
  const reply = await call(testRoute, `/api/v1/webhooks/${endpointId}/test`, { method: "POST", headers: auth(s), params: { id: endpointId } });
  expect(reply.status, reply.text).toBe(202);
  return reply.body.delivery.id as string;
};

const verifies = (secret: string, r: Received) => {
  try {
    new Webhook(secret).verify(r.body, r.headers);
    return true;
  } catch {
    return false;
  }
};

/** The machine's own name, when it resolves (from /etc/hosts, no network) to loopback only: a name to test rebinding with. */
async function loopbackName(): Promise<string | null> {
  try {
    const name = hostname();
    const addresses = await lookup(name, { all: true });
    return name !== "localhost" && addresses.length > 0 && addresses.every((x) => x.address.startsWith("127.")) ? name : null;
  } catch {
    return null;
  }
}
const ownName = await loopbackName();

beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE = "on";
  process.env.UPLOAD_DIR = mkdtempSync(join(tmpdir(), "swh-uploads-"));
  resetEnv();
  resetObjectStore();
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      received.push({ path, headers, body: Buffer.concat(chunks).toString("utf8") });
      const status = answers.get(path)?.shift() ?? 200;
      res.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "ok" : "receiver says no");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  a = await newSeller("a");
  b = await newSeller("b");
});

afterAll(async () => {
  // Nothing of ours stays pending for another file's sender.
  const ours = await getDb().sellerWebhookEndpoint.findMany({ where: { developerId: { in: [a.id, b.id] } }, select: { id: true } });
  await getDb().webhookDelivery.deleteMany({ where: { kind: "seller", targetId: { in: ours.map((e) => e.id) } } });
  await getDb().sellerWebhookEndpoint.deleteMany({ where: { id: { in: ours.map((e) => e.id) } } });
  await new Promise((resolve) => receiver.close(resolve));
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = v;
  }
  resetEnv();
  await disconnectDb();
});

describe("endpoints", () => {
  it("shows the secret once, in the Standard Webhooks format, and never again", async () => {
    const e = await createEndpoint(a, { url: `${base}/once`, description: "CI" });
    expect(e.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(e.secret.slice(6), "base64")).toHaveLength(32);
    expect(e.id).toMatch(/^we_/);
    const got = await call(getRoute, `/api/v1/webhooks/${e.id}`, { headers: auth(a), params: { id: e.id } });
    expect(got.status).toBe(200);
    expect(got.body.endpoint).toMatchObject({ id: e.id, url: `${base}/once`, description: "CI", events: [], enabled: true });
    expect(got.text).not.toContain(e.secret);
    const list = await call(listRoute, "/api/v1/webhooks", { headers: auth(a) });
    expect(list.body.endpoints.map((x: { id: string }) => x.id)).toContain(e.id);
    expect(list.text).not.toContain("whsec_");
  });

  it("refuses an unknown event type and answers 404 for another seller's endpoint", async () => {
    const bad = await call(createRoute, "/api/v1/webhooks", {
      method: "POST",
      headers: auth(a),
      json: { url: `${base}/x`, events: ["order.exploded"] },
    });
    expectProblem(bad, 400, "invalid_body");
    const e = await createEndpoint(a, { url: `${base}/private` });
    const id = e.id;
    expectProblem(await call(getRoute, `/api/v1/webhooks/${id}`, { headers: auth(b), params: { id } }), 404, "webhook_endpoint_not_found");
    expectProblem(
      await call(patchRoute, `/api/v1/webhooks/${id}`, { method: "PATCH", headers: auth(b), params: { id }, json: { enabled: false } }),
      404,
      "webhook_endpoint_not_found",
    );
    expectProblem(
      await call(deleteRoute, `/api/v1/webhooks/${id}`, { method: "DELETE", headers: auth(b), params: { id } }),
      404,
      "webhook_endpoint_not_found",
    );
    expectProblem(
      await call(rotateRoute, `/api/v1/webhooks/${id}/rotate-secret`, { method: "POST", headers: auth(b), params: { id } }),
      404,
      "webhook_endpoint_not_found",
    );
    expectProblem(
      await call(deliveriesRoute, `/api/v1/webhooks/${id}/deliveries`, { headers: auth(b), params: { id } }),
      404,
      "webhook_endpoint_not_found",
    );
    const msg = await sendTest(a, id);
    expectProblem(
      await call(deliveryRoute, `/api/v1/webhooks/deliveries/${msg}`, { headers: auth(b), params: { delivery_id: msg } }),
      404,
      "webhook_delivery_not_found",
    );
    expectProblem(
      await call(redeliverRoute, `/api/v1/webhooks/deliveries/${msg}/redeliver`, { method: "POST", headers: auth(b), params: { delivery_id: msg } }),
      404,
      "webhook_delivery_not_found",
    );
    await deliver();
  });

  it("deletes an endpoint; its pending deliveries are settled as not sent", async () => {
    const e = await createEndpoint(a, { url: `${base}/deleted` });
    const msg = await sendTest(a, e.id);
    const del = await call(deleteRoute, `/api/v1/webhooks/${e.id}`, { method: "DELETE", headers: auth(a), params: { id: e.id } });
    expect(del.status, del.text).toBe(200);
    await deliver();
    expect(hits("/deleted")).toHaveLength(0);
    const row = await getDb().webhookDelivery.findUniqueOrThrow({ where: { id: msg } });
    expect(row).toMatchObject({ status: "failed", lastError: "not sent: the endpoint was deleted" });
  });
});

describe("delivery", () => {
  it("publishing a release reaches the subscribed endpoints only, signed so standardwebhooks verifies it", async () => {
    const releases = await createEndpoint(a, { url: `${base}/releases`, events: ["release.published"] });
    const orders = await createEndpoint(a, { url: `${base}/orders`, events: ["order.paid"] });
    const all = await createEndpoint(a, { url: `${base}/all`, events: [] });
    await createRelease(a.id, a.product, { version: "1.2.0", notes: "## Faster\n- everything" });
    await ingestArtifact(a.id, a.product, "1.2.0", {
      platform: "linux-x64",
      filename: "app.zip",
      stream: Readable.from([Buffer.from("PK\u0003\u0004 a webhook test artifact")]),
      contentLength: null,
    });
    await publishRelease(a.id, a.product, "1.2.0");
    await publishRelease(a.id, a.product, "1.2.0"); // publishing again changes nothing and sends nothing
    await deliver();

    expect(hits("/orders")).toHaveLength(0);
    expect([
      subscribed(releases.events, "release.published"),
      subscribed(orders.events, "release.published"),
      subscribed(all.events, "release.published"),
    ]).toEqual([true, false, true]);
    for (const [path, secret] of [
      ["/releases", releases.secret],
      ["/all", all.secret],
    ] as const) {
      const got = hits(path);
      expect(got).toHaveLength(1);
      const r = got[0]!;
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["webhook-id"]).toMatch(/^msg_/);
      expect(r.headers["webhook-signature"]).toMatch(/^v1,/);
      const event = new Webhook(secret).verify(r.body, r.headers) as { type: string; timestamp: string; data: any };
      expect(event.type).toBe("release.published");
      expect(event.data.product).toMatchObject({ id: a.product, plugin_id: expect.stringContaining("com.sellerwebhooks.a") });
      expect(event.data.release).toMatchObject({ version: "1.2.0", channel: "stable", notes: "## Faster\n- everything" });
      expect(event.data.release.artifacts).toEqual([
        expect.objectContaining({
          platform: "linux-x64",
          filename: "app.zip",
          size: expect.any(Number),
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        }),
      ]);
      expect(r.body).not.toMatch(/https?:\/\/[^"]*download/i);
      // Another endpoint's secret does not verify it.
      expect(verifies(orders.secret, r)).toBe(false);
    }
    // The operator's console lists agent-platform deliveries only; seller rows do not break it.
    const operatorList = await listWebhookDeliveries({ limit: 500 });
    expect(operatorList.map((d) => d.id)).not.toContain(hits("/all")[0]!.headers["webhook-id"]);
  });

  it("retries a failing receiver with growing backoff, logging every attempt, until it answers 2xx", async () => {
    const e = await createEndpoint(a, { url: `${base}/flaky` });
    answers.set("/flaky", [500, 503, 500]);
    const msg = await sendTest(a, e.id);
    let now = Date.now();
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      await deliver(new Date(now));
      const d = await detail(a, msg);
      expect(d.status).toBe("pending");
      expect(d.attempts).toBe(i + 1);
      const next = Date.parse(d.next_attempt_at!);
      delays.push(next - now);
      now = next;
    }
    expect(delays[0]).toBeGreaterThan(0);
    expect(delays[1]).toBeGreaterThan(delays[0]!);
    expect(delays[2]).toBeGreaterThan(delays[1]!);
    await deliver(new Date(now));
    const d = await detail(a, msg);
    expect(d.status).toBe("sent");
    expect(d.attempts).toBe(4);
    expect(d.attempt_log.map((x) => x.status)).toEqual([500, 503, 500, 200]);
    expect(d.attempt_log.map((x) => x.attempt)).toEqual([1, 2, 3, 4]);
    expect(d.attempt_log[0]!.error).toContain("HTTP 500");
    expect(d.attempt_log[3]!.error).toBeNull();
    for (const x of d.attempt_log) expect(x.duration_ms).toBeGreaterThanOrEqual(0);
    expect(d.last_duration_ms).not.toBeNull();
    // Every attempt carried the same webhook-id, each verifiable.
    const got = hits("/flaky");
    expect(got).toHaveLength(4);
    expect(new Set(got.map((r) => r.headers["webhook-id"]))).toEqual(new Set([msg]));
    for (const r of got) expect(verifies(e.secret, r)).toBe(true);
    const event = JSON.parse(d.payload) as { type: string };
    expect(event.type).toBe("webhook.test");

    const page = await call(deliveriesRoute, `/api/v1/webhooks/${e.id}/deliveries?limit=1`, { headers: auth(a), params: { id: e.id } });
    expect(page.status, page.text).toBe(200);
    expect(page.body.deliveries[0]).toMatchObject({ id: msg, event_type: "webhook.test", status: "sent", attempts: 4, last_status: 200 });
    expect(page.body.next_cursor).toBeNull();
  });

  it(`disables an endpoint after ${AUTO_DISABLE_AFTER} deliveries in a row failed for good, and e-mails the seller once`, async () => {
    const e = await createEndpoint(a, { url: `${base}/down` });
    answers.set("/down", Array<number>(100).fill(500));
    // The first deliveries of the streak failed earlier; this one is the last straw (8 attempts, all 500).
    await getDb().sellerWebhookEndpoint.update({ where: { id: e.id }, data: { failureStreak: AUTO_DISABLE_AFTER - 1 } });
    const msg = await sendTest(a, e.id);
    let now = Date.now();
    for (let i = 0; i < 8; i++) {
      await deliver(new Date(now));
      const d = await detail(a, msg);
      if (d.status !== "pending") break;
      now = Date.parse(d.next_attempt_at!);
    }
    const d = await detail(a, msg);
    expect(d.status).toBe("failed");
    expect(d.attempts).toBe(8);
    const got = await call(getRoute, `/api/v1/webhooks/${e.id}`, { headers: auth(a), params: { id: e.id } });
    expect(got.body.endpoint).toMatchObject({
      enabled: false,
      failure_streak: AUTO_DISABLE_AFTER,
      disabled_reason: expect.stringContaining("Disabled automatically"),
    });
    const mails = await getDb().emailMessage.findMany({ where: { to: a.email, kind: "webhook-disabled" } });
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain(`${base}/down`);
    // Disabled: no test events, no redelivery, until it is enabled again (which resets the streak).
    expectProblem(
      await call(testRoute, `/api/v1/webhooks/${e.id}/test`, { method: "POST", headers: auth(a), params: { id: e.id } }),
      409,
      "webhook_endpoint_disabled",
    );
    const enabled = await call(patchRoute, `/api/v1/webhooks/${e.id}`, {
      method: "PATCH",
      headers: auth(a),
      params: { id: e.id },
      json: { enabled: true },
    });
    expect(enabled.body.endpoint).toMatchObject({ enabled: true, failure_streak: 0, disabled_reason: null, disabled_at: null });
  });

  it("a success resets the failure streak", async () => {
    const e = await createEndpoint(a, { url: `${base}/recovers` });
    await getDb().sellerWebhookEndpoint.update({ where: { id: e.id }, data: { failureStreak: 3 } });
    await sendTest(a, e.id);
    await deliver();
    expect((await getDb().sellerWebhookEndpoint.findUniqueOrThrow({ where: { id: e.id } })).failureStreak).toBe(0);
  });

  it("redelivers a sent delivery once, however often the button is pressed while it is queued", async () => {
    const e = await createEndpoint(a, { url: `${base}/again` });
    const msg = await sendTest(a, e.id);
    await deliver();
    expect(hits("/again")).toHaveLength(1);
    const redeliver = () =>
      call(redeliverRoute, `/api/v1/webhooks/deliveries/${msg}/redeliver`, { method: "POST", headers: auth(a), params: { delivery_id: msg } });
    const first = await redeliver();
    expect(first.status, first.text).toBe(202);
    expect(first.body.delivery).toMatchObject({ id: msg, status: "pending", attempts: 0 });
    expectProblem(await redeliver(), 409, "webhook_delivery_pending");
    await deliver();
    const got = hits("/again");
    expect(got).toHaveLength(2);
    expect(got[1]!.headers["webhook-id"]).toBe(msg);
    expect(got[1]!.body).toBe(got[0]!.body);
    expect(verifies(e.secret, got[1]!)).toBe(true);
    const d = await detail(a, msg);
    expect(d.status).toBe("sent");
    expect(d.attempt_log).toHaveLength(2);
  });

  it("signs with the new secret once rotated; the old one no longer verifies", async () => {
    const e = await createEndpoint(a, { url: `${base}/rotated` });
    const rotated = await call(rotateRoute, `/api/v1/webhooks/${e.id}/rotate-secret`, { method: "POST", headers: auth(a), params: { id: e.id } });
    expect(rotated.status, rotated.text).toBe(200);
    const secret = rotated.body.endpoint.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(e.secret);
    await sendTest(a, e.id);
    await deliver();
    const [r] = hits("/rotated");
    expect(verifies(secret, r!)).toBe(true);
    expect(verifies(e.secret, r!)).toBe(false);
  });

  it("two senders racing send each row once", async () => {
    const e = await createEndpoint(a, { url: `${base}/race` });
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push(await sendTest(a, e.id));
    const now = new Date();
    await Promise.all([
      deliverPendingWebhooks({ now, limit: 500 }),
      deliverPendingWebhooks({ now, limit: 500 }),
      deliverPendingWebhooks({ now, limit: 500 }),
    ]);
    await deliver(now);
    const got = hits("/race").map((r) => r.headers["webhook-id"]);
    expect(got.sort()).toEqual([...ids].sort());
    const attempts = await getDb().webhookAttempt.count({ where: { deliveryId: { in: ids } } });
    expect(attempts).toBe(6);
  });
});

describe("test events and redeliveries are limited per seller", () => {
  // 400 concurrent test events from a dashboard session once gave 400 × 202 and ~300 POSTs to the target.
  it("400 concurrent test events from a session: at most RATE_LIMIT_WEBHOOK_SEND_PER_MIN are queued, the rest 429; redeliveries share the budget", async () => {
    const saved = process.env.RATE_LIMIT_WEBHOOK_SEND_PER_MIN;
    process.env.RATE_LIMIT_WEBHOOK_SEND_PER_MIN = "10";
    resetEnv();
    rateLimiter().reset();
    try {
      const c = await newSeller("limited");
      const cookie = await sellerCookie(c.email);
      const e = await createEndpoint(c, { url: `${base}/limited` });
      const replies = await Promise.all(
        Array.from({ length: 400 }, () =>
          call(testRoute, `/api/v1/webhooks/${e.id}/test`, { method: "POST", headers: { cookie }, params: { id: e.id } }),
        ),
      );
      const statuses = replies.map((r) => r.status);
      expect(statuses.filter((s) => s === 202)).toHaveLength(10);
      expect(statuses.filter((s) => s === 429)).toHaveLength(390);
      expectProblem(
        replies.find((r) => r.status === 429)!,
        429,
        "rate_limited",
      );
      expect(await getDb().webhookDelivery.count({ where: { kind: "seller", targetId: e.id } })).toBe(10);
      // The token counts against the same seller's budget, and so does a redelivery.
      expectProblem(
        await call(testRoute, `/api/v1/webhooks/${e.id}/test`, { method: "POST", headers: auth(c), params: { id: e.id } }),
        429,
        "rate_limited",
      );
      const sent = replies.find((r) => r.status === 202)!.body.delivery.id as string;
      expectProblem(
        await call(redeliverRoute, `/api/v1/webhooks/deliveries/${sent}/redeliver`, {
          method: "POST",
          headers: auth(c),
          params: { delivery_id: sent },
        }),
        429,
        "rate_limited",
      );
      // Another seller is not held up.
      const other = await createEndpoint(b, { url: `${base}/other-seller` });
      expect(
        (await call(testRoute, `/api/v1/webhooks/${other.id}/test`, { method: "POST", headers: auth(b), params: { id: other.id } })).status,
      ).toBe(202);
    } finally {
      if (saved === undefined) delete process.env.RATE_LIMIT_WEBHOOK_SEND_PER_MIN;
      else process.env.RATE_LIMIT_WEBHOOK_SEND_PER_MIN = saved;
      resetEnv();
      rateLimiter().reset();
    }
  });
});

describe("targets (SSRF)", () => {
  const refusedUrls = [
    "https://127.0.0.1/hook",
    "http://169.254.169.254/latest/meta-data/",
    "https://[::1]/hook",
    "https://10.0.0.1/hook",
    "https://0x7f.1/hook",
    "https://2130706433/hook",
    "https://0177.0.0.1/hook",
    "https://localhost/hook",
    "https://api.localhost/hook",
    "https://[::ffff:127.0.0.1]/hook",
    "https://[::ffff:a9fe:a9fe]/hook",
    "https://[fe80::1]/hook",
    "https://[fd00::1]/hook",
    "https://100.64.0.1/hook",
    "https://192.168.1.1/hook",
    "https://0.0.0.0/hook",
    "https://user:pass@example.com/hook",
    "ftp://example.com/hook",
    `https://example.com/${"a".repeat(2000)}`,
  ];

  const withPrivate = async (value: "on" | "off", fn: () => Promise<void>) => {
    process.env.WEBHOOK_ALLOW_PRIVATE = value;
    try {
      await fn();
    } finally {
      process.env.WEBHOOK_ALLOW_PRIVATE = "on";
    }
  };

  it("refuses private, loopback, link-local and odd spellings with webhook_target_refused", async () => {
    await withPrivate("off", async () => {
      for (const url of refusedUrls) {
        const reply = await call(createRoute, "/api/v1/webhooks", { method: "POST", headers: auth(a), json: { url } });
        expect(reply.status, `${url}: ${reply.text}`).toBe(400);
        expectProblem(reply, 400, "webhook_target_refused");
      }
      const e = await createEndpoint(a, { url: "https://203.0.114.7/ok" }); // a public address: no DNS, no request yet
      const patched = await call(patchRoute, `/api/v1/webhooks/${e.id}`, {
        method: "PATCH",
        headers: auth(a),
        params: { id: e.id },
        json: { url: "https://127.0.0.1/" },
      });
      expectProblem(patched, 400, "webhook_target_refused");
      await call(deleteRoute, `/api/v1/webhooks/${e.id}`, { method: "DELETE", headers: auth(a), params: { id: e.id } });
    });
  });

  // Needs a name that resolves to loopback without the network: this machine's own name usually does (/etc/hosts).
  // The refusal does not say what the name resolves to (or whether it resolves): that would map internal names.
  it.skipIf(ownName === null)("refuses a host name that resolves to a loopback address, without naming the address", async () => {
    await withPrivate("off", async () => {
      const reply = await call(createRoute, "/api/v1/webhooks", { method: "POST", headers: auth(a), json: { url: `https://${ownName}/hook` } });
      expectProblem(reply, 400, "webhook_target_refused");
      expect(reply.body.detail).toBe("This webhook URL is refused: its host does not resolve to public addresses only.");
      expect(reply.body.detail).not.toMatch(/127\.|::1|loopback/);
    });
  });

  it("checks again at delivery time: an endpoint saved while allowed is not sent to once private targets are refused", async () => {
    const literal = await createEndpoint(a, { url: `${base}/late` });
    const named = ownName ? await createEndpoint(a, { url: `${base.replace("127.0.0.1", ownName)}/late-named` }) : null;
    await withPrivate("off", async () => {
      const msg = await sendTest(a, literal.id);
      const msgNamed = named ? await sendTest(a, named.id) : null;
      await deliver();
      expect(hits("/late")).toHaveLength(0);
      expect(hits("/late-named")).toHaveLength(0);
      const d = await detail(a, msg);
      expect(d.attempt_log[0]).toMatchObject({ status: null, error: expect.stringContaining("not sent") });
      expect(d.attempt_log[0]!.error).toContain("loopback");
      if (msgNamed) {
        const dn = await detail(a, msgNamed);
        expect(dn.attempt_log[0]).toMatchObject({ status: null, error: expect.stringContaining("does not resolve to public addresses only") });
        expect(dn.attempt_log[0]!.error).not.toContain("127.");
      }
    });
    // Allowed again: the retry goes through (the pinned lookup hands the checked address to the socket).
    const due = new Date(Date.now() + 60_000);
    await deliver(due);
    expect(hits("/late")).toHaveLength(1);
    if (named) expect(hits("/late-named")).toHaveLength(1);
  });
});
