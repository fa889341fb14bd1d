import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { POST as create } from "@/app/api/checkout/create/route";
import { POST as trials } from "@/app/api/trials/route";
import { disconnectDb, getDb } from "@/lib/db";
import { IDEMPOTENCY_TTL_MS, runIdempotent, sweepIdempotencyRecords } from "@/lib/http/idempotency";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";
import { call, expectProblem } from "../helpers/http";

// Issue 14, item 3: every POST that creates or pays takes an Idempotency-Key; the same key with the same body returns
// the first response, with another body 422; stored in the database, so it holds across instances and restarts.

afterAll(() => disconnectDb());

const product = () => getDb().product.findFirstOrThrow({ where: { status: "active", priceCents: { gt: 0 } }, orderBy: { id: "asc" } });

const checkout = (body: Record<string, unknown>, key?: string, client = "198.51.100.7") =>
  call(create, "/api/checkout/create", {
    method: "POST",
    json: body,
    headers: { [CLIENT_ADDRESS_HEADER]: client, ...(key !== undefined ? { "idempotency-key": key } : {}) },
  });

describe("Idempotency-Key on POST /api/checkout/create", () => {
  it("a retry with the same key and body returns the first session, and opens no second order", async () => {
    const p = await product();
    const key = randomUUID();
    const body = { product_id: p.id, buyer_email: "idem@example.com" };
    const before = await getDb().order.count();
    const first = await checkout(body, key);
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get("idempotency-key")).toBe(key);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    // The same body in another key order is the same request.
    const again = await checkout({ buyer_email: "idem@example.com", product_id: p.id }, key);
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await getDb().order.count()).toBe(before + 1);
  });

  it("the same key with another body is 422 idempotency_conflict, and changes nothing", async () => {
    const p = await product();
    const key = randomUUID();
    expect((await checkout({ product_id: p.id, buyer_email: "one@example.com" }, key)).status).toBe(200);
    const before = await getDb().order.count();
    const other = await checkout({ product_id: p.id, buyer_email: "two@example.com" }, key);
    expectProblem(other, 422, "idempotency_conflict");
    expect(other.body.errors[0]).toMatchObject({ in: "header", name: "Idempotency-Key" });
    expect(await getDb().order.count()).toBe(before);
  });

  it("racing requests with one key make one order: the others replay it or are told to retry", async () => {
    const p = await product();
    const key = randomUUID();
    const before = await getDb().order.count();
    const replies = await Promise.all(Array.from({ length: 6 }, () => checkout({ product_id: p.id, buyer_email: "race@example.com" }, key)));
    expect(await getDb().order.count()).toBe(before + 1);
    const ok = replies.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.body.session_id)).size).toBe(1);
    for (const r of replies.filter((x) => x.status !== 200)) {
      expectProblem(r, 409, "idempotency_in_flight");
      expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
    }
  });

  it("without a key every request opens its own session, as before", async () => {
    const p = await product();
    const a = await checkout({ product_id: p.id, buyer_email: "nokey@example.com" });
    const b = await checkout({ product_id: p.id, buyer_email: "nokey@example.com" });
    expect(a.body.session_id).not.toBe(b.body.session_id);
  });

  it("a failed request leaves the key free: fixing the cause and retrying with it works", async () => {
    const key = randomUUID();
    expectProblem(await checkout({ product_id: "no-such-product", buyer_email: "a@example.com" }, key), 404, "product_not_found");
    expect(await getDb().idempotencyRecord.count({ where: { state: "pending" } })).toBe(0);
    // Not stored: the same request runs again (and fails again the same way) rather than replaying.
    expectProblem(await checkout({ product_id: "no-such-product", buyer_email: "a@example.com" }, key), 404, "product_not_found");
  });

  it("refuses a malformed key by name", async () => {
    const p = await product();
    for (const key of ["has space", "x".repeat(256), "tab\tkey"]) {
      const r = await checkout({ product_id: p.id, buyer_email: "a@example.com" }, key);
      expect(r.status, r.text).toBe(400);
      expect(["invalid_idempotency_key", "invalid_header"]).toContain(r.body.code);
    }
  });
});

describe("Idempotency-Key on POST /api/trials", () => {
  it("replays the first 202 and does not ask for a second e-mail", async () => {
    const p = await getDb().product.findFirstOrThrow({ where: { status: "active", trialAvailable: true }, orderBy: { id: "asc" } });
    const key = randomUUID();
    const send = () =>
      call(trials, "/api/trials", {
        method: "POST",
        json: { product_id: p.id, buyer_email: "idem-trial@gmail.com" },
        headers: { [CLIENT_ADDRESS_HEADER]: "198.51.100.8", "idempotency-key": key },
      });
    const first = await send();
    expect(first.status, first.text).toBe(202);
    const mails = await getDb().emailMessage.count({ where: { to: "idem-trial@gmail.com" } });
    const again = await send();
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await getDb().emailMessage.count({ where: { to: "idem-trial@gmail.com" } })).toBe(mails);
  });
});

describe("the stored answers", () => {
  it("are scoped by operation and caller, expire after 24 h and are swept", async () => {
    let runs = 0;
    const op = () => Promise.resolve(++runs);
    const key = randomUUID();
    const t0 = new Date();
    expect(await runIdempotent({ operationId: "x", caller: "public", key }, { a: 1 }, op, t0)).toEqual({ output: 1, replayed: false });
    expect(await runIdempotent({ operationId: "x", caller: "public", key }, { a: 1 }, op, t0)).toEqual({ output: 1, replayed: true });
    // Another caller or operation with the same key is another request.
    expect((await runIdempotent({ operationId: "x", caller: "agent:p1", key }, { a: 1 }, op, t0)).output).toBe(2);
    expect((await runIdempotent({ operationId: "y", caller: "public", key }, { a: 1 }, op, t0)).output).toBe(3);
    // After 24 h the key is free again.
    const later = new Date(t0.getTime() + IDEMPOTENCY_TTL_MS + 1000);
    expect(await runIdempotent({ operationId: "x", caller: "public", key }, { a: 2 }, op, later)).toEqual({ output: 4, replayed: false });
    expect(await sweepIdempotencyRecords(new Date(later.getTime() + IDEMPOTENCY_TTL_MS + 1000))).toBeGreaterThanOrEqual(1);
  });
});
