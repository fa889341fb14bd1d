import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import Stripe from "stripe";
import { POST as connectApi } from "@/app/api/v1/payouts/connect/route";
import { POST as dashboardLinkApi } from "@/app/api/v1/payouts/dashboard-link/route";
import { GET as payoutApi } from "@/app/api/v1/payouts/route";
import { POST as createProductApi } from "@/app/api/v1/products/route";
import { POST as webhook } from "@/app/api/webhooks/stripe/route";
import { consumeSignIn, requestSignIn } from "@/lib/auth/sign-in";
import { createDeveloperProfile } from "@/lib/selling/developer-profile";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { connectPayoutAccount, refreshPayoutAccount } from "@/lib/payouts/stripe-connect";
import { connectTestPayoutAccount } from "@/lib/payouts/test-account";
import { call, expectProblem } from "../helpers/http";
import { SELLER_TRUST } from "../helpers/sellers";
import { startStripeStub, type StubRequest } from "../helpers/stripe-stub";

const SECRET = "whsec_payouts_suite";
const STRIPE = { STRIPE_SECRET_KEY: "sk_test_payouts", STRIPE_WEBHOOK_SECRET: SECRET };
const signer = new Stripe("sk_test_unused");
const saved = { ...process.env };
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const now = () => Math.floor(Date.now() / 1000);

/** What the stand-in's accounts look like now (tests change them, as a seller finishing onboarding would). */
const accounts = new Map<string, Record<string, unknown>>();
/** Stripe answers a repeated idempotency key with the first answer; the stand-in does the same for accounts. */
const byIdempotencyKey = new Map<string, string>();
let stub: Awaited<ReturnType<typeof startStripeStub>>;

function newAccount(req: StubRequest, n: number) {
  const key = String(req.headers["idempotency-key"] ?? "");
  const known = key ? byIdempotencyKey.get(key) : undefined;
  if (known) return { body: accounts.get(known) };
  const id = `acct_stub${n}${unique()}`;
  const account = {
    id,
    object: "account",
    created: now(),
    email: req.form.get("email"),
    country: req.form.get("country") ?? "US",
    charges_enabled: false,
    payouts_enabled: false,
    details_submitted: false,
    requirements: { currently_due: ["external_account", "tos_acceptance.date", "individual.dob.day"] },
    metadata: { developer_id: req.form.get("metadata[developer_id]") },
  };
  accounts.set(id, account);
  if (key) byIdempotencyKey.set(key, id);
  return { body: account };
}

beforeAll(async () => {
  stub = await startStripeStub({
    routes: {
      "POST /v1/accounts": newAccount,
      "POST /v1/account_links": (req) => ({
        body: {
          object: "account_link",
          created: now(),
          expires_at: now() + 300,
          url: `https://connect.stripe.com/setup/e/${req.form.get("account")}/x`,
        },
      }),
      "GET /v1/accounts/": (req) => {
        const account = accounts.get(req.path.split("/")[3]!.split("?")[0]!);
        return account ? { body: account } : null;
      },
      "POST /v1/accounts/": (req) => ({
        body: { object: "login_link", created: now(), url: `https://connect.stripe.com/express/${req.path.split("/")[3]}/login` },
      }),
    },
  });
});
afterEach(() => useEnv({}));
afterAll(async () => {
  useEnv({});
  await stub.close();
  await disconnectDb();
});

