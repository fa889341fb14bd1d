import { afterAll, describe, expect, it } from "vitest";
import { GET as productApi } from "@/app/api/marketplace/product/[id]/route";
import { POST as createProductApi } from "@/app/api/v1/products/route";
import { createDeveloperProfile, profileInputSchema, updateDeveloperProfile } from "@/lib/selling/developer-profile";
import { setProductStatus } from "@/lib/selling/products";
import { disconnectDb, getDb } from "@/lib/db";
import { connectTestPayoutAccount } from "@/lib/payouts/test-account";
import { call, expectProblem } from "../helpers/http";
import { SELLER_TRUST, sellerCookie, testProductBody } from "../helpers/sellers";

afterAll(() => disconnectDb());

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** A seller with a ready (test) payout account and only the profile fields given: what the gate looks at. */
async function seller(trust: Partial<typeof SELLER_TRUST> & { support_url?: string } = {}) {
  const email = `trust-${unique()}@example.com`;
  const dev = await createDeveloperProfile(email, { name: `Trust Studio ${unique()}`, website: null, bio: "", ...trust });
  await connectTestPayoutAccount(dev.id);
  return { dev, cookie: await sellerCookie(email) };
}

const body = (price: number, fields: Record<string, unknown> = {}) => {
  const id = unique();
  return testProductBody(`Trust Probe ${id}`, `com.test.trust${id}`, { price_cents: price, ...fields });
};
const create = (cookie: string, price: number) =>
  call(createProductApi, "/api/v1/products", { method: "POST", headers: { cookie }, json: { ...body(price), publish: true } });

describe("the seller profile's support and refund fields", () => {
  it("take a multi-line refund policy up to 2,000 characters, an e-mail address and an https support page", () => {
    const ok = profileInputSchema.parse({
      name: "Policy Studio",
      refund_policy: "  Full refund within 30 days.\nNo questions asked.  ",
      support_email: "help@example.com",
      support_url: "https://example.com/support",
    });
    expect(ok).toMatchObject({ refund_policy: "Full refund within 30 days.\nNo questions asked.", support_url: "https://example.com/support" });
    const refused = (fields: Record<string, unknown>) => profileInputSchema.safeParse({ name: "Policy Studio", ...fields }).success;
    expect(refused({ refund_policy: "x".repeat(2000) })).toBe(true);
    expect(refused({ refund_policy: "x".repeat(2001) })).toBe(false);
    expect(refused({ refund_policy: "Refunds\u0007 always" })).toBe(false);
    expect(refused({ support_email: "not an address" })).toBe(false);
    expect(refused({ support_url: "http://example.com/support" })).toBe(false);
    expect(refused({ support_url: "javascript:alert(1)" })).toBe(false);
    expect(refused({ support_url: "https://user:secret@example.com/" })).toBe(false);
  });

  it("are kept by an update that leaves them out, and cleared by one that empties them", async () => {
    const { dev } = await seller(SELLER_TRUST);
    await updateDeveloperProfile(dev.id, { name: dev.name, website: null, bio: "New bio." });
    expect(await getDb().developer.findUniqueOrThrow({ where: { id: dev.id } })).toMatchObject({
      bio: "New bio.",
      refundPolicy: SELLER_TRUST.refund_policy,
      supportEmail: SELLER_TRUST.support_email,
    });
    await updateDeveloperProfile(dev.id, { name: dev.name, website: null, bio: "", refund_policy: "", support_email: null, support_url: null });
    expect(await getDb().developer.findUniqueOrThrow({ where: { id: dev.id } })).toMatchObject({
      refundPolicy: "",
      supportEmail: null,
      supportUrl: null,
    });
  });
});

