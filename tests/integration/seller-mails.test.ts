import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suspendSeller } from "@/lib/admin/sellers";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { simulateTestDispute } from "@/lib/refunds/test-disputes";
import { previousUtcDay, runSaleDigests, setSaleEmails } from "@/lib/seller-mail/sale-emails";
import { issueComplimentaryLicense } from "@/lib/selling/licenses";
import { setBundleItems } from "@/lib/bundles/manage-bundle";
import { startTrial } from "@/lib/licensing/start-trial";
import { createTestProduct, sellingDeveloper } from "../helpers/sellers";
import { dropTempUploads, productWithReleases, useTempUploads } from "./updates.fixtures";

// The mails sellers get (each sale or a daily digest, suspension, a dispute's outcome) and the license mail's
// download links, read from the outbox (the dev mailbox's store).
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const operator = { email: `seller-mails-ops-${run}@example.com` };
let seq = 0;

beforeAll(async () => {
  process.env.PAYMENTS = "test";
  resetEnv();
  await useTempUploads();
});
afterAll(async () => {
  Reflect.deleteProperty(process.env, "PAYMENTS");
  resetEnv();
  await dropTempUploads();
  await disconnectDb();
});

async function seller(tag: string) {
  const email = `seller-mails-${tag}-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Mail Studio ${tag} ${run}`, website: null, bio: "" });
  const product = await createTestProduct(dev.id, `Mailed ${tag} ${run}`, `com.sellermails.${tag}${run}`, {
    max_machines: 2,
    seat_model: "per-seat",
  });
  return { id: dev.id, email, product: product.id, name: product.name };
}

async function buy(productId: string, quantity = 1) {
  const buyer = `mail-buyer-${run}-${++seq}@example.com`;
  const { session_id } = await createCheckout({ product_id: productId, buyer_email: buyer, quantity });
  await payTestCheckout(session_id);
  return { orderId: session_id, buyer };
}

const mails = (to: string, kind: string) => getDb().emailMessage.findMany({ where: { to, kind }, orderBy: { createdAt: "asc" } });

describe("sale e-mails", () => {
  it('"each" (the default): one mail per paid order with product, amount, seats, the masked buyer and the order link', async () => {
    const s = await seller("each");
    const { orderId, buyer } = await buy(s.product, 2);
    const [mail, ...more] = await mails(s.email, "sale");
    expect(more).toHaveLength(0);
    expect(mail?.subject).toMatch(new RegExp(`^New sale: ${s.name} for .+ USD$`));
    expect(mail?.text).toContain("2 seats · 4 machines");
    expect(mail?.text).toContain(`${buyer[0]}***@example.com`);
    expect(mail?.text).not.toContain(buyer);
    expect(mail?.text).toContain(`http://localhost:3000/dashboard/orders/${orderId}`);
  });

  it('"off" sends none; "daily" sends none per sale, then one digest for the day with totals per currency, once', async () => {
    const off = await seller("off");
    await setSaleEmails(off.id, "off");
    await buy(off.product);
    expect(await mails(off.email, "sale")).toHaveLength(0);

    const daily = await seller("daily");
    await setSaleEmails(daily.id, "daily");
    const quiet = await seller("quiet");
    await setSaleEmails(quiet.id, "daily");
    const a = await buy(daily.product);
    const b = await buy(daily.product, 3);
    expect(await mails(daily.email, "sale")).toHaveLength(0);
    // Yesterday, as the job loop sees it the next morning: move the orders' payment into the day before `now`.
    const now = new Date(Date.now() + 86_400_000);
    const { day, from } = previousUtcDay(now);
    await getDb().order.updateMany({ where: { id: { in: [a.orderId, b.orderId] } }, data: { paidAt: new Date(from.getTime() + 3_600_000) } });
    await runSaleDigests(now);
    await runSaleDigests(now); // a second run, or a second instance, queues nothing more
    const [digest, ...more] = await mails(daily.email, "sale-digest");
    expect(more).toHaveLength(0);
    expect(digest?.subject).toBe(`Your sales on ${day}: 2 orders, $60.00 USD`);
    expect(digest?.text).toMatch(/Total USD:\s+2 orders · \$60\.00 USD/);
    // A "daily" seller without sales that day gets nothing.
    expect(await mails(quiet.email, "sale-digest")).toHaveLength(0);
  });
});

