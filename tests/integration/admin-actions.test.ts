import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER, rateLimiter } from "@/lib/http/rate-limit";
import { createTestProduct, sellerCookie, sellingDeveloper } from "../helpers/sellers";

/**
 * The operator console's server actions as adapters over the registry (app/admin/**): each runs the operator's
 * operation through runOperation(), with the request's headers as Next gives them to an action. Someone who is not the
 * operator gets the 404 page; a refusal comes back to the page as a code it words; the refund's amount is read by
 * parseMoney in the order's currency; a refund or a registration sent twice with the form's idempotency key acts once.
 */

const request = { headers: new Headers() };
vi.mock("next/headers", () => ({ headers: () => Promise.resolve(request.headers) }));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));

const { refundOrderAction, suspendSellerAction, testDisputeAction, featureProductAction } = await import("@/app/admin/actions");
const { registerPlatformAction, setWebhookAction } = await import("@/app/admin/agents/actions");
const { hideReviewAction } = await import("@/app/admin/reviews/actions");

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const OPERATOR = `admin-actions-ops-${run}@example.com`;
const saved = { ADMIN_EMAILS: process.env.ADMIN_EMAILS, PAYMENTS: process.env.PAYMENTS };
const cookies = { operator: "", seller: "" };
const fx = { sellerId: "", product: "" };
let seq = 0;

function as(cookie: string, origin = "http://localhost:3000"): void {
  request.headers = new Headers({ [CLIENT_ADDRESS_HEADER]: "198.51.100.42", origin, ...(cookie ? { cookie } : {}) });
}

const form = (fields: Record<string, string>) => {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.set(k, v);
  return fd;
};

/** Where the action went: its redirect, the 404 page, or nothing (it answered). */
async function outcome(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => "",
    (e: unknown) => {
      const digest = (e as { digest?: string }).digest ?? "";
      if (digest.startsWith("NEXT_REDIRECT")) return digest.split(";")[2]!;
      if (digest.startsWith("NEXT_HTTP_ERROR_FALLBACK;404")) return "404";
      throw e;
    },
  );
}

async function paidOrder(): Promise<string> {
  const { session_id } = await createCheckout({ product_id: fx.product, buyer_email: `admin-actions-buyer-${run}-${++seq}@example.com` });
  await payTestCheckout(session_id);
  return session_id;
}

beforeAll(async () => {
  process.env.ADMIN_EMAILS = OPERATOR;
  process.env.PAYMENTS = "test";
  resetEnv();
  const email = `admin-actions-seller-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Console Studio ${run}`, website: null, bio: "" });
  await getDb().developer.update({ where: { id: dev.id }, data: { refundPolicy: "Refunds within 14 days.", supportEmail: email } });
  fx.sellerId = dev.id;
  fx.product = (await createTestProduct(dev.id, `Console ${run}`, `com.adminactions.app${run}`, { currency: "eur", price_cents: 1990 })).id;
  cookies.operator = await sellerCookie(OPERATOR);
  cookies.seller = await sellerCookie(email);
});

beforeEach(() => {
  rateLimiter().reset();
});

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = v;
  }
  resetEnv();
  await disconnectDb();
});