describe("a paid listing needs a refund policy and a support contact", () => {
  it("is refused over the API with seller_profile_incomplete naming what is missing", async () => {
    const s = await seller();
    const none = await create(s.cookie, 1500);
    expectProblem(none, 409, "seller_profile_incomplete");
    expect(none.body.detail).toContain("a refund policy and a support e-mail address or support web page");
    expect(none.body.errors.map((e: { name: string }) => e.name)).toEqual(["refund_policy", "support_email"]);
    expect(await getDb().product.count({ where: { developerId: s.dev.id } })).toBe(0);

    await updateDeveloperProfile(s.dev.id, { name: s.dev.name, website: null, bio: "", refund_policy: "Refunds within 7 days." });
    const half = await create(s.cookie, 1500);
    expectProblem(half, 409, "seller_profile_incomplete");
    expect(half.body.detail).not.toContain("a refund policy");
    expect(half.body.detail).toContain("a support e-mail address or support web page");

    // A support page alone is a support contact.
    await updateDeveloperProfile(s.dev.id, { name: s.dev.name, website: null, bio: "", support_url: "https://example.com/help" });
    const paid = await create(s.cookie, 1500);
    expect(paid.status, paid.text).toBe(201);
  });

  it("also gates relisting: an unlisted paid product goes back on sale only with the fields", async () => {
    const s = await seller(SELLER_TRUST);
    const id = (await create(s.cookie, 1500)).body.product.id as string;
    await setProductStatus(s.dev.id, id, "unlisted");
    await updateDeveloperProfile(s.dev.id, { name: s.dev.name, website: null, bio: "", refund_policy: "", support_email: null });
    await expect(setProductStatus(s.dev.id, id, "active")).rejects.toMatchObject({ status: 409, code: "seller_profile_incomplete" });
    expect((await getDb().product.findUniqueOrThrow({ where: { id } })).status).toBe("unlisted");
    await updateDeveloperProfile(s.dev.id, { name: s.dev.name, website: null, bio: "", ...SELLER_TRUST });
    expect((await setProductStatus(s.dev.id, id, "active")).status).toBe("active");
  });

  it("keeps the fields while a paid product is listed: emptying them is refused until it is unlisted", async () => {
    const s = await seller(SELLER_TRUST);
    const paid = await create(s.cookie, 1500);
    expect(paid.status, paid.text).toBe(201);
    const empty = { name: s.dev.name, website: null, bio: "", refund_policy: "", support_email: null };
    await expect(updateDeveloperProfile(s.dev.id, empty)).rejects.toMatchObject({ status: 409, code: "seller_profile_incomplete" });
    expect((await getDb().developer.findUniqueOrThrow({ where: { id: s.dev.id } })).refundPolicy).toBe(SELLER_TRUST.refund_policy);
    await setProductStatus(s.dev.id, paid.body.product.id, "unlisted");
    await updateDeveloperProfile(s.dev.id, empty);
    expect((await getDb().developer.findUniqueOrThrow({ where: { id: s.dev.id } })).refundPolicy).toBe("");
  });

  it("racing a paid listing against emptying the profile never leaves a listed paid product without the fields", async () => {
    for (let round = 0; round < 5; round++) {
      const s = await seller(SELLER_TRUST);
      const results = await Promise.allSettled([
        create(s.cookie, 1500),
        updateDeveloperProfile(s.dev.id, { name: s.dev.name, website: null, bio: "", refund_policy: "", support_email: null }),
      ]);
      expect(results.every((r) => r.status === "fulfilled" || (r.reason as { code?: string }).code === "seller_profile_incomplete")).toBe(true);
      const dev = await getDb().developer.findUniqueOrThrow({ where: { id: s.dev.id } });
      const listedPaid = await getDb().product.count({ where: { developerId: s.dev.id, status: "active", priceCents: { gt: 0 } } });
      if (listedPaid > 0) expect(dev.refundPolicy).not.toBe("");
    }
  });
});

describe("the public product details", () => {
  it("carry the seller's refund policy and support contact", async () => {
    const s = await seller({ ...SELLER_TRUST, support_url: "https://example.com/support" });
    const paid = await create(s.cookie, 2900);
    const id = paid.body.product.id as string;
    const r = await call(productApi, `/api/marketplace/product/${id}`, { params: { id } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.product).toMatchObject({
      refund_policy: SELLER_TRUST.refund_policy,
      support: { email: SELLER_TRUST.support_email, url: "https://example.com/support" },
      price_display: "$29.00 USD",
    });
  });
});