/** Settings for the next calls: Stripe (pointed at the stand-in), test mode, or production without a provider. */
function useEnv(over: Record<string, string | undefined>) {
  for (const k of [
    "STRIPE_SECRET_KEY",
    "STRIPE_WEBHOOK_SECRET",
    "STRIPE_CONNECT_WEBHOOK_SECRET",
    "STRIPE_API_BASE",
    "PAYMENTS",
    "NODE_ENV",
    "BASE_URL",
  ]) {
    if (saved[k] === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = saved[k];
  }
  for (const [k, v] of Object.entries(over)) if (v !== undefined) process.env[k] = v;
  resetEnv();
}
const stripeMode = () => useEnv({ ...STRIPE, STRIPE_API_BASE: stub.base });

async function seller(prefix = "payouts") {
  const email = `${prefix}-${unique()}@example.com`;
  // With what a paid listing needs on the profile, so the publish gate's answer is about the payout account alone.
  const dev = await createDeveloperProfile(email, { ...SELLER_TRUST, name: `Payout Studio ${unique()}`, website: null, bio: "" });
  await requestSignIn({ email, purpose: "seller" });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const session = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
  return { dev, email, cookie: `${session.cookieName}=${session.cookieValue}` };
}

const connect = (cookie: string, json: unknown = {}) => call(connectApi, "/api/v1/payouts/connect", { method: "POST", headers: { cookie }, json });
const status = (cookie: string) => call(payoutApi, "/api/v1/payouts", { headers: { cookie } });

let seq = 0;
function accountEvent(account: Record<string, unknown>, created: number, type = "account.updated") {
  return {
    id: `evt_payouts_${unique()}_${++seq}`,
    object: "event",
    type,
    api_version: "2026-10-28.endive",
    created,
    account: account.id,
    data: { object: account },
  };
}
function deliver(event: unknown, secret = SECRET) {
  const payload = JSON.stringify(event);
  const header = signer.webhooks.generateTestHeaderString({ payload, secret });
  return call(webhook, "/api/webhooks/stripe", {
    method: "POST",
    body: payload,
    headers: { "content-type": "application/json", "stripe-signature": header },
  });
}
const ready = (id: string) => ({
  ...accounts.get(id),
  charges_enabled: true,
  payouts_enabled: true,
  details_submitted: true,
  requirements: { currently_due: [] },
});

function productBody(price: number) {
  const id = unique();
  return {
    name: `Payout Gate ${id}`,
    tagline: "A product for the payout tests.",
    description: "A product created by the payouts test, with a long enough description.",
    plugin_id: `com.payouts.gate${id}`,
    price_cents: price,
    category: "dev-tools",
    max_machines: 2,
    seat_model: "per-machine",
    platforms: ["linux"],
    download_url: "https://example.com/download.zip",
    icon_url: "/icons/tape-warmth.svg",
  };
}
const publish = (cookie: string, price: number) =>
  call(createProductApi, "/api/v1/products", { method: "POST", headers: { cookie }, json: { ...productBody(price), publish: true } });

describe("Stripe Connect onboarding, through the real SDK against the stand-in", () => {
  it("creates one Express account per seller with the documented parameters, then an onboarding link", async () => {
    stripeMode();
    const s = await seller();
    const before = stub.requests.length;
    const r = await connect(s.cookie, { country: "DE" });
    expect(r.status, r.text).toBe(200);
    const sent = stub.requests.slice(before);
    expect(sent.map((q) => `${q.method} ${q.path}`)).toEqual(["POST /v1/accounts", "POST /v1/account_links"]);
    const [create, link] = sent as [StubRequest, StubRequest];
    expect(create.headers.authorization).toBe("Bearer sk_test_payouts");
    expect(create.headers["idempotency-key"]).toMatch(new RegExp(`^payout-account-${s.dev.id}-`));
    expect(Object.fromEntries(create.form)).toEqual({
      "controller[stripe_dashboard][type]": "express",
      "controller[fees][payer]": "application",
      "controller[losses][payments]": "application",
      "controller[requirement_collection]": "stripe",
      email: s.email,
      country: "DE",
      "capabilities[card_payments][requested]": "true",
      "capabilities[transfers][requested]": "true",
      "metadata[developer_id]": s.dev.id,
    });
    const accountId = r.body.payout_account.account_id as string;
    expect(Object.fromEntries(link.form)).toEqual({
      account: accountId,
      type: "account_onboarding",
      refresh_url: "http://localhost:3000/dashboard/payouts/refresh",
      return_url: "http://localhost:3000/dashboard/payouts/return",
    });
    expect(r.body).toMatchObject({
      provider: "stripe",
      url: `https://connect.stripe.com/setup/e/${accountId}/x`,
      payout_account: {
        provider: "stripe",
        status: "action_needed",
        ready: false,
        requirements_due: ["external_account", "tos_acceptance.date", "individual.dob.day"],
        requirements_due_text: ["A bank account for your payouts", "Accept Stripe's terms of service", "Your date of birth"],
        connect_with: "stripe",
      },
    });
    expect(await getDb().payoutAccount.findUniqueOrThrow({ where: { developerId: s.dev.id } })).toMatchObject({ id: accountId, provider: "stripe" });

    // Connecting again (an expired link, a second tab) makes a new link for the same account, never a second account.
    const again = stub.requests.length;
    const r2 = await connect(s.cookie);
    expect(r2.status, r2.text).toBe(200);
    expect(stub.requests.slice(again).map((q) => `${q.method} ${q.path}`)).toEqual(["POST /v1/account_links"]);
    expect(r2.body.payout_account.account_id).toBe(accountId);
  });

  it("keeps one account when five connects race", async () => {
    stripeMode();
    const s = await seller();
    const replies = await Promise.all(Array.from({ length: 5 }, () => connect(s.cookie)));
    for (const r of replies) expect(r.status, r.text).toBe(200);
    const ids = new Set(replies.map((r) => r.body.payout_account.account_id));
    expect(ids.size).toBe(1);
    expect(await getDb().payoutAccount.count({ where: { developerId: s.dev.id } })).toBe(1);
  });

  it("refuses a bad country, and anonymous or cross-site callers", async () => {
    stripeMode();
    const s = await seller();
    expectProblem(await connect(s.cookie, { country: "Germany" }), 400, "invalid_body");
    expectProblem(await call(connectApi, "/api/v1/payouts/connect", { method: "POST", json: {} }), 401, "unauthorized");
    const crossSite = await call(connectApi, "/api/v1/payouts/connect", {
      method: "POST",
      headers: { cookie: s.cookie, origin: "https://evil.example" },
      json: {},
    });
    expectProblem(crossSite, 403, "cross_site_request");
    expect(await getDb().payoutAccount.count({ where: { developerId: s.dev.id } })).toBe(0);
  });

  it("answers 502 and stores nothing when Stripe cannot be reached", async () => {
    useEnv({ ...STRIPE, STRIPE_API_BASE: "http://127.0.0.1:9" });
    const s = await seller();
    expectProblem(await connect(s.cookie), 502, "payment_provider_unavailable");
    expect(await getDb().payoutAccount.count({ where: { developerId: s.dev.id } })).toBe(0);
  });

  it("re-reads the account when the seller comes back from onboarding", async () => {
    stripeMode();
    const s = await seller();
    const id = (await connect(s.cookie)).body.payout_account.account_id as string;
    accounts.set(id, ready(id));
    const before = stub.requests.length;
    const view = await refreshPayoutAccount(s.dev.id);
    expect(stub.requests.slice(before).map((q) => `${q.method} ${q.path.split("?")[0]}`)).toEqual([`GET /v1/accounts/${id}`]);
    expect(view).toMatchObject({ status: "ready", ready: true, requirements_due: [] });
    // An account.updated event from before that read arrives late: it does not undo it.
    const late = await deliver(
      accountEvent({ ...accounts.get(id), charges_enabled: false, requirements: { currently_due: ["external_account"] } }, now() - 60),
    );
    expect(late.status, late.text).toBe(200);
    expect(late.body).toMatchObject({ applied: false, duplicate: false });
    expect((await status(s.cookie)).body.payout_account).toMatchObject({ status: "ready" });
  });

  it("opens the Express dashboard only once onboarding is done, through a login link", async () => {
    stripeMode();
    const s = await seller();
    const link = () => call(dashboardLinkApi, "/api/v1/payouts/dashboard-link", { method: "POST", headers: { cookie: s.cookie } });
    expectProblem(await link(), 404, "payout_account_not_found");
    const id = (await connect(s.cookie)).body.payout_account.account_id as string;
    expectProblem(await link(), 409, "payout_onboarding_incomplete");
    await deliver(accountEvent(ready(id), now()));
    const before = stub.requests.length;
    const r = await link();
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ url: `https://connect.stripe.com/express/${id}/login` });
    expect(stub.requests.slice(before).map((q) => `${q.method} ${q.path}`)).toEqual([`POST /v1/accounts/${id}/login_links`]);
  });
});

