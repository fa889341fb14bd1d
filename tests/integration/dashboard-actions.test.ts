import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createCouponAction } from "@/app/(dashboard)/dashboard/(app)/coupons/actions";
import { issueComplimentaryAction } from "@/app/(dashboard)/dashboard/(app)/licenses/actions";
import { refundAction } from "@/app/(dashboard)/dashboard/(app)/orders/actions";
import { updateProfileAction } from "@/app/(dashboard)/dashboard/(app)/profile/actions";
import { createProfileAction } from "@/app/(dashboard)/dashboard/(auth)/welcome/actions";
import { EMPTY_FORM, type FormState } from "@/components/dashboard/form-state";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { disconnectDb, getDb } from "@/lib/db";
import { createTestProduct, sellerCookie, sellingDeveloper } from "../helpers/sellers";

/**
 * The seller dashboard's server actions, run as the browser runs them (the seller's session cookie in the request's
 * headers, Next's redirect as a thrown answer): each turns its form into an operation's input and runs it through
 * the registry, so a refusal comes back worded next to its fields, money typed as people type it reaches the
 * operation in minor units, and a form sent twice with its idempotency key acts once.
 */

let cookie = "";
let language = "en-US";
vi.mock("next/headers", () => ({ headers: () => Promise.resolve(new Headers({ cookie, "accept-language": language })) }));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
class Redirect extends Error {}
vi.mock("next/navigation", () => ({
  redirect: (url: string) => {
    throw new Redirect(url);
  },
  notFound: () => {
    throw new Redirect("404");
  },
}));

afterAll(() => disconnectDb());

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

function form(fields: Record<string, string | string[]>): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) fd.append(k, one);
  return fd;
}

/** The action's answer: its state after a refusal, or where it redirects. */
async function send(run: () => Promise<FormState>): Promise<{ state: FormState } | { redirect: string }> {
  try {
    return { state: await run() };
  } catch (error) {
    if (error instanceof Redirect) return { redirect: error.message };
    throw error;
  }
}
function refusal(r: Awaited<ReturnType<typeof send>>): FormState {
  if (!("state" in r)) throw new Error(`expected a refusal, got a redirect to ${r.redirect}`);
  return r.state;
}
function redirected(r: Awaited<ReturnType<typeof send>>): string {
  if (!("redirect" in r)) throw new Error(`expected a redirect, got ${JSON.stringify(r.state)}`);
  return r.redirect;
}

describe("the welcome and profile pages", () => {
  it("create the profile of a session that has none, with each refused field worded next to it", async () => {
    const email = `dash-new-${unique()}@example.com`;
    cookie = await sellerCookie(email);
    const bad = refusal(await send(() => createProfileAction(EMPTY_FORM, form({ name: "x", website: "not a site", bio: "" }))));
    expect(bad.errors.name).toEqual(["Use at least 2 characters."]);
    expect(bad.errors.website).toEqual(["Enter a full address starting with https://."]);
    expect(bad.values.name).toBe("x");
    const name = `Dash Studio ${unique()}`;
    expect(redirected(await send(() => createProfileAction(EMPTY_FORM, form({ name, website: "example.com", bio: "Plugins." }))))).toBe(
      "/dashboard?notice=welcome",
    );
    const dev = await getDb().developer.findUniqueOrThrow({ where: { email } });
    expect(dev).toMatchObject({ name, website: "https://example.com", bio: "Plugins." });
    // Made already: the welcome form sends the seller to the dashboard.
    expect(redirected(await send(() => createProfileAction(EMPTY_FORM, form({ name }))))).toBe("/dashboard");
  });

  it("refuse emptying what listed paid products show, the fields marked and the reason on top", async () => {
    const email = `dash-profile-${unique()}@example.com`;
    const dev = await sellingDeveloper(email, { name: `Dash Trust ${unique()}`, website: null, bio: "" });
    await createTestProduct(dev.id, `Dash Paid ${unique()}`, `com.dash.paid${unique()}`);
    cookie = await sellerCookie(email);
    const state = refusal(
      await send(() => updateProfileAction(EMPTY_FORM, form({ name: dev.name, refund_policy: "", support_email: "", support_url: "" }))),
    );
    expect(state.message).toMatch(/listed paid products show your refund policy/);
    expect(state.errors.refund_policy).toEqual(["A paid listing needs a refund policy."]);
    expect(state.errors.support_email?.[0]).toMatch(/^A paid listing needs a support e-mail address/);
  });
});

