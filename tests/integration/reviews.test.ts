import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as listRoute, POST as submitRoute } from "@/app/api/marketplace/product/[id]/reviews/route";
import { GET as productRoute } from "@/app/api/marketplace/product/[id]/route";
import { GET as listingsRoute } from "@/app/api/marketplace/listings/route";
import { GET as sellerListRoute } from "@/app/api/v1/reviews/route";
import { POST as replyRoute } from "@/app/api/v1/reviews/[id]/reply/route";
import { GET as adminListRoute } from "@/app/api/admin/reviews/route";
import { POST as hideRoute } from "@/app/api/admin/reviews/[id]/hide/route";
import { POST as unhideRoute } from "@/app/api/admin/reviews/[id]/unhide/route";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { sellerSetLicenseStatus } from "@/lib/selling/licenses";
import { disconnectDb, dbEngine, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER, rateLimiter } from "@/lib/http/rate-limit";
import { issueLicense } from "@/lib/licensing/issue-license";
import { refundOrder } from "@/lib/refunds/refund-order";
import { call, expectProblem } from "../helpers/http";
import { createTestProduct, sellerCookie, sellingDeveloper } from "../helpers/sellers";

/**
 * Verified reviews: only the holder of a bought, valid license reviews (one per license, editable); the product's
 * rating is recomputed from the rows under the product's lock; the seller replies once; the operator hides and unhides.
 */

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const ADMIN = `reviews-operator-${run}@example.com`;
const savedAdmins = process.env.ADMIN_EMAILS;
const seller = { id: "", email: `reviews-seller-${run}@example.com`, cookie: "", product: "", other: "" };
const stranger = { id: "", email: `reviews-stranger-${run}@example.com`, cookie: "", product: "" };
let adminCookie = "";
let seq = 0;

/** A test-mode purchase of one of the products, paid through the Pay button's path. */
async function buy(productId = seller.product) {
  const { session_id } = await createCheckout({ product_id: productId, buyer_email: `reviews-buyer-${run}-${++seq}@example.com` });
  await payTestCheckout(session_id);
  const order = await getDb().order.findUniqueOrThrow({ where: { id: session_id }, include: { license: true } });
  return { order, license: order.license! };
}

/** A bought license issued directly (no order): what fulfilment issues, without the checkout's cost per license. */
async function purchased(productId: string) {
  return issueLicense(getDb(), { productId, buyerEmail: `reviews-race-${run}-${++seq}@example.com`, maxMachines: 1, source: "purchase" });
}

/** A seller who may publish paid listings, with the refund policy and support contact a paid listing shows. */
async function payingSeller(email: string, name: string) {
  const dev = await sellingDeveloper(email, { name, website: null, bio: "" });
  await getDb().developer.update({ where: { id: dev.id }, data: { refundPolicy: "Refunds within 14 days.", supportEmail: email } });
  return dev;
}

const headers = { [CLIENT_ADDRESS_HEADER]: "198.51.100.77" };
const submit = (productId: string, body: Record<string, unknown>) =>
  call(submitRoute, `/api/marketplace/product/${productId}/reviews`, { method: "POST", json: body, headers, params: { id: productId } });
const list = (productId: string, query = "") =>
  call(listRoute, `/api/marketplace/product/${productId}/reviews${query}`, { headers, params: { id: productId } });
const reply = (id: string, text: string, cookie = seller.cookie) =>
  call(replyRoute, `/api/v1/reviews/${id}/reply`, { method: "POST", json: { reply: text }, headers: { cookie }, params: { id } });
const hide = (id: string, reason: string, cookie = adminCookie) =>
  call(hideRoute, `/api/admin/reviews/${id}/hide`, { method: "POST", json: { reason }, headers: { cookie }, params: { id } });
const unhide = (id: string, cookie = adminCookie) =>
  call(unhideRoute, `/api/admin/reviews/${id}/unhide`, { method: "POST", json: {}, headers: { cookie }, params: { id } });
const stored = (productId: string) =>
  getDb().product.findUniqueOrThrow({ where: { id: productId }, select: { ratingCount: true, ratingAverage: true } });