describe("account.updated, signed, applied exactly once", () => {
  async function connected() {
    stripeMode();
    const s = await seller();
    const id = (await connect(s.cookie)).body.payout_account.account_id as string;
    return { ...s, id };
  }

  it("sets the status; the same event again is a duplicate", async () => {
    const s = await connected();
    const event = accountEvent(ready(s.id), now());
    const first = await deliver(event);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ received: true, applied: true, duplicate: false });
    expect((await status(s.cookie)).body.payout_account).toMatchObject({
      status: "ready",
      ready: true,
      charges_enabled: true,
      payouts_enabled: true,
      details_submitted: true,
      requirements_due: [],
    });
    const again = await deliver(event);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ duplicate: true, applied: false });
    const record = await getDb().paymentEvent.findUniqueOrThrow({ where: { id: `stripe:${event.id}` } });
    expect(record).toMatchObject({ type: "account.updated", accountId: s.id, outcome: "ready" });
  });

  it("takes connected accounts' events signed by the Connect endpoint's secret, and only those", async () => {
    const s = await connected();
    const CONNECT_SECRET = "whsec_payouts_connect_endpoint";
    useEnv({ ...STRIPE, STRIPE_API_BASE: stub.base, STRIPE_CONNECT_WEBHOOK_SECRET: CONNECT_SECRET });
    const event = accountEvent(ready(s.id), now());
    const viaConnect = await deliver(event, CONNECT_SECRET);
    expect(viaConnect.status, viaConnect.text).toBe(200);
    expect(viaConnect.body).toMatchObject({ applied: true, duplicate: false });
    expect((await status(s.cookie)).body.payout_account).toMatchObject({ ready: true });
    // The Connect secret cannot vouch for a platform event (one without `account`), nor can any other secret sign.
    const platformEvent = { ...accountEvent(ready(s.id), now()), account: undefined };
    const refused = await deliver(platformEvent, CONNECT_SECRET);
    expectProblem(refused, 400, "invalid_signature");
    expectProblem(await deliver(accountEvent(ready(s.id), now()), "whsec_someone_else"), 400, "invalid_signature");
    expect(await getDb().paymentEvent.count({ where: { id: `stripe:${platformEvent.id}` } })).toBe(0);
    // Without the setting, the Connect endpoint's events are refused as unsigned.
    stripeMode();
    expectProblem(await deliver(accountEvent(ready(s.id), now()), CONNECT_SECRET), 400, "invalid_signature");
  });

  it("applies five concurrent deliveries of one event once", async () => {
    const s = await connected();
    const event = accountEvent(ready(s.id), now());
    const replies = await Promise.all(Array.from({ length: 5 }, () => deliver(event)));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(replies.filter((r) => r.body.applied)).toHaveLength(1);
    expect(replies.filter((r) => r.body.duplicate)).toHaveLength(4);
    expect(await getDb().paymentEvent.count({ where: { id: `stripe:${event.id}` } })).toBe(1);
    expect((await status(s.cookie)).body.payout_account.ready).toBe(true);
  });

  it("out of order: the newer status stays when an older event arrives after it", async () => {
    const s = await connected();
    const t = now() + 100;
    const newer = accountEvent(
      { ...ready(s.id), payouts_enabled: false, requirements: { currently_due: ["individual.verification.document"] } },
      t + 10,
    );
    const older = accountEvent(ready(s.id), t);
    expect((await deliver(newer)).body).toMatchObject({ applied: true });
    const late = await deliver(older);
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ applied: false, duplicate: false, reason: "ignored: older than the status held" });
    expect((await status(s.cookie)).body.payout_account).toMatchObject({
      status: "action_needed",
      ready: false,
      requirements_due: ["individual.verification.document"],
      requirements_due_text: ["An identity document"],
    });
  });

  it("records and ignores an account that is not ours", async () => {
    stripeMode();
    const event = accountEvent({ id: `acct_elsewhere${unique()}`, object: "account", charges_enabled: true, payouts_enabled: true }, now());
    const r = await deliver(event);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ applied: false, reason: "ignored: unknown account" });
    expect(await getDb().paymentEvent.findUniqueOrThrow({ where: { id: `stripe:${event.id}` } })).toMatchObject({
      outcome: "ignored: unknown account",
    });
  });

  it("a deauthorized account is no longer ready, whatever older events say, and connecting starts a new account", async () => {
    const s = await connected();
    await deliver(accountEvent(ready(s.id), now()));
    const gone = await deliver({
      ...accountEvent({ id: "ca_platform", object: "application" }, now() - 30, "account.application.deauthorized"),
      account: s.id,
    });
    expect(gone.body).toMatchObject({ applied: true });
    expect((await status(s.cookie)).body.payout_account).toMatchObject({ ready: false, status: "action_needed" });
    expectProblem(await publish(s.cookie, 1500), 409, "payout_account_required");
    const again = await connect(s.cookie);
    expect(again.status, again.text).toBe(200);
    expect(again.body.payout_account.account_id).not.toBe(s.id);
    expect(await getDb().payoutAccount.count({ where: { developerId: s.dev.id } })).toBe(1);
  });
});

