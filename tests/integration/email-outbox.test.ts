import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { renderToStaticMarkup } from "react-dom/server";
import { GET as mailboxRoute, POST as mailboxPost } from "@/app/api/dev/mailbox/route";
import DevMailboxPage from "@/app/dev/mailbox/page";
import DevMailboxMessagePage from "@/app/dev/mailbox/[id]/page";
import { disconnectDb, getDb } from "@/lib/db";
import { deliverPendingEmails, kickOutbox, retryDelayMs, startOutbox } from "@/lib/email/deliver-emails";
import { getDevMailboxMessage, mailSummary } from "@/lib/email/dev-mailbox";
import { enqueueEmail } from "@/lib/email/enqueue-email";
import { requestSignIn } from "@/lib/auth/sign-in";
import { licenseEmail } from "@/lib/email/templates";
import { DevMailboxTransport, mailTransport, ResendTransport, type MailTransport, type OutgoingMail } from "@/lib/email/transport";
import { env, resetEnv } from "@/lib/env";
import { clockPast } from "../helpers/clock";
import { call, expectProblem } from "../helpers/http";

// The dev mailbox pages read the request headers through next/headers; here they come from `pageHeaders`.
let pageHeaders = new Headers();
vi.mock("next/headers", () => ({ headers: () => Promise.resolve(pageHeaders) }));

const db = () => getDb();
const S = 1000;

// Unique addresses: this file's rows never mix with anyone else's.
const domain = `outbox-${randomBytes(4).toString("hex")}.test`;
let seq = 0;
const address = () => `buyer${++seq}@${domain}`;

function message(to = address(), extra: Partial<{ subject: string; kind: string; dedupeKey: string }> = {}) {
  return { to, subject: `Test message ${seq}`, html: `<p>Hello ${seq}</p>`, text: `Hello ${seq}`, kind: "test", ...extra };
}

const mine = () => ({ to: { endsWith: `@${domain}` } });

/** A transport that records what it was asked to send, and can be told to fail. */
function recordingTransport(opts: { delayMs?: number; fail?: (msg: OutgoingMail, call: number) => unknown } = {}) {
  const calls: OutgoingMail[] = [];
  const transport: MailTransport = {
    name: "recording",
    async send(msg) {
      calls.push(msg);
      if (opts.delayMs) await sleep(opts.delayMs);
      const failure = opts.fail?.(msg, calls.length);
      if (failure !== undefined) throw failure as unknown; // deliberately not always an Error
      return { id: `rec-${msg.idempotencyKey}` };
    },
  };
  return { transport, calls };
}

// Messages queued by files that ran before this one (they share the database) must not be delivered by these
// tests, nor delivered to them: park them in the far future for the duration of this file, then put them back.
let parked: Array<{ id: string; nextAttemptAt: Date }> = [];
beforeAll(async () => {
  parked = await db().emailMessage.findMany({ where: { status: "pending" }, select: { id: true, nextAttemptAt: true } });
  if (parked.length) {
    await db().emailMessage.updateMany({ where: { id: { in: parked.map((p) => p.id) } }, data: { nextAttemptAt: new Date("9999-01-01T00:00:00Z") } });
  }
});
afterEach(async () => {
  await db().emailMessage.deleteMany({ where: mine() });
});
afterAll(async () => {
  for (const p of parked) await db().emailMessage.updateMany({ where: { id: p.id }, data: { nextAttemptAt: p.nextAttemptAt } });
  await disconnectDb();
});

