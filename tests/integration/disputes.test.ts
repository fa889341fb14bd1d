import { gunzipSync } from "node:zlib";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as webhook } from "@/app/api/webhooks/stripe/route";
import { createDeveloperProfile } from "@/lib/selling/developer-profile";
import { createProduct } from "@/lib/selling/products";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { setLicenseStatus } from "@/lib/licensing/set-license-status";
import { validateLicense } from "@/lib/licensing/validate-license";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { platformFeeCents } from "@/lib/pricing";
import { refundOrder } from "@/lib/refunds/refund-order";
import { statusIndexFor, statusListCredential } from "@/lib/verifiable/status-list";
import { call, expectProblem } from "../helpers/http";
import { post, startLeanServer } from "../helpers/lean-server";
import { fingerprint } from "../helpers/licenses";
import { startStripeStub } from "../helpers/stripe-stub";
import { SELLER_TRUST } from "../helpers/sellers";

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const PRICE = 4900;
const SECRET = "whsec_disputes_suite";
const signer = new Stripe("sk_test_unused");
const saved = { ...process.env };
let stub: Awaited<ReturnType<typeof startStripeStub>>;
let lean: Awaited<ReturnType<typeof startLeanServer>>;
const seller = { id: "", email: `disputes-${run}@example.com`, productId: "", pluginId: "", account: `acct_disputes${run}` };
/** PaymentIntents the stand-in knows, with our order id in their metadata (as checkout sets it). */
const intents = new Map<string, string>();
let seq = 0;
let events = 0;