describe("the publishing gate follows the payout account", () => {
  it("not ready: a paid listing is a 409 naming what is missing; ready: the paid one publishes", async () => {
    stripeMode();
    const s = await seller();
    const none = await publish(s.cookie, 1500);
    expectProblem(none, 409, "payout_account_required");
    expect(none.body.detail).toMatch(/Connect a payout account first/);
    const id = (await connect(s.cookie)).body.payout_account.account_id as string;
    const pending = await publish(s.cookie, 1500);
    expectProblem(pending, 409, "payout_account_required");
    expect(pending.body.detail).toContain("still due: a bank account for your payouts; accept Stripe's terms of service; your date of birth");
    await deliver(accountEvent(ready(id), now()));
    const paid = await publish(s.cookie, 1500);
    expect(paid.status, paid.text).toBe(201);
  });

  it("a test account left from test mode does not count once the deployment sells through Stripe", async () => {
    useEnv({});
    const s = await seller();
    await connectTestPayoutAccount(s.dev.id);
    expect((await publish(s.cookie, 900)).status).toBe(201);
    stripeMode();
    expectProblem(await publish(s.cookie, 900), 409, "payout_account_required");
    expect((await status(s.cookie)).body.payout_account).toMatchObject({ provider: "test", status: "action_needed", ready: false });
    // Connecting on Stripe replaces it with a Stripe account.
    const r = await connect(s.cookie);
    expect(r.body.payout_account).toMatchObject({ provider: "stripe" });
    expect(await getDb().payoutAccount.findUniqueOrThrow({ where: { developerId: s.dev.id } })).toMatchObject({ provider: "stripe" });
  });
});