describe("enqueueEmail", () => {
  it("writes one pending row in the caller's transaction and returns its id", async () => {
    const to = address();
    const id = await db().$transaction((tx) => enqueueEmail(tx, message(`  ${to.toUpperCase()} `, { subject: "Line one\r\nline two" })));
    const row = await db().emailMessage.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({
      to,
      subject: "Line one line two",
      kind: "test",
      status: "pending",
      attempts: 0,
      lockedUntil: null,
      dedupeKey: null,
      sentAt: null,
    });
    expect(Math.abs(row.nextAttemptAt.getTime() - Date.now())).toBeLessThan(10 * S);
  });

  it("is rolled back with the transaction that caused it", async () => {
    const to = address();
    await expect(
      db().$transaction(async (tx) => {
        await enqueueEmail(tx, message(to));
        throw new Error("fulfilment failed");
      }),
    ).rejects.toThrow("fulfilment failed");
    expect(await db().emailMessage.count({ where: { to } })).toBe(0);
  });

  it("ignores a second message with the same dedupe key without aborting the transaction", async () => {
    const to = address();
    const key = `license:${randomBytes(6).toString("hex")}`;
    const after = address();
    const [first, second] = await db().$transaction(async (tx) => {
      const a = await enqueueEmail(tx, message(to, { subject: "First", dedupeKey: key }));
      const b = await enqueueEmail(tx, message(to, { subject: "Second", dedupeKey: key }));
      // On PostgreSQL a failed statement would have aborted the transaction: this write and the commit prove it did not.
      await enqueueEmail(tx, message(after, { subject: "Written after the duplicate" }));
      await tx.emailMessage.count();
      return [a, b];
    });
    expect(second).toBe(first);
    const rows = await db().emailMessage.findMany({ where: { dedupeKey: key } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: first, subject: "First" });
    expect(await db().emailMessage.count({ where: { to: after } })).toBe(1);

    // Later, outside any transaction: still the one row.
    expect(await enqueueEmail(db(), message(to, { subject: "Third", dedupeKey: key }))).toBe(first);
    expect(await db().emailMessage.count({ where: { dedupeKey: key } })).toBe(1);
  });

  it("keeps one row when concurrent transactions queue the same key, and both commit", async () => {
    const key = `license:${randomBytes(6).toString("hex")}`;
    const to = address();
    const run = (n: number) =>
      db().$transaction(
        async (tx) => {
          const id = await enqueueEmail(tx, message(to, { subject: `Racer ${n}`, dedupeKey: key }));
          await sleep(150); // hold the transaction open while the other one queues the same key
          await enqueueEmail(tx, message(to, { subject: `After racer ${n}` }));
          return id;
        },
        { timeout: 20_000, maxWait: 20_000 },
      );
    const ids = await Promise.all([run(1), run(2), run(3)]);
    expect(new Set(ids).size).toBe(1);
    expect(await db().emailMessage.count({ where: { dedupeKey: key } })).toBe(1);
    expect(await db().emailMessage.count({ where: { to, subject: { startsWith: "After racer" } } })).toBe(3);
  });
});