beforeAll(async () => {
  lean = await startLeanServer();
  stub = await startStripeStub({
    routes: {
      "GET /v1/payment_intents/": (req) => {
        const id = req.path.split("?")[0]!.split("/").pop()!;
        const order = intents.get(id);
        return order
          ? { body: { id, object: "payment_intent", metadata: { order_id: order } } }
          : { status: 404, body: { error: { type: "invalid_request_error", message: `No such payment_intent: '${id}'` } } };
      },
    },
  });
  Object.assign(process.env, { STRIPE_SECRET_KEY: "sk_test_disputes", STRIPE_WEBHOOK_SECRET: SECRET, STRIPE_API_BASE: stub.base });
  resetEnv();
  const dev = await createDeveloperProfile(seller.email, { ...SELLER_TRUST, name: `Dispute Studio ${run}`, website: null, bio: "" });
  seller.id = dev.id;
  await getDb().payoutAccount.create({
    data: {
      id: seller.account,
      developerId: dev.id,
      provider: "stripe",
      chargesEnabled: true,
      payoutsEnabled: true,
      detailsSubmitted: true,
      requirementsDue: [],
    },
  });
  const product = await createProduct(
    dev.id,
    productInputSchema.parse({
      name: `Disputed ${run}`,
      tagline: "A product whose payments get disputed.",
      description: "A product created by the disputes integration test, with a long enough description.",
      plugin_id: `com.disputes.app${run}`,
      price_cents: PRICE,
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
  for (const k of ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "STRIPE_API_BASE"]) {
    if (saved[k] === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = saved[k];
  }
  resetEnv();
  await stub.close();
  await lean.close();
  await disconnectDb();
});

function deliver(event: unknown) {
  const payload = JSON.stringify(event);
  const header = signer.webhooks.generateTestHeaderString({ payload, secret: SECRET });
  return call(webhook, "/api/webhooks/stripe", {
    method: "POST",
    body: payload,
    headers: { "content-type": "application/json", "stripe-signature": header },
  });
}

const event = (type: string, object: unknown) => ({
  id: `evt_disputes_${run}_${++events}`,
  object: "event",
  type,
  api_version: "2026-10-28.endive",
  created: Math.floor(Date.now() / 1000),
  data: { object },
});

/** A Stripe order paid through a signed checkout.session.completed, its license activated on one machine. */
async function paidOrder() {
  const n = ++seq;
  const id = `cs_${`${run}d${n}`.padEnd(24, "0").slice(0, 24)}`;
  const pi = `pi_disputes_${run}_${n}`;
  intents.set(pi, id);
  const order = await getDb().order.create({
    data: {
      id,
      productId: seller.productId,
      buyerEmail: `dispute-buyer-${run}-${n}@example.com`,
      provider: "stripe",
      providerSessionId: `cs_test_disputes_${run}_${n}`,
      subtotalCents: PRICE,
      amountCents: PRICE,
      feeCents: platformFeeCents(PRICE),
      currency: "usd",
      payoutAccountId: seller.account,
      expiresAt: new Date(Date.now() + 3_600_000),
    },
  });
  const pay = () =>
    deliver(
      event("checkout.session.completed", {
        id: order.providerSessionId,
        object: "checkout.session",
        payment_status: "paid",
        status: "complete",
        amount_total: PRICE,
        currency: "usd",
        client_reference_id: id,
        metadata: { order_id: id },
        payment_intent: pi,
      }),
    );
  const dispute = (status: string, disputeId = `dp_${pi}`) => ({
    id: disputeId,
    object: "dispute",
    amount: PRICE,
    currency: "usd",
    charge: `ch_${pi}`,
    payment_intent: pi,
    reason: "fraudulent",
    status,
    metadata: {},
  });
  return { order, pi, pay, dispute };
}

async function activated(orderId: string) {
  const license = await getDb().license.findUniqueOrThrow({ where: { orderId } });
  const machine = fingerprint();
  await activateMachine({ license_key: license.key, machine_fingerprint: machine, plugin_id: seller.pluginId });
  const req = { license_key: license.key, machine_fingerprint: machine, plugin_id: seller.pluginId };
  expect((await validateLicense(req)).code).toBe("VALID");
  return { license, req };
}

const code = async (req: { license_key: string; machine_fingerprint: string; plugin_id: string }) => {
  const direct = (await validateLicense(req)).code;
  const viaLean = (await post(lean.base, "/validate", req)).body.code as string;
  expect(viaLean).toBe(direct);
  return direct;
};

async function ledger(orderId: string) {
  const rows = await getDb().ledgerEntry.findMany({ where: { orderId, kind: { in: ["dispute", "dispute_reversal"] } }, orderBy: { kind: "asc" } });
  return rows.map((r) => [r.kind, r.amountMinor]);
}

async function statusBit(index: number): Promise<boolean> {
  const jwt = await statusListCredential();
  const payload = JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as { credentialSubject: { encodedList: string } };
  const bits = gunzipSync(Buffer.from(payload.credentialSubject.encodedList.slice(1), "base64url"));
  return (bits[index >> 3]! & (0x80 >> (index & 7))) !== 0;
}

describe("disputes", () => {
  it("created suspends the license and tells the seller; lost revokes it for good", async () => {
    const o = await paidOrder();
    expect((await o.pay()).status).toBe(200);
    const { license, req } = await activated(o.order.id);
    const index = await statusIndexFor(license.id);

    const created = event("charge.dispute.created", o.dispute("needs_response"));
    const replies = await Promise.all([deliver(created), deliver(created)]);
    expect(replies.map((r) => r.status)).toEqual([200, 200]);
    expect(replies.filter((r) => r.body.duplicate === false)).toHaveLength(1);

    expect(await code(req)).toBe("SUSPENDED");
    expect(await statusBit(index)).toBe(true);
    expect((await getDb().order.findUniqueOrThrow({ where: { id: o.order.id } })).disputeStatus).toBe("open");
    expect(await ledger(o.order.id)).toEqual([["dispute", -PRICE]]);
    const mail = await getDb().emailMessage.findUniqueOrThrow({ where: { dedupeKey: `dispute:dp_${o.pi}` } });
    expect(mail.to).toBe(seller.email);
    expect(mail.text).toContain("$49.00 USD");

    // Neither the seller nor a refund can undo what the bank is deciding.
    await expect(setLicenseStatus({ licenseId: license.id, active: true })).rejects.toMatchObject({ code: "license_revoked_by_payment" });
    await expect(
      refundOrder({ orderId: o.order.id, reason: "During dispute", actor: { kind: "seller", developerId: seller.id, email: seller.email } }),
    ).rejects.toMatchObject({ code: "order_disputed", status: 409 });

    expect((await deliver(event("charge.dispute.closed", o.dispute("lost")))).status).toBe(200);
    expect(await code(req)).toBe("REVOKED");
    expect(await getDb().license.findUniqueOrThrow({ where: { id: license.id } })).toMatchObject({ isActive: false, revocation: "dispute_lost" });
    expect((await getDb().order.findUniqueOrThrow({ where: { id: o.order.id } })).disputeStatus).toBe("lost");
    expect(await ledger(o.order.id)).toEqual([["dispute", -PRICE]]);
    expect(await statusBit(index)).toBe(true);
  });

  it("created then won reinstates the license, and the ledger gives the amount back", async () => {
    const o = await paidOrder();
    await o.pay();
    const { license, req } = await activated(o.order.id);
    const index = await statusIndexFor(license.id);
    await deliver(event("charge.dispute.created", o.dispute("needs_response")));
    expect(await code(req)).toBe("SUSPENDED");
    expect((await deliver(event("charge.dispute.closed", o.dispute("won")))).status).toBe(200);
    expect(await code(req)).toBe("VALID");
    expect(await statusBit(index)).toBe(false);
    expect(await getDb().license.findUniqueOrThrow({ where: { id: license.id } })).toMatchObject({ isActive: true, revocation: null });
    expect(await ledger(o.order.id)).toEqual([
      ["dispute", -PRICE],
      ["dispute_reversal", PRICE],
    ]);
    expect((await getDb().order.findUniqueOrThrow({ where: { id: o.order.id } })).disputeStatus).toBe("won");
  });

  it("closed arriving before created still ends right, lost or won", async () => {
    const lost = await paidOrder();
    await lost.pay();
    const l = await activated(lost.order.id);
    expect((await deliver(event("charge.dispute.closed", lost.dispute("lost")))).status).toBe(200);
    expect((await deliver(event("charge.dispute.created", lost.dispute("needs_response")))).status).toBe(200);
    expect(await code(l.req)).toBe("REVOKED");
    expect((await getDb().order.findUniqueOrThrow({ where: { id: lost.order.id } })).disputeStatus).toBe("lost");
    expect(await ledger(lost.order.id)).toEqual([["dispute", -PRICE]]);

    const won = await paidOrder();
    await won.pay();
    const w = await activated(won.order.id);
    expect((await deliver(event("charge.dispute.closed", won.dispute("won")))).status).toBe(200);
    expect((await deliver(event("charge.dispute.created", won.dispute("needs_response")))).status).toBe(200);
    expect(await code(w.req)).toBe("VALID");
    expect((await getDb().order.findUniqueOrThrow({ where: { id: won.order.id } })).disputeStatus).toBe("won");
    expect(await ledger(won.order.id)).toEqual([
      ["dispute", -PRICE],
      ["dispute_reversal", PRICE],
    ]);
  });

  it("a dispute won never reinstates a refunded license", async () => {
    const o = await paidOrder();
    await o.pay();
    const { req } = await activated(o.order.id);
    const charge = { id: `ch_${o.pi}`, object: "charge", amount: PRICE, amount_refunded: PRICE, currency: "usd", payment_intent: o.pi, metadata: {} };
    expect((await deliver(event("charge.refunded", charge))).status).toBe(200);
    expect(await code(req)).toBe("REFUNDED");
    await deliver(event("charge.dispute.created", o.dispute("needs_response")));
    expect(await code(req)).toBe("REFUNDED");
    await deliver(event("charge.dispute.closed", o.dispute("won")));
    expect(await code(req)).toBe("REFUNDED");
  });

  it("a dispute before the payment is known waits (409) and applies once the payment is in", async () => {
    const o = await paidOrder();
    const created = event("charge.dispute.created", o.dispute("needs_response"));
    expectProblem(await deliver(created), 409, "event_not_ready");
    await o.pay();
    const { req } = await activated(o.order.id);
    expect((await deliver(created)).body).toMatchObject({ duplicate: false, applied: true });
    expect(await code(req)).toBe("SUSPENDED");
  });

  it("a dispute of a payment that is not this marketplace's is recorded and ignored", async () => {
    const foreign = event("charge.dispute.created", {
      id: `dp_foreign_${run}`,
      object: "dispute",
      amount: 100,
      currency: "usd",
      charge: "ch_foreign",
      payment_intent: `pi_foreign_${run}`,
      status: "needs_response",
      reason: "general",
      metadata: {},
    });
    const r = await deliver(foreign);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ applied: false });
    expect(await getDb().paymentEvent.findUniqueOrThrow({ where: { id: `stripe:${foreign.id}` } })).toMatchObject({
      outcome: "ignored: not a payment of this marketplace",
    });
  });
});