describe("the seller's account and disputes", () => {
  it("suspension: the seller is told, with the operator's reason", async () => {
    const s = await seller("suspended");
    await suspendSeller(operator, s.id, "Listings copy another seller's work.");
    const [mail] = await mails(s.email, "seller-suspended");
    expect(mail?.subject).toContain("is suspended");
    expect(mail?.text).toContain("Listings copy another seller's work.");
    expect(mail?.html).toContain("Listings copy another seller&#39;s work.");
  });

  it("a dispute won or lost: the seller is told which, once each", async () => {
    const s = await seller("disputes");
    await setSaleEmails(s.id, "off");
    const won = await buy(s.product);
    const lost = await buy(s.product);
    await simulateTestDispute(won.orderId, "open", operator);
    await simulateTestDispute(won.orderId, "won", operator);
    await simulateTestDispute(lost.orderId, "open", operator);
    await simulateTestDispute(lost.orderId, "lost", operator);
    const closed = await mails(s.email, "dispute-closed");
    expect(closed.map((m) => m.subject.split(":")[0]).sort()).toEqual(["Dispute lost", "Dispute won"]);
    expect(closed.find((m) => m.subject.startsWith("Dispute won"))?.text).toContain(won.orderId);
    expect(closed.find((m) => m.subject.startsWith("Dispute lost"))?.text).toContain("stays revoked");
  });
});

describe("the license e-mail's download", () => {
  it("links the release builds, each through the license-gated route, never the seller's external URL", async () => {
    const fx = await productWithReleases([
      { version: "1.0.0", files: [{ platform: "linux-x64", filename: "synth-1.0.0.zip" }] },
      {
        version: "1.1.0",
        files: [
          { platform: "linux-x64", filename: "synth-1.1.0.zip" },
          { platform: "windows-x64", filename: "synth-1.1.0.exe" },
        ],
      },
    ]);
    const to = `release-mail-${run}@example.com`;
    await issueComplimentaryLicense(fx.devId, { product_id: fx.productId, buyer_email: to });
    const [mail] = await mails(to, "license");
    const text = mail?.text ?? "";
    expect(text).toContain("Version 1.1.0.");
    for (const file of ["synth-1.1.0.zip", "synth-1.1.0.exe"]) {
      const id = fx.artifacts.get("1.1.0")?.get(file) ?? "";
      expect(text).toContain(`http://localhost:3000/downloads/${fx.productId}/${id}?t=`);
    }
    expect(text).toContain("Linux (x64) · synth-1.1.0.zip");
    expect(text).not.toContain("builds.example.com");
    expect(mail?.html).not.toContain("builds.example.com");
  });

  it("a trial's e-mail links the release builds too, each checking the trial key", async () => {
    const fx = await productWithReleases([{ version: "2.0.0", files: [{ platform: "macos-arm64", filename: "synth-2.0.0.dmg" }] }]);
    await getDb().product.update({ where: { id: fx.productId }, data: { trialAvailable: true, trialDays: 14 } });
    const to = `trial-release-${run}@example.com`;
    const started = await startTrial({ productId: fx.productId, buyerEmail: to });
    expect(started.outcome).toBe("created");
    const [mail] = await mails(to, "trial");
    const id = fx.artifacts.get("2.0.0")?.get("synth-2.0.0.dmg") ?? "";
    expect(mail?.text).toContain("Version 2.0.0. Choose the build for your system; each link checks this trial key first:");
    expect(mail?.text).toContain(`http://localhost:3000/downloads/${fx.productId}/${id}?t=`);
    expect(mail?.html).toContain(`/downloads/${fx.productId}/${id}?t=`);
    expect(`${mail?.text}${mail?.html}`).not.toContain("builds.example.com");
    // The link works for the trial key it was sent with.
    const link = /http:\/\/localhost:3000(\/downloads\/[^\s]+)/.exec(mail?.text ?? "")?.[1] ?? "";
    const licenseId = /\?t=([^.]+)\./.exec(link)?.[1];
    expect(await getDb().license.findUniqueOrThrow({ where: { id: licenseId } })).toMatchObject({ buyerEmail: to, trialOf: expect.any(String) });
  });

  it("a bundle's e-mail links each product's release builds, and the single download of one without", async () => {
    const fx = await productWithReleases([{ version: "3.1.0", files: [{ platform: "linux-x64", filename: "synth-3.1.0.tar.gz" }] }]);
    const plain = await createTestProduct(fx.devId, `Plain Item ${run}`, `com.test.plainitem${run}`);
    const bundle = await createTestProduct(fx.devId, `Bundle ${run}`, `com.test.bundlemail${run}`);
    await setBundleItems(fx.devId, bundle.id, { product_ids: [fx.productId, plain.id], prorate: false });
    const { orderId, buyer: to } = await buy(bundle.id);
    const [mail] = await mails(to, "license");
    expect(mail?.subject).toContain(`Bundle ${run}`);
    const id = fx.artifacts.get("3.1.0")?.get("synth-3.1.0.tar.gz") ?? "";
    expect(mail?.text).toContain("Version 3.1.0. Choose the build for your system; each link checks this license first:");
    expect(mail?.text).toContain(`http://localhost:3000/downloads/${fx.productId}/${id}?t=`);
    expect(mail?.text).toContain(`Download: http://localhost:3000/downloads/${plain.id}?t=`);
    expect(`${mail?.text}${mail?.html}`).not.toContain("builds.example.com");
    expect(mail?.text).toContain(orderId);
  });
});