describe("deliverPendingEmails", () => {
  it("delivers through the dev mailbox by default and marks the rows sent", async () => {
    expect(mailTransport()).toBeInstanceOf(DevMailboxTransport);
    const ids = [await enqueueEmail(db(), message()), await enqueueEmail(db(), message())];
    const result = await deliverPendingEmails();
    expect(result).toEqual({ sent: 2, failed: 0 });
    for (const id of ids) {
      const row = await db().emailMessage.findUniqueOrThrow({ where: { id } });
      expect(row).toMatchObject({ status: "sent", providerMessageId: `dev-${id}`, lockedUntil: null, lastError: null, attempts: 0 });
      expect(row.sentAt).toBeInstanceOf(Date);
    }
    expect(await deliverPendingEmails({ transport: new DevMailboxTransport() })).toEqual({ sent: 0, failed: 0 });
  });

  it("picks Resend when RESEND_API_KEY is set", () => {
    process.env.RESEND_API_KEY = "re_test_picks";
    resetEnv();
    try {
      const t = mailTransport();
      expect(t).toBeInstanceOf(ResendTransport);
      expect(t.name).toBe("resend");
    } finally {
      delete process.env.RESEND_API_KEY;
      resetEnv();
    }
  });

  it("respects the limit and sends the longest-waiting first", async () => {
    const first = await enqueueEmail(db(), message());
    await clockPast();
    const second = await enqueueEmail(db(), message());
    await clockPast();
    await enqueueEmail(db(), message());
    const { transport, calls } = recordingTransport();
    expect(await deliverPendingEmails({ transport, limit: 2 })).toEqual({ sent: 2, failed: 0 });
    expect(calls.map((c) => c.idempotencyKey)).toEqual([first, second]);
    expect(await db().emailMessage.count({ where: { ...mine(), status: "pending" } })).toBe(1);
  });

  it("never loses a message whose transport throws, and retries it on the backoff schedule", async () => {
    const id = await enqueueEmail(db(), message());
    let now = new Date(Date.now() + S);
    const failures = [
      new Error("x".repeat(2_000)),
      "a bare string",
      { weird: true },
      new TypeError("socket hang up"),
      new Error("quota"),
      new Error("again"),
    ];
    const expected = [30 * S, 120 * S, 600 * S, 3_600 * S, 21_600 * S, 21_600 * S];
    for (const [i, failure] of failures.entries()) {
      const { transport } = recordingTransport({ fail: () => failure });
      expect(await deliverPendingEmails({ transport, now })).toEqual({ sent: 0, failed: 1 });
      const row = await db().emailMessage.findUniqueOrThrow({ where: { id } });
      expect(row.status).toBe("pending");
      expect(row.attempts).toBe(i + 1);
      expect(row.lockedUntil).toBeNull();
      expect(row.lastError!.length).toBeLessThanOrEqual(500);
      expect(row.nextAttemptAt.getTime()).toBe(now.getTime() + expected[i]!);
      // Not due a moment before its time.
      const early = recordingTransport();
      expect(await deliverPendingEmails({ transport: early.transport, now: new Date(row.nextAttemptAt.getTime() - 1) })).toEqual({
        sent: 0,
        failed: 0,
      });
      expect(early.calls).toHaveLength(0);
      now = row.nextAttemptAt;
    }
    const row = await db().emailMessage.findUniqueOrThrow({ where: { id } });
    expect(row.lastError).toContain("again");

    const ok = recordingTransport();
    expect(await deliverPendingEmails({ transport: ok.transport, now })).toEqual({ sent: 1, failed: 0 });
    expect(await db().emailMessage.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: "sent",
      attempts: 6,
      lockedUntil: null,
      lastError: null,
    });
    expect([1, 2, 3, 4, 5, 6, 50].map(retryDelayMs)).toEqual([30 * S, 120 * S, 600 * S, 3_600 * S, 21_600 * S, 21_600 * S, 21_600 * S]);
  });

  it("records a synchronous throw as a failed attempt", async () => {
    const id = await enqueueEmail(db(), message());
    const transport: MailTransport = {
      name: "sync-thrower",
      send() {
        throw new Error("thrown before any promise");
      },
    };
    expect(await deliverPendingEmails({ transport })).toEqual({ sent: 0, failed: 1 });
    expect(await db().emailMessage.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: "pending",
      attempts: 1,
      lastError: "sync-thrower: thrown before any promise",
    });
  });

  it("skips a message another sender holds, and takes it over when that claim has run out", async () => {
    const id = await enqueueEmail(db(), message());
    const now = new Date(Date.now() + S);
    await db().emailMessage.update({ where: { id }, data: { lockedUntil: new Date(now.getTime() + 30 * S) } });
    const { transport, calls } = recordingTransport();
    expect(await deliverPendingEmails({ transport, now })).toEqual({ sent: 0, failed: 0 });
    expect(await deliverPendingEmails({ transport, now: new Date(now.getTime() + 31 * S) })).toEqual({ sent: 1, failed: 0 });
    expect(calls).toHaveLength(1);
  });

  it("sends each message exactly once when senders run concurrently", async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 12; i++) ids.add(await enqueueEmail(db(), message()));
    const { transport, calls } = recordingTransport({ delayMs: 10 });
    const runs = await Promise.all(Array.from({ length: 4 }, () => deliverPendingEmails({ transport, limit: 50 })));
    expect(runs.reduce((n, r) => n + r.sent, 0)).toBe(12);
    expect(runs.reduce((n, r) => n + r.failed, 0)).toBe(0);
    const sentIds = calls.map((c) => c.idempotencyKey);
    expect(sentIds).toHaveLength(12);
    expect(new Set(sentIds)).toEqual(ids);
    expect(await db().emailMessage.count({ where: { ...mine(), status: "sent" } })).toBe(12);
  });
});