describe("money typed in the dashboard's forms", () => {
  const fx = { productId: "", orderId: "", buyer: "" };
  beforeAll(async () => {
    const email = `dash-money-${unique()}@example.com`;
    const dev = await sellingDeveloper(email, { name: `Dash Money ${unique()}`, website: null, bio: "" });
    const product = await createTestProduct(dev.id, `Dash Euro ${unique()}`, `com.dash.eur${unique()}`, { price_cents: 1990, currency: "eur" });
    fx.productId = product.id;
    fx.buyer = `dash-buyer-${unique()}@example.com`;
    fx.orderId = (await createCheckout({ product_id: product.id, buyer_email: fx.buyer })).session_id;
    await payTestCheckout(fx.orderId);
    cookie = await sellerCookie(email);
  });

  it("a coupon's amount off is read by parseMoney in its currency, and the form's key creates it once", async () => {
    language = "de-DE";
    const fields = { kind: "amount", amount_off: "2,50", currency: "eur", expires_on: "", max_redemptions: "", percent_off: "" };
    const ambiguous = refusal(await send(() => createCouponAction(EMPTY_FORM, form({ ...fields, code: `DASH${unique()}`, amount_off: "1,234" }))));
    expect(ambiguous.errors.amount_off?.[0]).toContain("Did you mean €1,234.00 EUR or €1.234 EUR?");
    const past = refusal(await send(() => createCouponAction(EMPTY_FORM, form({ ...fields, code: `DASH${unique()}`, expires_on: "2020-01-31" }))));
    expect(past.errors.expires_on).toEqual(["The expiry must be in the future."]);
    const percent = refusal(
      await send(() => createCouponAction(EMPTY_FORM, form({ ...fields, kind: "percent", code: `DASH${unique()}`, percent_off: "ten" }))),
    );
    expect(percent.errors.percent_off).toEqual(["Enter a whole number."]);

    const code = `DASH${unique()}`.toUpperCase();
    const key = crypto.randomUUID();
    const first = redirected(await send(() => createCouponAction(EMPTY_FORM, form({ ...fields, code, idempotency_key: key }))));
    const again = redirected(await send(() => createCouponAction(EMPTY_FORM, form({ ...fields, code, idempotency_key: key }))));
    expect(again).toBe(first);
    const coupons = await getDb().coupon.findMany({ where: { code } });
    expect(coupons).toHaveLength(1);
    expect(coupons[0]).toMatchObject({ kind: "amount", amountOffMinor: 250, currency: "eur" });
    language = "en-US";
  });

  it("a partial refund typed '1,5' refunds 1.50, only once per form, and never while unread or unconfirmed", async () => {
    const base = { kind: "partial", reason: "Half a preset bank was missing." };
    const unconfirmed = refusal(await send(() => refundAction(fx.orderId, EMPTY_FORM, form({ ...base, amount: "1,5" }))));
    expect(unconfirmed.errors.confirm).toEqual(["Tick this to confirm the refund."]);
    const unread = refusal(await send(() => refundAction(fx.orderId, EMPTY_FORM, form({ ...base, amount: "", confirm: "on" }))));
    expect(unread.errors.amount).toEqual(["Enter the amount to refund, in EUR."]);
    const noReason = refusal(await send(() => refundAction(fx.orderId, EMPTY_FORM, form({ ...base, reason: " ", amount: "1,5", confirm: "on" }))));
    expect(noReason.errors.reason).toEqual(["This field is required."]);
    expect(await getDb().refund.count({ where: { orderId: fx.orderId } })).toBe(0);

    const sent = form({ ...base, amount: "1,5", confirm: "on", idempotency_key: crypto.randomUUID() });
    const first = redirected(await send(() => refundAction(fx.orderId, EMPTY_FORM, sent)));
    expect(first).toMatch(new RegExp(`^/dashboard/orders/${fx.orderId}\\?refund=rf_`));
    expect(redirected(await send(() => refundAction(fx.orderId, EMPTY_FORM, sent)))).toBe(first);
    const refunds = await getDb().refund.findMany({ where: { orderId: fx.orderId } });
    expect(refunds.map((r) => r.amountCents)).toEqual([150]);

    const tooMuch = refusal(await send(() => refundAction(fx.orderId, EMPTY_FORM, form({ ...base, amount: "25", confirm: "on" }))));
    expect(tooMuch.message).toMatch(/can still be refunded/);
    // Another seller's order, or no order: the 404 page.
    expect(redirected(await send(() => refundAction("cs_000000000000000000000000", EMPTY_FORM, form({ ...base, confirm: "on" }))))).toBe("404");
  });

  it("a complimentary license is issued once per form, and a product not one's own is the product field's problem", async () => {
    const fields = { product_id: fx.productId, buyer_email: `dash-gift-${unique()}@example.com`, max_machines: "" };
    const key = crypto.randomUUID();
    const first = redirected(await send(() => issueComplimentaryAction(EMPTY_FORM, form({ ...fields, idempotency_key: key }))));
    expect(first).toMatch(/^\/dashboard\/licenses\/[^?]+\?notice=license-issued$/);
    expect(redirected(await send(() => issueComplimentaryAction(EMPTY_FORM, form({ ...fields, idempotency_key: key }))))).toBe(first);
    expect(await getDb().license.count({ where: { buyerEmail: fields.buyer_email } })).toBe(1);
    const seats = refusal(await send(() => issueComplimentaryAction(EMPTY_FORM, form({ ...fields, max_machines: "two" }))));
    expect(seats.errors.max_machines).toEqual(["Enter a whole number."]);
    const other = refusal(await send(() => issueComplimentaryAction(EMPTY_FORM, form({ ...fields, product_id: "not-my-product" }))));
    expect(other.errors.product_id).toEqual(["Choose one of your products."]);
  });
});