beforeAll(async () => {
  process.env.ADMIN_EMAILS = ADMIN;
  resetEnv();
  const dev = await payingSeller(seller.email, `Review Studio ${run}`);
  seller.id = dev.id;
  seller.product = (await createTestProduct(dev.id, `Reviewed ${run}`, `com.reviews.app${run}`)).id;
  seller.other = (await createTestProduct(dev.id, `Reviewed Too ${run}`, `com.reviews.too${run}`)).id;
  seller.cookie = await sellerCookie(seller.email);
  const other = await payingSeller(stranger.email, `Stranger Studio ${run}`);
  stranger.id = other.id;
  stranger.product = (await createTestProduct(other.id, `Stranger ${run}`, `com.reviews.stranger${run}`)).id;
  stranger.cookie = await sellerCookie(stranger.email);
  adminCookie = await sellerCookie(ADMIN);
});

afterAll(async () => {
  if (savedAdmins === undefined) Reflect.deleteProperty(process.env, "ADMIN_EMAILS");
  else process.env.ADMIN_EMAILS = savedAdmins;
  resetEnv();
  await disconnectDb();
});

describe("who may review", () => {
  it("a bought license reviews once; sending again edits the same review (editedAt) and the figures follow", async () => {
    const { license } = await buy();
    const first = await submit(seller.product, {
      license_key: license.key.toLowerCase(),
      rating: 4,
      title: "Solid",
      body: "Works well.\r\nTwo lines.",
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({
      created: true,
      review: {
        rating: 4,
        title: "Solid",
        body: "Works well.\nTwo lines.",
        author_name: "Verified buyer",
        verified_purchase: true,
        edited_at: null,
        seller_reply: null,
      },
      product_rating: { average: 4, count: 1 },
    });
    // Nothing private in a review: no e-mail, no key, no license.
    expect(first.text).not.toContain(license.buyerEmail);
    expect(first.text).not.toContain(license.key);

    const again = await submit(seller.product, { license_key: license.key, rating: 2, title: "Less so", author_name: "  Sam   from  Leeds " });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({
      created: false,
      review: { id: first.body.review.id, rating: 2, title: "Less so", body: "", author_name: "Sam from Leeds" },
    });
    expect(again.body.review.edited_at).toEqual(expect.any(String));
    expect(await getDb().review.count({ where: { licenseId: license.id } })).toBe(1);
    expect(await stored(seller.product)).toEqual({ ratingCount: 1, ratingAverage: 2 });

    // The same content again changes nothing, not even the edit time.
    const same = await submit(seller.product, { license_key: license.key, rating: 2, title: "Less so", author_name: "Sam from Leeds" });
    expect(same.body.review.edited_at).toBe(again.body.review.edited_at);
  });

  it("refuses trial, complimentary, revoked, refunded, disputed and expired licenses, unknown keys and keys of another product, with codes", async () => {
    const body = { rating: 5, title: "Great" };
    const trial = await issueLicense(getDb(), {
      productId: seller.product,
      buyerEmail: `reviews-trial-${run}@example.com`,
      maxMachines: 1,
      source: "trial",
      trial: true,
      expiresAt: new Date(Date.now() + 86_400_000),
    });
    expectProblem(await submit(seller.product, { ...body, license_key: trial.key }), 403, "trial_license");

    const gift = await issueLicense(getDb(), {
      productId: seller.product,
      buyerEmail: `reviews-gift-${run}@example.com`,
      maxMachines: 1,
      source: "complimentary",
    });
    expectProblem(await submit(seller.product, { ...body, license_key: gift.key }), 403, "not_purchased");

    const revoked = await buy();
    await sellerSetLicenseStatus(seller.id, revoked.license.id, false, "leaked");
    expectProblem(await submit(seller.product, { ...body, license_key: revoked.license.key }), 403, "license_revoked");

    const refunded = await buy();
    await refundOrder({
      orderId: refunded.order.id,
      reason: "Changed my mind",
      actor: { kind: "seller", developerId: seller.id, email: seller.email },
    });
    expectProblem(await submit(seller.product, { ...body, license_key: refunded.license.key }), 403, "license_refunded");

    const disputed = await purchased(seller.product);
    await getDb().license.update({ where: { id: disputed.id }, data: { isActive: false, revocation: "disputed" } });
    expectProblem(await submit(seller.product, { ...body, license_key: disputed.key }), 403, "license_disputed");

    const expired = await purchased(seller.product);
    await getDb().license.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expectProblem(await submit(seller.product, { ...body, license_key: expired.key }), 403, "license_expired");

    expectProblem(await submit(seller.product, { ...body, license_key: "ZZZZ-ZZZZ-ZZZZ-ZZZZ" }), 404, "license_not_found");
    const strangers = await purchased(stranger.product);
    expectProblem(await submit(seller.product, { ...body, license_key: strangers.key }), 403, "license_wrong_product");
    expectProblem(await submit("no-such-product", { ...body, license_key: strangers.key }), 403, "license_wrong_product");

    // None of them left a review or moved the figures.
    const ids = [trial.id, gift.id, revoked.license.id, refunded.license.id, disputed.id, expired.id, strangers.id];
    expect(await getDb().review.count({ where: { licenseId: { in: ids } } })).toBe(0);
  });

  it("refuses bad input: stars outside 1–5, long or control-character text, a multi-line name", async () => {
    const { license } = await buy(seller.other);
    const key = license.key;
    for (const [body, field] of [
      [{ rating: 0 }, "rating"],
      [{ rating: 6 }, "rating"],
      [{ rating: 4.5 }, "rating"],
      [{ rating: 5, title: "x".repeat(121) }, "title"],
      [{ rating: 5, body: "x".repeat(4001) }, "body"],
      [{ rating: 5, body: "bell\u0007" }, "body"],
      [{ rating: 5, author_name: "two\nlines" }, "author_name"],
      [{ rating: 5, author_name: "n".repeat(61) }, "author_name"],
    ] as const) {
      const r = await submit(seller.other, { license_key: key, ...body });
      expectProblem(r, 400, "invalid_body");
      expect(JSON.stringify(r.body.errors), JSON.stringify(body)).toContain(field);
    }
    expect(await getDb().review.count({ where: { licenseId: license.id } })).toBe(0);
  });

  it("a review written while the license was valid stays after a refund, out of the rating; the holder can no longer change it", async () => {
    const { order, license } = await buy(seller.other);
    const before = await stored(seller.other);
    expect((await submit(seller.other, { license_key: license.key, rating: 1, title: "Crashed on start" })).status).toBe(200);
    await refundOrder({ orderId: order.id, reason: "Did not work", actor: { kind: "seller", developerId: seller.id, email: seller.email } });
    // Shown, but no verified purchase any more, and not counted (see "a refunded buyer's review" below).
    expect(await stored(seller.other)).toEqual(before);
    const page = await list(seller.other);
    expect(page.body.reviews.find((r: { title: string }) => r.title === "Crashed on start")).toMatchObject({ verified_purchase: false });
    expectProblem(await submit(seller.other, { license_key: license.key, rating: 5 }), 403, "license_refunded");
  });
});

describe("the product's rating", () => {
  it("stays exact under 20 racing submissions and racing edits of one license (one row per license)", async () => {
    const product = (await createTestProduct(seller.id, `Raced ${run}`, `com.reviews.raced${run}`)).id;
    const licenses = await Promise.all(Array.from({ length: 20 }, () => purchased(product)));
    const ratings = licenses.map((_, i) => (i % 5) + 1);
    const replies = await Promise.all(licenses.map((l, i) => submit(product, { license_key: l.key, rating: ratings[i] })));
    for (const r of replies) expect(r.status, r.text).toBe(200);
    const expected = ratings.reduce((a, b) => a + b, 0) / ratings.length;
    const figures = await stored(product);
    expect(figures.ratingCount).toBe(20);
    expect(figures.ratingAverage).toBeCloseTo(expected, 10);

    // One license, many edits at once: still one review, and the figures match the rows.
    const edits = await Promise.all([1, 2, 3, 4, 5, 5, 4, 3].map((rating) => submit(product, { license_key: licenses[0]!.key, rating })));
    for (const r of edits) expect(r.status, r.text).toBe(200);
    expect(await getDb().review.count({ where: { licenseId: licenses[0]!.id } })).toBe(1);
    const rows = await getDb().review.findMany({ where: { productId: product }, select: { rating: true } });
    const after = await stored(product);
    expect(after.ratingCount).toBe(20);
    expect(after.ratingAverage).toBeCloseTo(rows.reduce((s, r) => s + r.rating, 0) / rows.length, 10);
    if (dbEngine() === "postgresql") expect(edits.filter((r) => r.body.created)).toHaveLength(0);

    // Listings, details and the reviews endpoint agree, rounded to one decimal.
    const rounded = Math.round(after.ratingAverage * 10) / 10;
    const details = await call(productRoute, `/api/marketplace/product/${product}`, { params: { id: product } });
    expect(details.body.product.rating).toEqual({ average: rounded, count: 20 });
    const reviews = await list(product, "?limit=5&sort=highest");
    expect(reviews.body.rating).toMatchObject({ average: rounded, count: 20 });
    expect(Object.values(reviews.body.rating.distribution as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(20);
    expect(reviews.body).toMatchObject({ total: 20, pages: 4, next_page: 2 });
    const top = rows.map((r) => r.rating).sort((x, y) => y - x);
    expect(reviews.body.reviews.map((r: { rating: number }) => r.rating)).toEqual(top.slice(0, 5));
  });

  it("sorts listings by rating: average first, then count", async () => {
    const r = await call(listingsRoute, "/api/marketplace/listings?sort=rating&limit=50");
    expect(r.status, r.text).toBe(200);
    const figures = (r.body.products as Array<{ rating: { average: number; count: number } }>).map((p) => p.rating);
    for (let i = 1; i < figures.length; i++) {
      const [a, b] = [figures[i - 1]!, figures[i]!];
      expect(a.average > b.average || (a.average === b.average && a.count >= b.count), JSON.stringify([a, b])).toBe(true);
    }
  });
});

describe("seller replies", () => {
  it("the seller replies once; a second reply is 409 reply_exists; another seller gets 404; the reply is public", async () => {
    const { license } = await buy();
    const posted = await submit(seller.product, { license_key: license.key, rating: 3, title: "Needs presets" });
    const id = posted.body.review.id as string;
    expectProblem(await reply(id, "Not yours to answer", stranger.cookie), 404, "review_not_found");
    const first = await reply(id, "Presets arrive in 1.2.\nThanks.");
    expect(first.status, first.text).toBe(200);
    expect(first.body.review.seller_reply).toMatchObject({ body: "Presets arrive in 1.2.\nThanks." });
    expectProblem(await reply(id, "Changed my mind"), 409, "reply_exists");
    // Racing replies to another review: exactly one wins.
    const other = await submit(seller.product, { license_key: (await buy()).license.key, rating: 5 });
    const racing = await Promise.all(["one", "two", "three"].map((t) => reply(other.body.review.id as string, t)));
    expect(racing.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of racing.filter((x) => x.status !== 200)) expectProblem(r, 409, "reply_exists");

    const publicPage = await list(seller.product);
    const shown = (publicPage.body.reviews as Array<{ id: string; seller_reply: { body: string } | null }>).find((r) => r.id === id);
    expect(shown?.seller_reply?.body).toBe("Presets arrive in 1.2.\nThanks.");

    const mine = await call(sellerListRoute, "/api/v1/reviews?unreplied=false", { headers: { cookie: seller.cookie } });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.reviews.map((r: { id: string }) => r.id)).toContain(id);
    const theirs = await call(sellerListRoute, "/api/v1/reviews", { headers: { cookie: stranger.cookie } });
    expect(theirs.body.reviews.map((r: { id: string }) => r.id)).not.toContain(id);
  });
});

describe("the operator", () => {
  it("hides a review with a reason: gone from the public list and every figure, in the audit log; unhiding restores it", async () => {
    const product = (await createTestProduct(seller.id, `Moderated ${run}`, `com.reviews.moderated${run}`)).id;
    const a = await submit(product, { license_key: (await purchased(product)).key, rating: 5, title: "Love it" });
    const b = await submit(product, { license_key: (await purchased(product)).key, rating: 1, title: "Spam link here" });
    expect(await stored(product)).toEqual({ ratingCount: 2, ratingAverage: 3 });
    const id = b.body.review.id as string;

    expectProblem(await hide(id, "Spam", seller.cookie), 404, "route_not_found");
    expectProblem(await hide(id, "x"), 400, "invalid_body");
    const hidden = await hide(id, "Advertising");
    expect(hidden.status, hidden.text).toBe(200);
    expect(hidden.body.review).toMatchObject({ hidden: true, hidden_reason: "Advertising", hidden_by: ADMIN });
    expectProblem(await hide(id, "Again"), 409, "review_already_hidden");
    expect(await stored(product)).toEqual({ ratingCount: 1, ratingAverage: 5 });
    const publicPage = await list(product);
    expect(publicPage.body.reviews.map((r: { id: string }) => r.id)).toEqual([a.body.review.id]);
    expect(publicPage.body.rating).toMatchObject({ average: 5, count: 1, distribution: { "5": 1, "1": 0 } });
    // The seller sees it, marked, and cannot reply to it.
    const sellers = await call(sellerListRoute, `/api/v1/reviews?product_id=${product}`, { headers: { cookie: seller.cookie } });
    expect(sellers.body.reviews.find((r: { id: string }) => r.id === id)).toMatchObject({ hidden: true, hidden_reason: "Advertising" });
    expectProblem(await reply(id, "Hello"), 409, "review_hidden");
    // The buyer editing it does not bring it back.
    const audit = await getDb().auditEntry.findFirst({ where: { targetId: id, action: "review.hide" } });
    expect(audit).toMatchObject({ actorEmail: ADMIN, targetType: "review" });

    const listed = await call(adminListRoute, "/api/admin/reviews?status=hidden&q=spam", { headers: { cookie: adminCookie } });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.reviews.map((r: { id: string }) => r.id)).toEqual([id]);

    const back = await unhide(id);
    expect(back.status, back.text).toBe(200);
    expect(back.body.review).toMatchObject({ hidden: false, hidden_reason: null, hidden_at: null });
    expectProblem(await unhide(id), 409, "review_not_hidden");
    expect(await stored(product)).toEqual({ ratingCount: 2, ratingAverage: 3 });
    expect(await getDb().auditEntry.count({ where: { targetId: id, action: "review.unhide" } })).toBe(1);
  });

  it("counts review submissions against the per-key limit", async () => {
    rateLimiter().reset();
    process.env.RATE_LIMIT_PER_KEY_PER_MIN = "2";
    resetEnv();
    try {
      const { license } = await buy(seller.other);
      expect((await submit(seller.other, { license_key: license.key, rating: 4 })).status).toBe(200);
      expect((await submit(seller.other, { license_key: license.key, rating: 5 })).status).toBe(200);
      expectProblem(await submit(seller.other, { license_key: license.key, rating: 3 }), 429, "rate_limited");
    } finally {
      process.env.RATE_LIMIT_PER_KEY_PER_MIN = "1000000";
      resetEnv();
      rateLimiter().reset();
    }
  });
});

describe("a refunded buyer's review", () => {
  it("is no verified purchase and leaves the product's rating; the others stay", async () => {
    const product = (await createTestProduct(seller.id, `Refund Reviewed ${run}`, `com.reviews.refunded${run}`)).id;
    const kept = await buy(product);
    const gone = await buy(product);
    expect((await submit(product, { license_key: kept.license.key, rating: 5, title: "Great" })).status).toBe(200);
    expect((await submit(product, { license_key: gone.license.key, rating: 1, title: "Bad" })).status).toBe(200);
    expect(await stored(product)).toMatchObject({ ratingCount: 2, ratingAverage: 3 });

    await refundOrder({ orderId: gone.order.id, reason: "Refunded", actor: { kind: "seller", developerId: seller.id, email: seller.email } });
    // The figures are recomputed in the refund's transaction: only the standing purchase counts.
    expect(await stored(product)).toMatchObject({ ratingCount: 1, ratingAverage: 5 });
    const page = await list(product);
    expect(page.status, page.text).toBe(200);
    const reviews = (page.body as { reviews: Array<{ title: string; verified_purchase: boolean }> }).reviews;
    expect(reviews.map((r) => [r.title, r.verified_purchase]).sort()).toEqual([
      ["Bad", false],
      ["Great", true],
    ]);
    expect(page.body).toMatchObject({ rating: { average: 5, count: 1 } });
  });
});