describe("background outbox", () => {
  const state = () => (globalThis as Record<symbol, any>)[Symbol.for("indie-license-market.outbox")];

  it("delivers what was queued once kicked, shares its state through globalThis, and stops", async () => {
    const id = await enqueueEmail(db(), message());
    kickOutbox(); // no loop in this process yet: nothing happens
    await sleep(200);
    expect((await db().emailMessage.findUniqueOrThrow({ where: { id } })).status).toBe("pending");

    const stop = startOutbox();
    try {
      expect(startOutbox()).toBe(stop); // idempotent
      expect(state().timer).toBeDefined();
      await waitFor(async () => (await db().emailMessage.findUniqueOrThrow({ where: { id } })).status === "sent");

      const next = await enqueueEmail(db(), message());
      kickOutbox();
      kickOutbox(); // debounced into one run
      await waitFor(async () => (await db().emailMessage.findUniqueOrThrow({ where: { id: next } })).status === "sent", 1_500);
    } finally {
      stop();
    }
    expect(state().timer).toBeUndefined();
    const after = await enqueueEmail(db(), message());
    kickOutbox();
    await sleep(300);
    expect((await db().emailMessage.findUniqueOrThrow({ where: { id: after } })).status).toBe("pending");
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await sleep(25);
  }
}

describe("ResendTransport", () => {
  interface Seen {
    method: string;
    url: string;
    headers: IncomingHttpHeaders;
    body: any;
  }
  let server: Server;
  let base: string;
  const seen: Seen[] = [];
  const replies: Array<{ status: number; body: unknown }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: text ? JSON.parse(text) : undefined });
        const reply = replies.shift() ?? { status: 200, body: { id: `re_${randomBytes(6).toString("hex")}` } };
        res.writeHead(reply.status, { "content-type": "application/json" }).end(JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    seen.length = 0;
    replies.length = 0;
    process.env.RESEND_BASE_URL = base;
  });
  afterEach(() => {
    delete process.env.RESEND_BASE_URL;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const sample = () =>
    licenseEmail({
      buyerEmail: "buyer@example.com",
      productName: `Tape "Saturator" <Pro>`,
      developerName: "Ferrite Audio",
      licenseKey: "ABCD-EFGH-JKLM-NPQR",
      maxMachines: 2,
      pluginId: "com.ferrite.tapesat",
      downloadUrl: "https://downloads.example/tapesat.dmg",
      receiptUrl: "http://localhost:3000/api/receipt?key=ABCD-EFGH-JKLM-NPQR",
      productPageUrl: "http://localhost:3000/products/tape-saturator",
      orderId: "ord_123",
      amountDisplay: "$49.00",
    });

  it("posts the message to the Resend API with the key and the row id as idempotency key", async () => {
    const to = address();
    const mail = sample();
    const id = await enqueueEmail(db(), { to, ...mail, kind: "license" });
    replies.push({ status: 200, body: { id: "re_accepted_1" } });
    const transport = new ResendTransport("re_test_secret");
    expect(await deliverPendingEmails({ transport })).toEqual({ sent: 1, failed: 0 });

    expect(seen).toHaveLength(1);
    const [req] = seen;
    expect(req!.method).toBe("POST");
    expect(req!.url).toBe("/emails");
    expect(req!.headers.authorization).toBe("Bearer re_test_secret");
    expect(req!.headers["content-type"]).toMatch(/^application\/json/);
    expect(req!.headers["idempotency-key"]).toBe(id);
    expect(req!.body).toMatchObject({ from: env().MAIL_FROM, to, subject: mail.subject, html: mail.html, text: mail.text });
    expect(await db().emailMessage.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: "sent", providerMessageId: "re_accepted_1" });
  });

  it("turns an API error into a failed attempt, and sends on a later run", async () => {
    const id = await enqueueEmail(db(), message());
    replies.push({ status: 500, body: { statusCode: 500, name: "internal_server_error", message: "Stub is having a bad day" } });
    replies.push({ status: 200, body: { id: "re_after_retry" } });
    const transport = new ResendTransport("re_test_secret");
    const t0 = new Date(Date.now() + S);

    expect(await deliverPendingEmails({ transport, now: t0 })).toEqual({ sent: 0, failed: 1 });
    let row = await db().emailMessage.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: "pending", attempts: 1, lockedUntil: null, providerMessageId: null, sentAt: null });
    expect(row.lastError).toContain("Stub is having a bad day");
    expect(row.lastError).toContain("500");
    expect(Math.abs(row.nextAttemptAt.getTime() - (t0.getTime() + 30 * S))).toBeLessThan(S);

    expect(await deliverPendingEmails({ transport, now: new Date(t0.getTime() + 10 * S) })).toEqual({ sent: 0, failed: 0 });
    expect(seen).toHaveLength(1);

    expect(await deliverPendingEmails({ transport, now: new Date(t0.getTime() + 31 * S) })).toEqual({ sent: 1, failed: 0 });
    row = await db().emailMessage.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: "sent", attempts: 1, providerMessageId: "re_after_retry", lockedUntil: null, lastError: null });
    expect(seen).toHaveLength(2);
    expect(seen.map((s) => s.headers["idempotency-key"])).toEqual([id, id]);
  });

  it("turns a validation error and an unreachable API into failed attempts", async () => {
    const id = await enqueueEmail(db(), message());
    replies.push({ status: 422, body: { statusCode: 422, name: "validation_error", message: "Invalid `from` field." } });
    expect(await deliverPendingEmails({ transport: new ResendTransport("re_test_secret") })).toEqual({ sent: 0, failed: 1 });
    expect((await db().emailMessage.findUniqueOrThrow({ where: { id } })).lastError).toMatch(/validation_error.*Invalid `from` field/);

    process.env.RESEND_BASE_URL = "http://127.0.0.1:1"; // nothing listens there
    const later = new Date(Date.now() + 31 * S);
    expect(await deliverPendingEmails({ transport: new ResendTransport("re_test_secret"), now: later })).toEqual({ sent: 0, failed: 1 });
    expect(await db().emailMessage.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: "pending",
      attempts: 2,
      lastError: expect.stringMatching(/^resend: /),
    });
  });
});