describe("the test payout account", () => {
  it("is connected at once in test mode, idempotently", async () => {
    useEnv({});
    const s = await seller();
    const r = await connect(s.cookie);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      provider: "test",
      url: null,
      payout_account: { provider: "test", status: "ready", ready: true, connect_with: "test" },
    });
    const again = await connect(s.cookie);
    expect(again.body.payout_account.account_id).toBe(r.body.payout_account.account_id);
    expect(await getDb().payoutAccount.count({ where: { developerId: s.dev.id } })).toBe(1);
    expectProblem(
      await call(dashboardLinkApi, "/api/v1/payouts/dashboard-link", { method: "POST", headers: { cookie: s.cookie } }),
      409,
      "no_provider_dashboard",
    );
  });

  it("exists only in test mode; with no payment provider nothing can be connected", async () => {
    stripeMode();
    const s = await seller();
    await expect(connectTestPayoutAccount(s.dev.id)).rejects.toMatchObject({ status: 409, code: "test_mode_off" });
    // A public production deployment (a local one, BASE_URL on this machine, runs test mode).
    useEnv({ NODE_ENV: "production", BASE_URL: "https://shop.example" });
    await expect(connectPayoutAccount(s.dev)).rejects.toMatchObject({ status: 409, code: "payouts_not_configured" });
    const view = await status(s.cookie);
    expect(view.body.payout_account).toMatchObject({ status: "not_connected", connect_with: null });
    expect(await getDb().payoutAccount.count({ where: { developerId: s.dev.id } })).toBe(0);
  });
});

