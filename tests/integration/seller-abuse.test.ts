import { afterAll, afterEach, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@/lib/db";
import { sellingDeveloper } from "../helpers/sellers";
import { COMPLIMENTARY_PER_RECIPIENT_PER_DAY, issueComplimentaryLicense } from "@/lib/selling/licenses";
import { createProduct } from "@/lib/selling/products";
import { resetEnv } from "@/lib/env";
import { productInputSchema } from "@/lib/marketplace/schemas";

/**
 * Complimentary licenses as a phishing relay: anyone can sign in as a seller and have the platform send its own
 * license e-mail, with the seller's product name, developer name and download link, to any address. Quotas per
 * seller and per recipient, counted in the database, stop the flood; the mail speaks on the seller's behalf and
 * links only to this site's license-gated download.
 */

afterAll(() => disconnectDb());
afterEach(() => {
  delete process.env.COMPLIMENTARY_PER_DAY;
  delete process.env.COMPLIMENTARY_NEW_SELLER_PER_DAY;
  resetEnv();
});

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const PHISHING_URL = "https://evil.example/verify-your-account";

async function seller(opts: { ageDays?: number } = {}) {
  const id = unique();
  const dev = await sellingDeveloper(`abuse-${id}@example.com`, { name: `Account Security ${id}`, website: null, bio: "" });
  if (opts.ageDays) await getDb().developer.update({ where: { id: dev.id }, data: { createdAt: new Date(Date.now() - opts.ageDays * 86_400_000) } });
  const product = await createProduct(
    dev.id,
    productInputSchema.parse({
      name: `Verify Your Account ${id}`,
      description: "A product whose name and link are written to look like a bank's warning.",
      plugin_id: `com.abuse.p${id}`,
      price_cents: 100,
      category: "desktop-apps",
      max_machines: 1,
      seat_model: "per-machine",
      platforms: ["linux"],
      download_url: PHISHING_URL,
      icon_url: "/icons/tape-warmth.svg",
    }),
    { publish: true },
  );
  return { dev, product };
}

const mailsTo = (to: string) => getDb().emailMessage.count({ where: { to } });

describe("complimentary licenses: quotas", () => {
  it("refuses a new seller's 6th complimentary license in a day, and no mail is enqueued for it", async () => {
    const { dev, product } = await seller();
    for (let i = 0; i < 5; i++) {
      await issueComplimentaryLicense(dev.id, { product_id: product.id, buyer_email: `victim-${String(i)}-${dev.id}@example.com` });
    }
    const sixth = `victim-6-${dev.id}@example.com`;
    await expect(issueComplimentaryLicense(dev.id, { product_id: product.id, buyer_email: sixth })).rejects.toMatchObject({
      status: 429,
      code: "complimentary_quota_exceeded",
      extra: { headers: { "Retry-After": expect.stringMatching(/^\d+$/) } },
    });
    expect(await mailsTo(sixth)).toBe(0);
    expect(await getDb().license.count({ where: { product: { developerId: dev.id } } })).toBe(5);
  });

  it("holds under a burst of concurrent sends (the attack sent 10 in 1.1 s): exactly the quota goes out", async () => {
    const { dev, product } = await seller();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        issueComplimentaryLicense(dev.id, { product_id: product.id, buyer_email: `burst-${String(i)}-${dev.id}@example.com` }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toMatchObject({ status: 429, code: "complimentary_quota_exceeded" });
    expect(await getDb().emailMessage.count({ where: { to: { startsWith: "burst-", endsWith: `-${dev.id}@example.com` } } })).toBe(5);
  });

  it("caps complimentary licenses to one address per seller and day (the attack sent 5 to one victim)", async () => {
    const { dev, product } = await seller({ ageDays: 30 });
    const victim = `one-victim-${dev.id}@example.com`;
    for (let i = 0; i < COMPLIMENTARY_PER_RECIPIENT_PER_DAY; i++)
      await issueComplimentaryLicense(dev.id, { product_id: product.id, buyer_email: victim });
    await expect(issueComplimentaryLicense(dev.id, { product_id: product.id, buyer_email: victim.toUpperCase() })).rejects.toMatchObject({
      status: 429,
      code: "complimentary_quota_exceeded",
    });
    expect(await mailsTo(victim)).toBe(COMPLIMENTARY_PER_RECIPIENT_PER_DAY);
    // Another seller may still send to the same address.
    const other = await seller({ ageDays: 30 });
    await issueComplimentaryLicense(other.dev.id, { product_id: other.product.id, buyer_email: victim });
  });

  it("gives an established seller COMPLIMENTARY_PER_DAY, and licenses older than a day stop counting", async () => {
    process.env.COMPLIMENTARY_PER_DAY = "7";
    resetEnv();
    const { dev, product } = await seller({ ageDays: 30 });
    for (let i = 0; i < 7; i++)
      await issueComplimentaryLicense(dev.id, { product_id: product.id, buyer_email: `est-${String(i)}-${dev.id}@example.com` });
    await expect(issueComplimentaryLicense(dev.id, { product_id: product.id, buyer_email: `est-8-${dev.id}@example.com` })).rejects.toMatchObject({
      status: 429,
    });
    await getDb().license.updateMany({ where: { product: { developerId: dev.id } }, data: { issuedAt: new Date(Date.now() - 25 * 3_600_000) } });
    await issueComplimentaryLicense(dev.id, { product_id: product.id, buyer_email: `est-8-${dev.id}@example.com` });
  });

  it("treats a young seller with a paid sale as established", async () => {
    process.env.COMPLIMENTARY_PER_DAY = "6";
    resetEnv();
    const { dev, product } = await seller();
    await getDb().order.create({
      data: {
        id: `paid-${dev.id}`,
        productId: product.id,
        buyerEmail: "buyer@example.com",
        provider: "test",
        amountCents: 100,
        feeCents: 10,
        status: "paid",
        paidAt: new Date(),
        expiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    for (let i = 0; i < 6; i++)
      await issueComplimentaryLicense(dev.id, { product_id: product.id, buyer_email: `sold-${String(i)}-${dev.id}@example.com` });
    await expect(issueComplimentaryLicense(dev.id, { product_id: product.id, buyer_email: `sold-7-${dev.id}@example.com` })).rejects.toMatchObject({
      status: 429,
    });
  });
});

describe("complimentary licenses: the e-mail", () => {
  it("is sent on behalf of the seller, frames the seller's words as theirs and never links the seller's URL", async () => {
    const { dev, product } = await seller({ ageDays: 30 });
    const to = `mail-${dev.id}@example.com`;
    const license = await issueComplimentaryLicense(dev.id, { product_id: product.id, buyer_email: to });
    const mail = await getDb().emailMessage.findFirstOrThrow({ where: { dedupeKey: `license:complimentary:${license.id}` } });
    expect(mail.subject).toContain(`sent on behalf of ${dev.name}`);
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain("on behalf of");
      expect(part).toContain("written by the seller");
      expect(part).not.toContain("evil.example");
      expect(part).toContain(`http://localhost:3000/downloads/${product.id}?t=${license.id}.`);
    }
    // Every link in the HTML part stays on this site.
    const hrefs = [...mail.html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
    expect(hrefs.length).toBeGreaterThan(0);
    for (const h of hrefs) expect(h).toMatch(/^http:\/\/localhost:3000\//);
  });
});