describe("dev mailbox", () => {
  // Next hands route handlers the Host the client sent; the mailbox wants a loopback one.
  const get = (query: string, headers: Record<string, string> = { "x-ilm-client-address": "127.0.0.1" }) =>
    call(mailboxRoute, `/api/dev/mailbox${query}`, { headers: { host: "localhost:3000", ...headers } });

  afterEach(() => {
    delete process.env.DEV_MAILBOX;
    delete process.env.RESEND_API_KEY;
    resetEnv();
  });

  it("lists the newest messages to an address as JSON for local clients", async () => {
    const to = address();
    const a = await enqueueEmail(db(), message(to, { subject: "Older" }));
    await clockPast();
    const b = await enqueueEmail(db(), message(to, { subject: "Newer", kind: "license" }));
    await enqueueEmail(db(), message()); // someone else's
    await deliverPendingEmails({ transport: new DevMailboxTransport(), limit: 50 });

    const r = await get(`?to=${encodeURIComponent(to.toUpperCase())}`);
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.body.messages.map((m: { id: string }) => m.id)).toEqual([b, a]);
    expect(r.body.messages[0]).toEqual({
      id: b,
      to,
      subject: "Newer",
      kind: "license",
      status: "sent",
      attempts: 0,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      sent_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      text: expect.stringContaining("Hello"),
      html: expect.stringContaining("<p>Hello"),
    });

    const one = await get(`?to=${encodeURIComponent(to)}&limit=1`, { "x-ilm-client-address": "::ffff:127.0.0.1" });
    expect(one.body.messages).toHaveLength(1);
    expect((await get(`?to=${encodeURIComponent(to)}`, { "x-ilm-client-address": "::1" })).status).toBe(200);
  });

  it("shows nothing older than an hour: a sign-in link or a key does not lie there for good", async () => {
    const to = address();
    const old = await enqueueEmail(db(), message(to, { subject: "Two hours ago" }));
    await db().emailMessage.update({ where: { id: old }, data: { createdAt: new Date(Date.now() - 2 * 3_600_000) } });
    const fresh = await enqueueEmail(db(), message(to, { subject: "Just now" }));
    const r = await get(`?to=${encodeURIComponent(to)}`);
    expect(r.body.messages.map((m: { id: string }) => m.id)).toEqual([fresh]);
    expect(await getDevMailboxMessage(old)).toBeNull();
    expect(await getDevMailboxMessage(fresh)).not.toBeNull();
  });

  it("in production without a mail provider: the operator's sign-in links are not written there unless DEV_MAILBOX=local, and the startup line says mail is local only", async () => {
    const saved = { NODE_ENV: process.env.NODE_ENV, ADMIN_EMAILS: process.env.ADMIN_EMAILS };
    const operator = address();
    const seller = address();
    process.env.ADMIN_EMAILS = operator;
    try {
      for (const [mode, operatorGetsLink] of [
        [undefined, false],
        ["local", true],
      ] as const) {
        if (mode) process.env.DEV_MAILBOX = mode;
        else delete process.env.DEV_MAILBOX;
        Object.assign(process.env, { NODE_ENV: "production" });
        resetEnv();
        const mails = (to: string) => db().emailMessage.count({ where: { to, kind: "sign-in" } });
        const before = { operator: await mails(operator), seller: await mails(seller) };
        const answers = [await requestSignIn({ email: operator, purpose: "seller" }), await requestSignIn({ email: seller, purpose: "seller" })];
        // The same answer for both: nothing tells an asker which address is the operator's.
        expect(answers.map((a) => Object.keys(a))).toEqual([["digest"], ["digest"]]);
        expect(await mails(operator)).toBe(before.operator + (operatorGetsLink ? 1 : 0));
        expect(await mails(seller)).toBe(before.seller + 1);
        expect(mailSummary()).toMatch(/^mail: LOCAL ONLY \(no RESEND_API_KEY\)/);
        expect(mailSummary().includes("operator's sign-in links are not written there")).toBe(!operatorGetsLink);
      }
    } finally {
      Object.assign(process.env, { NODE_ENV: saved.NODE_ENV });
      if (saved.ADMIN_EMAILS === undefined) delete process.env.ADMIN_EMAILS;
      else process.env.ADMIN_EMAILS = saved.ADMIN_EMAILS;
      resetEnv();
    }
  });

  it("validates the query", async () => {
    expectProblem(await get("?limit=0"), 400, "invalid_query");
    expectProblem(await get("?limit=51"), 400, "invalid_query");
    expectProblem(await get("?limit=abc"), 400, "invalid_query");
    expectProblem(await get("?to=not-an-address"), 400, "invalid_query");
    expect((await get("?limit=50")).status).toBe(200);
    expectProblem(await call(mailboxPost, "/api/dev/mailbox", { method: "POST" }), 405, "method_not_allowed");
  });

  it("is a 404 for remote clients, proxied requests and once Resend is configured", async () => {
    expectProblem(await get("", { "x-ilm-client-address": "203.0.113.9" }), 404, "not_found");
    expectProblem(await get("", { "x-ilm-client-address": "::ffff:10.0.0.7" }), 404, "not_found");
    expectProblem(await get("", {}), 404, "not_found");
    // A local reverse proxy we were not told about: every visitor would look like 127.0.0.1.
    expectProblem(await get("", { "x-ilm-client-address": "127.0.0.1", "x-forwarded-for": "198.51.100.4" }), 404, "not_found");
    expectProblem(await get("", { "x-ilm-client-address": "127.0.0.1", "x-forwarded-for": "127.0.0.1, 198.51.100.4" }), 404, "not_found");
    expectProblem(await get("", { "x-ilm-client-address": "::1", "x-real-ip": "198.51.100.4" }), 404, "not_found");
    expectProblem(await get("", { "x-ilm-client-address": "127.0.0.1", forwarded: 'for="[2001:db8::1]:4711";proto=https' }), 404, "not_found");
    expectProblem(await get("", { "x-ilm-client-address": "127.0.0.1", forwarded: "for=_hidden" }), 404, "not_found");
    // Next sets X-Forwarded-For to the socket address itself when a request has none: still local.
    expect((await get("", { "x-ilm-client-address": "127.0.0.1", "x-forwarded-for": "127.0.0.1" })).status).toBe(200);
    expect((await get("", { "x-ilm-client-address": "::ffff:127.0.0.1", forwarded: 'for="[::1]:5000", for=127.0.0.1' })).status).toBe(200);

    // A page on another name pointed at 127.0.0.1 (DNS rebinding), however local its client looks.
    expectProblem(await get("", { "x-ilm-client-address": "127.0.0.1", host: "rebind.attacker.example:3000" }), 404, "not_found");
    expectProblem(await get("", { "x-ilm-client-address": "127.0.0.1", "x-forwarded-host": "rebind.attacker.example" }), 404, "not_found");
    expectProblem(await get("", { "x-ilm-client-address": "127.0.0.1", host: "" }), 404, "not_found");
    expect((await get("", { "x-ilm-client-address": "127.0.0.1", host: "[::1]:3000", "x-forwarded-host": "127.0.0.1:3000" })).status).toBe(200);

    process.env.DEV_MAILBOX = "public";
    expect((await get("", { "x-ilm-client-address": "203.0.113.9" })).status).toBe(200);
    expect((await get("", { "x-ilm-client-address": "203.0.113.9", host: "shared-test.example" })).status).toBe(200);

    process.env.RESEND_API_KEY = "re_live_configured";
    resetEnv();
    expectProblem(await get("", { "x-ilm-client-address": "127.0.0.1" }), 404, "not_found");
  });

  it("renders the pages for local clients and hides them from everyone else", async () => {
    const to = address();
    const id = await enqueueEmail(db(), { to, ...licenseEmailFor(`<script>alert("x")</script> Synth`), kind: "license" });
    const notFound = /NEXT_HTTP_ERROR_FALLBACK;404/;

    pageHeaders = new Headers({ "x-ilm-client-address": "127.0.0.1", host: "localhost:3000" });
    const list = renderToStaticMarkup(await DevMailboxPage({ searchParams: Promise.resolve({ to }) }));
    expect(list).toContain("This is the development mailbox");
    expect(list).toContain("RESEND_API_KEY");
    expect(list).toContain(`href="/dev/mailbox/${id}"`);
    expect(list).toContain("Your license key for &lt;script&gt;");
    expect(list).not.toContain("<script>");

    const detail = renderToStaticMarkup(await DevMailboxMessagePage({ params: Promise.resolve({ id }) }));
    expect(detail).toMatch(/<iframe[^>]*sandbox=""/);
    expect(detail).toMatch(/<iframe[^>]*srcdoc="&lt;!DOCTYPE html&gt;/i);
    expect(detail).toMatch(/<pre[^>]*>Thanks for buying &lt;script&gt;/);
    expect(detail).toContain(env().MAIL_FROM.replace(/</g, "&lt;").replace(/>/g, "&gt;"));
    expect(detail).not.toContain("<script>");
    await expect(DevMailboxMessagePage({ params: Promise.resolve({ id: "no-such-message" }) })).rejects.toThrow(notFound);

    for (const headers of [
      { "x-ilm-client-address": "192.0.2.1", host: "localhost:3000" },
      { "x-ilm-client-address": "127.0.0.1", host: "rebind.attacker.example:3000" },
    ]) {
      pageHeaders = new Headers(headers);
      await expect(DevMailboxPage({ searchParams: Promise.resolve({}) })).rejects.toThrow(notFound);
      await expect(DevMailboxMessagePage({ params: Promise.resolve({ id }) })).rejects.toThrow(notFound);
    }
  });
});

function licenseEmailFor(productName: string) {
  return licenseEmail({
    buyerEmail: "buyer@example.com",
    productName,
    developerName: "Dev",
    licenseKey: "ABCD-EFGH-JKLM-NPQR",
    maxMachines: 1,
    pluginId: "com.dev.synth",
    downloadUrl: "https://downloads.example/synth.zip",
    receiptUrl: "http://localhost:3000/api/receipt?key=ABCD-EFGH-JKLM-NPQR",
    productPageUrl: "http://localhost:3000/products/synth",
    orderId: "ord_1",
    amountDisplay: "$9.00",
  });
}
