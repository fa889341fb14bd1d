import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolParameters, sellerTools, tools } from "@/lib/agents/tools";
import { openApiDocument } from "@/lib/api/openapi";
import { resetEnv } from "@/lib/env";
import { rateLimiter } from "@/lib/http/rate-limit";
import type { CallContext, HandlerContext, Operation } from "@/lib/operations/define";
import { execute } from "@/lib/operations/execute";
import { bodyCapOf, idempotencyOf, readOnlyOf } from "@/lib/operations/guarantees";
import { operations } from "@/lib/operations/index";

/**
 * Walks the registry and checks, operation by operation, what must hold for all of them whatever the transport:
 * limits, idempotency on writes that create or move money, no write announced read-only, and the body cap. Each
 * check runs execute() itself (with the operation's declaration and a handler that only records that it ran), so a
 * default that execute() stopped applying fails here for every operation at once.
 */

const ops = operations();
const ctx = (): CallContext => ({
  transport: "rest",
  client: "203.0.113.7",
  requestId: "req",
  headers: new Headers(),
  origin: "http://localhost:3000",
});

/** The caller execute() would have established, so the walk needs no database. */
function callerFor(op: Operation): Pick<HandlerContext, "seller" | "admin" | "agent" | "buyer"> {
  if (op.auth === "seller")
    return {
      seller: { email: "s@example.com", developer: { id: "dev_1", name: "S", email: "s@example.com" }, via: "session", actor: "s@example.com" },
    };
  if (op.auth === "admin") return { admin: { email: "op@example.com" } };
  if (op.auth === "agent") return { agent: { platformId: null, name: "anonymous" } };
  if (op.auth === "buyer") return { buyer: { email: "b@example.com" } };
  return {};
}

/** The operation as declared, with a handler that runs nothing. */
const inert = (op: Operation): Operation => ({ ...op, handler: () => ({}) });

/**
 * POSTs that only read. Each is reviewed: a new one must be added here with its reason, so a write cannot be
 * declared read-only (and lose its idempotency and write limits) unnoticed.
 */
const READ_ONLY_POSTS: Record<string, string> = {
  validateLicense: "answers a license's standing; writes only the last-validated time",
  checkLicenseStatus: "answers a license's standing without a machine",
  verifyReceipt: "verifies a receipt it is given",
  quoteCheckout: "prices a cart",
  lookupDeviceCode: "shows a device request by its user code",
  quoteUpgrade: "prices an upgrade for a license",
};

/** Writes of the HTTP API that take no idempotency key, each for the reason it declares. */
const EXEMPT = ["activateLicense", "deactivateLicense", "pollDeviceToken", "denyDevice", "stripeWebhook", "verifyEmbedOrigin", "setBundleItems"];
/** The same for the operations behind the pages' own form routes (no HTTP route of their own). */
const FORM_EXEMPT = [
  "buyerOpenBillingPortal",
  "cancelTestCheckout",
  "confirmSignIn",
  "endSession",
  "payTestCheckout",
  "refreshPayoutAccount",
  "requestSignIn",
];

/** What a creating or money-moving POST is called; each of these must take a key. */
const CREATES_OR_MOVES_MONEY = /^(create|issue|register|start|refund|connect|delegate|complete|submit|simulate|upload|redeliver|retry|sendWebhook)/;