describe("the console's actions", () => {
  it("show anyone but the operator the 404 page, and change nothing", async () => {
    const order = await paidOrder();
    for (const cookie of ["", cookies.seller]) {
      as(cookie);
      expect(await outcome(refundOrderAction(form({ id: order, amount: "", reason: "Not the operator" })))).toBe("404");
      expect(await outcome(suspendSellerAction(form({ id: fx.sellerId, reason: "Not the operator" })))).toBe("404");
      expect(await outcome(registerPlatformAction({}, form({ name: `Intruder ${run}` })))).toBe("404");
      expect(await outcome(hideReviewAction(form({ id: "rev_x", reason: "Not the operator" })))).toBe("404");
    }
    expect(await getDb().refund.count({ where: { orderId: order } })).toBe(0);
    expect(await getDb().agentPlatform.count({ where: { name: `Intruder ${run}` } })).toBe(0);
  });

  it("refuse a write from another origin", async () => {
    as(cookies.operator, "https://evil.example");
    expect(await outcome(featureProductAction(form({ id: fx.product })))).toBe("/admin/products?error=failed");
    expect((await getDb().product.findUniqueOrThrow({ where: { id: fx.product } })).featuredAt).toBeNull();
  });

  it("come back with a code the page words: a bad form is `invalid`, a refusal its own code", async () => {
    as(cookies.operator);
    expect(await outcome(suspendSellerAction(form({ id: fx.sellerId, reason: "x" })))).toBe("/admin/sellers?error=invalid");
    expect(await outcome(suspendSellerAction(form({ id: "dev_nobody", reason: "No such seller" })))).toBe("/admin/sellers?error=seller_not_found");
    expect(await outcome(setWebhookAction(form({ id: "ap_missing", webhook_url: "ftp://x" })))).toBe("/admin/agents?error=invalid_webhook_url");
    expect(await outcome(hideReviewAction(form({ id: "nosuchreview", reason: "Spam" })))).toBe("/admin/reviews?error=review_not_found");
    expect(await outcome(testDisputeAction(form({ id: await paidOrder(), step: "maybe" })))).toMatch(/\/admin\/orders\/cs_\w+\?error=invalid$/);
  });

  it("refund the amount typed, read in the order's currency; the same form sent twice refunds once", async () => {
    const order = await paidOrder();
    as(cookies.operator);
    const key = randomUUID();
    // Unconfirmed, nothing is refunded (the form's checkbox, as on the seller's refund form).
    const unconfirmed = { id: order, amount: "1,5", reason: "Half a preset bank was missing.", idempotency_key: randomUUID() };
    expect(await outcome(refundOrderAction(form(unconfirmed)))).toBe(`/admin/orders/${order}?error=refund_unconfirmed`);
    expect(await getDb().refund.count({ where: { orderId: order } })).toBe(0);
    const fields = { id: order, amount: "1,5", reason: "Half a preset bank was missing.", confirm: "on", idempotency_key: key };
    expect(await outcome(refundOrderAction(form(fields)))).toBe(`/admin/orders/${order}?notice=refunded`);
    expect(await outcome(refundOrderAction(form(fields)))).toBe(`/admin/orders/${order}?notice=refunded`);
    const refunds = await getDb().refund.findMany({ where: { orderId: order } });
    expect(refunds.map((r) => [r.amountCents, r.currency, r.initiatedBy, r.actorEmail])).toEqual([[150, "eur", "operator", OPERATOR]]);

    // The parser's refusals, by code; nothing refunded.
    for (const [amount, code] of [
      ["1,234", "amount_ambiguous"],
      ["twelve", "amount_not_a_number"],
      ["-3", "amount_negative"],
      ["1.234", "amount_ambiguous"],
      ["5000000000", "refund_exceeds_remaining"],
    ] as const)
      expect(
        await outcome(refundOrderAction(form({ id: order, amount, reason: "Refused", confirm: "on", idempotency_key: randomUUID() }))),
        amount,
      ).toBe(`/admin/orders/${order}?error=${code}`);
    expect(
      await outcome(refundOrderAction(form({ id: order, amount: "50", reason: "Too much", confirm: "on", idempotency_key: randomUUID() }))),
    ).toBe(`/admin/orders/${order}?error=refund_exceeds_remaining`);
    expect(await outcome(refundOrderAction(form({ id: "cs_nosuchorder", amount: "", reason: "Gone" })))).toBe("/admin/orders?error=order_not_found");
    expect(await getDb().refund.count({ where: { orderId: order } })).toBe(1);

    // Blank: all that remains.
    expect(await outcome(refundOrderAction(form({ id: order, amount: " ", reason: "The rest", confirm: "on", idempotency_key: randomUUID() })))).toBe(
      `/admin/orders/${order}?notice=refunded`,
    );
    expect((await getDb().order.findUniqueOrThrow({ where: { id: order } })).refundedCents).toBe(1990);
  });

  it("open a test dispute once for a form sent twice", async () => {
    const order = await paidOrder();
    as(cookies.operator);
    const fields = { id: order, step: "open", idempotency_key: randomUUID() };
    expect(await outcome(testDisputeAction(form(fields)))).toBe(`/admin/orders/${order}?notice=test-dispute`);
    expect(await outcome(testDisputeAction(form(fields)))).toBe(`/admin/orders/${order}?notice=test-dispute`);
    expect((await getDb().order.findUniqueOrThrow({ where: { id: order } })).disputeStatus).toBe("open");
    expect(await outcome(testDisputeAction(form({ ...fields, idempotency_key: randomUUID() })))).toBe(`/admin/orders/${order}?error=dispute_exists`);
    // While the bank decides, the refund form is disabled on the page, and a refund sent anyway is refused.
    const refund = { id: order, amount: "", reason: "During a dispute", confirm: "on", idempotency_key: randomUUID() };
    expect(await outcome(refundOrderAction(form(refund)))).toBe(`/admin/orders/${order}?error=order_disputed`);
    expect(await getDb().refund.count({ where: { orderId: order } })).toBe(0);
  });

  it("register a platform: a bad field is worded, the key is shown, and the same form sent twice registers one", async () => {
    as(cookies.operator);
    const name = `Console Agent ${run}`;
    const refused = await registerPlatformAction({}, form({ name, webhook_url: "http://agent.example.com/hooks" }));
    expect(refused.error).toMatch(/^The webhook URL .*https/);
    expect(refused.values).toEqual({ name, webhook_url: "http://agent.example.com/hooks" });
    expect((await registerPlatformAction({}, form({ name: "x" }))).error).toBe("Give the platform a name of 2 to 100 characters on one line.");

    const key = randomUUID();
    const first = await registerPlatformAction({}, form({ name, webhook_url: "", idempotency_key: key }));
    expect(first).toMatchObject({ name, apiKey: expect.stringMatching(/^acpk_/), webhookSecret: expect.stringMatching(/^whsec_/) });
    const again = await registerPlatformAction({}, form({ name, webhook_url: "", idempotency_key: key }));
    expect(again.apiKey).toBe(first.apiKey);
    expect(await getDb().agentPlatform.count({ where: { name } })).toBe(1);
  });

  it("answer arguments a browser could not have sent with a 400", async () => {
    as(cookies.operator);
    await expect(refundOrderAction(undefined)).rejects.toMatchObject({ status: 400, code: "invalid_action_arguments" });
    await expect(registerPlatformAction({}, "name=x")).rejects.toMatchObject({ status: 400, code: "invalid_action_arguments" });
  });
});