describe("a seller sees only their own payout account", () => {
  it("another seller's status, link and connect never touch yours", async () => {
    stripeMode();
    const a = await seller("owner");
    const b = await seller("nosy");
    const id = (await connect(a.cookie)).body.payout_account.account_id as string;
    await deliver(accountEvent(ready(id), now()));
    const theirs = await status(b.cookie);
    expect(theirs.body.payout_account).toMatchObject({ status: "not_connected", account_id: null });
    expect(JSON.stringify(theirs.body)).not.toContain(id);
    expectProblem(
      await call(dashboardLinkApi, "/api/v1/payouts/dashboard-link", { method: "POST", headers: { cookie: b.cookie } }),
      404,
      "payout_account_not_found",
    );
    // The body cannot name an account: unknown fields are refused.
    expectProblem(await connect(b.cookie, { account: id }), 400, "invalid_body");
    expect((await status(a.cookie)).body.payout_account).toMatchObject({ account_id: id, ready: true });
    expectProblem(await status(""), 401, "unauthorized");
  });
});

describe("payout.paid from a connected account", () => {
  it("is one negative payout entry in the seller's ledger, once, in the payout's currency", async () => {
    stripeMode();
    const s = await seller();
    const id = (await connect(s.cookie)).body.payout_account.account_id as string;
    const po = `po_${unique()}`;
    const event = {
      id: `evt_payout_${unique()}`,
      object: "event",
      type: "payout.paid",
      created: now(),
      account: id,
      data: { object: { id: po, object: "payout", amount: 4275, currency: "eur", arrival_date: now(), status: "paid" } },
    };
    const replies = await Promise.all([deliver(event), deliver(event), deliver(event)]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(replies.filter((r) => r.body.applied)).toHaveLength(1);
    // The same payout in another event (Stripe may send payout.paid again under a new event id): still one entry.
    await deliver({ ...event, id: `evt_payout_${unique()}` });
    const entries = await getDb().ledgerEntry.findMany({ where: { developerId: s.dev.id, kind: "payout" } });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ key: `payout:${po}`, amountMinor: -4275, currency: "eur", orderId: null });

    const stranger = await deliver({
      ...event,
      id: `evt_payout_${unique()}`,
      account: "acct_not_ours",
      data: { object: { ...event.data.object, id: `po_${unique()}` } },
    });
    expect(stranger.body).toMatchObject({ applied: false, reason: "ignored: unknown account" });
  });
});