describe("the operation registry's guarantees", () => {
  beforeEach(() => {
    rateLimiter().reset();
  });
  afterEach(() => {
    delete process.env.RATE_LIMIT_READ_PER_MIN;
    delete process.env.RATE_LIMIT_WRITE_PER_MIN;
    resetEnv();
    rateLimiter().reset();
  });

  it("has a healthy number of operations to walk", () => {
    expect(ops.length).toBeGreaterThan(100);
  });

  it("derives read or write from the method unless declared, and never announces a write as read-only", () => {
    for (const op of ops) {
      const method = op.http?.method;
      if (method === "GET") expect(readOnlyOf(op), op.id).toBe(true);
      else if (method && readOnlyOf(op)) expect(READ_ONLY_POSTS[op.id], `${op.id} is a ${method} declared read-only`).toBeDefined();
      if (!op.http) expect(typeof op.readOnly, `${op.id} has no HTTP route and must declare readOnly`).toBe("boolean");
    }
    for (const t of [...tools(), ...sellerTools()]) expect(t.readOnly, t.name).toBe(readOnlyOf(t.operation));
    // The two writes once announced read-only to MCP clients.
    const byName = new Map([...tools(), ...sellerTools()].map((t) => [t.name, t]));
    expect(byName.get("review_product")?.readOnly).toBe(false);
    expect(byName.get("seller_reply_to_review")?.readOnly).toBe(false);
  });

  it("gives every write POST an idempotency key unless it says why not, and declares it in OpenAPI and on its tools", () => {
    const doc = openApiDocument() as { paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>> };
    for (const op of ops) {
      const writePost = op.http?.method === "POST" && !readOnlyOf(op);
      if (writePost && !EXEMPT.includes(op.id)) expect(idempotencyOf(op), `${op.id} writes and takes no Idempotency-Key`).toBeDefined();
      if (EXEMPT.includes(op.id) || FORM_EXEMPT.includes(op.id)) expect(op.idempotencyExempt?.length, op.id).toBeGreaterThan(20);
      if (CREATES_OR_MOVES_MONEY.test(op.id) && !EXEMPT.includes(op.id) && op.http?.method === "POST")
        expect(idempotencyOf(op), `${op.id} creates or moves money`).toBeDefined();
      if (!op.http) continue;
      const params = doc.paths[op.http.path]?.[op.http.method.toLowerCase()]?.parameters ?? [];
      expect(
        params.some((p) => p.in === "header" && p.name === "Idempotency-Key"),
        `${op.id}: OpenAPI declares Idempotency-Key exactly where it is honoured`,
      ).toBe(idempotencyOf(op) !== undefined);
      for (const spec of op.tools ?? []) {
        const t = [...tools(), ...sellerTools()].find((x) => x.name === spec.name)!;
        const props = (toolParameters(t).properties ?? {}) as Record<string, unknown>;
        if (idempotencyOf(op) && !spec.idempotencyKey) expect(props, `${t.name} takes idempotency_key`).toHaveProperty("idempotency_key");
      }
    }
    expect(ops.filter((op) => op.http && op.idempotencyExempt !== undefined).map((op) => op.id)).toEqual(EXEMPT);
    expect(
      ops
        .filter((op) => !op.http && op.idempotencyExempt !== undefined)
        .map((op) => op.id)
        .sort(),
    ).toEqual(FORM_EXEMPT);
  });

  it("counts every operation against a limit: its own rules, or the default per caller", async () => {
    process.env.RATE_LIMIT_READ_PER_MIN = "1";
    process.env.RATE_LIMIT_WRITE_PER_MIN = "1";
    resetEnv();
    for (const op of ops) {
      if (op.limits) {
        expect(op.limits({}, ctx()).length, `${op.id} declares limits that count nothing`).toBeGreaterThan(0);
        continue;
      }
      const caller = callerFor(op);
      const once = () => execute(inert(op), {}, { ...ctx(), ...(idempotencyOf(op) === "required" ? { idempotencyKey: undefined } : {}) }, { caller });
      await once().catch((e: unknown) => e);
      const second = await once().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((second as { status?: number } | undefined)?.status, `${op.id}: the second call over a limit of 1 is refused`).toBe(429);
    }
  });

  it("keeps one caller's default budget apart from another's, and one operation's from another's", async () => {
    process.env.RATE_LIMIT_WRITE_PER_MIN = "1";
    resetEnv();
    const op = inert(ops.find((o) => o.id === "createCoupon")!);
    const seller = (id: string) => ({ seller: { ...callerFor(op).seller!, developer: { id, name: id, email: `${id}@example.com` } } });
    await execute(op, {}, ctx(), { caller: seller("a") });
    await execute(op, {}, ctx(), { caller: seller("b") });
    await expect(execute(op, {}, ctx(), { caller: seller("a") })).rejects.toMatchObject({ status: 429 });
    await execute(inert(ops.find((o) => o.id === "deactivateCoupon")!), {}, ctx(), { caller: seller("a") });
    // Anonymous callers are told apart by address.
    const pub = inert(ops.find((o) => o.id === "submitReview")!);
    const limitsOff = { ...pub, limits: undefined };
    await execute(limitsOff, {}, { ...ctx(), client: "198.51.100.1" });
    await execute(limitsOff, {}, { ...ctx(), client: "198.51.100.2" });
    await expect(execute(limitsOff, {}, { ...ctx(), client: "198.51.100.1" })).rejects.toMatchObject({ status: 429 });
  });

  it("refuses, on every transport, an input larger than the operation's body cap", async () => {
    let walked = 0;
    for (const op of ops) {
      if (!op.input?.body || op.http?.rawBody || op.http?.bodyStream) continue;
      const cap = bodyCapOf(op);
      for (const transport of ["rest", "lean", "mcp", "a2a", "action"] as const) {
        const big = { padding: "x".repeat(cap) };
        await expect(
          execute(inert(op), big, { ...ctx(), transport, idempotencyKey: "k" }, { caller: callerFor(op) }),
          `${op.id} over ${transport}`,
        ).rejects.toMatchObject({ status: 413, code: "body_too_large" });
      }
      // Just under the cap passes the check (the inert handler answers).
      const fits = { padding: "x".repeat(cap - 20) };
      const result = await execute(inert(op), fits, { ...ctx(), transport: "mcp" }, { caller: callerFor(op) }).catch((e: unknown) => e);
      expect((result as { status?: number }).status, `${op.id} under its cap`).not.toBe(413);
      walked++;
    }
    expect(walked).toBeGreaterThan(40);
  });

  it("states each operation's own body cap in OpenAPI", () => {
    const doc = openApiDocument() as { paths: Record<string, Record<string, { requestBody?: { "x-max-body-bytes"?: number } }>> };
    for (const op of ops) {
      if (!op.http || !op.input?.body || op.http.bodyStream) continue;
      expect(doc.paths[op.http.path]?.[op.http.method.toLowerCase()]?.requestBody?.["x-max-body-bytes"], op.id).toBe(bodyCapOf(op));
    }
  });
});
