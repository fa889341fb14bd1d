import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { createProduct } from "@/lib/selling/products";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { validateLicense } from "@/lib/licensing/validate-license";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { simulateTestDispute } from "@/lib/refunds/test-disputes";
import { fingerprint } from "../helpers/licenses";
import { sellingDeveloper } from "../helpers/sellers";

// The test-mode provider's disputes: the operator plays the bank, and each step has a Stripe dispute's effects.
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const operator = { email: `operator-${run}@example.com` };
const seller = { email: `test-disputes-${run}@example.com`, productId: "", pluginId: "" };
let seq = 0;

beforeAll(async () => {
  process.env.PAYMENTS = "test";
  resetEnv();
  const dev = await sellingDeveloper(seller.email, { name: `Bank Play ${run}`, website: null, bio: "" });
  const product = await createProduct(
    dev.id,
    productInputSchema.parse({
      name: `Disputable ${run}`,
      description: "A product disputed in test mode by the test-disputes suite, long enough to be valid.",
      plugin_id: `com.testdisputes.app${run}`,
      price_cents: 3000,
      category: "dev-tools",
      max_machines: 2,
      seat_model: "per-machine",
      platforms: ["linux"],
      download_url: "https://example.com/download.zip",
      icon_url: "/icons/tape-warmth.svg",
    }),
    { publish: true },
  );
  seller.productId = product.id;
  seller.pluginId = product.pluginId;
});
afterAll(async () => {
  Reflect.deleteProperty(process.env, "PAYMENTS");
  resetEnv();
  await disconnectDb();
});

async function paid() {
  const { session_id } = await createCheckout({ product_id: seller.productId, buyer_email: `bank-buyer-${run}-${++seq}@example.com` });
  await payTestCheckout(session_id);
  const order = await getDb().order.findUniqueOrThrow({ where: { id: session_id }, include: { license: true } });
  const req = { license_key: order.license!.key, machine_fingerprint: fingerprint(), plugin_id: seller.pluginId };
  await activateMachine(req);
  expect((await validateLicense(req)).code).toBe("VALID");
  return { order, req };
}

const kinds = async (orderId: string) =>
  (await getDb().ledgerEntry.findMany({ where: { orderId }, orderBy: { kind: "asc" } })).map((e) => `${e.kind} ${e.amountMinor}`);

describe("test-mode disputes, played by the operator", () => {
  it("open suspends the license, charges the seller in the ledger and e-mails them; lost revokes it", async () => {
    const { order, req } = await paid();
    await simulateTestDispute(order.id, "open", operator);
    expect((await validateLicense(req)).code).toBe("SUSPENDED");
    expect(await kinds(order.id)).toContain("dispute -3000");
    expect(await getDb().emailMessage.count({ where: { to: seller.email, kind: "dispute" } })).toBeGreaterThan(0);
    await expect(simulateTestDispute(order.id, "open", operator)).rejects.toMatchObject({ code: "dispute_exists", status: 409 });
    await simulateTestDispute(order.id, "lost", operator);
    expect(await validateLicense(req)).toMatchObject({ valid: false, code: "REVOKED" });
    expect(await getDb().order.findUniqueOrThrow({ where: { id: order.id } })).toMatchObject({ disputeStatus: "lost" });
    await expect(simulateTestDispute(order.id, "won", operator)).rejects.toMatchObject({ code: "no_open_dispute" });
    // Each step is audited with the operator's address.
    const audit = await getDb().auditEntry.findMany({ where: { targetId: order.id, action: "order.test_dispute" } });
    expect(audit.map((a) => [a.actorEmail, (a.detail as { step: string }).step]).sort()).toEqual([
      [operator.email, "lost"],
      [operator.email, "open"],
    ]);
  });

  it("won reinstates the license and gives the amount back in the ledger; racing closes apply once", async () => {
    const { order, req } = await paid();
    await simulateTestDispute(order.id, "open", operator);
    const closes = await Promise.allSettled([0, 1, 2].map(() => simulateTestDispute(order.id, "won", operator)));
    expect(closes.filter((c) => c.status === "fulfilled")).toHaveLength(1);
    expect((await validateLicense(req)).code).toBe("VALID");
    expect(await kinds(order.id)).toEqual(expect.arrayContaining(["dispute -3000", "dispute_reversal 3000"]));
    expect((await kinds(order.id)).filter((k) => k.startsWith("dispute_reversal"))).toHaveLength(1);
  });

  it("exists only in test mode, and only for test orders that were paid", async () => {
    const { session_id } = await createCheckout({ product_id: seller.productId, buyer_email: `bank-open-${run}@example.com` });
    await expect(simulateTestDispute(session_id, "open", operator)).rejects.toMatchObject({ code: "order_not_paid" });
    await expect(simulateTestDispute("cs_nosuchorder000000000000", "open", operator)).rejects.toMatchObject({ status: 404 });
    process.env.PAYMENTS = "stripe";
    process.env.STRIPE_SECRET_KEY = "sk_test_not_used";
    resetEnv();
    try {
      const order = await getDb().order.findFirstOrThrow({ where: { productId: seller.productId, status: "paid" }, select: { id: true } });
      await expect(simulateTestDispute(order.id, "open", operator)).rejects.toMatchObject({ code: "test_mode_off", status: 409 });
    } finally {
      process.env.PAYMENTS = "test";
      Reflect.deleteProperty(process.env, "STRIPE_SECRET_KEY");
      resetEnv();
    }
  });
});
