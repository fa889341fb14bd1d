import { createHash } from "node:crypto";
import pg from "pg";
import Stripe from "stripe";
import { expect, test } from "@playwright/test";
import { startStripeStub } from "../tests/helpers/stripe-stub";
import { dropDatabase, freshDatabase, PG_ADMIN, privatePostgres, startApp, startResendStub, type AppProcess } from "./support/servers";

// Several instances on one PostgreSQL, and the database or the mail provider failing under them. These tests start
// their own production servers (server.ts) next to the one Playwright started.
test.describe.configure({ mode: "serial", timeout: 180_000 });

const WEBHOOK_SECRET = "whsec_cluster_suite";
const fp = (s: string) => createHash("sha256").update(s).digest("hex");
const json = async (r: Response) => ({ status: r.status, headers: r.headers, body: await r.json().catch(() => undefined) });
const post = (base: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(base + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  }).then(json);

test.describe("two instances, one PostgreSQL", () => {
  const dbName = `ilm_cluster_${Date.now().toString(36)}`;
  let dbUrl: string;
  let a: AppProcess;
  let b: AppProcess;
  let stripeStub: Awaited<ReturnType<typeof startStripeStub>>;
  let resend: Awaited<ReturnType<typeof startResendStub>>;
  let sql: pg.Client;

  test.beforeAll(async () => {
    dbUrl = await freshDatabase(PG_ADMIN, dbName);
    stripeStub = await startStripeStub();
    resend = await startResendStub();
    const env = {
      DATABASE_URL: dbUrl,
      BASE_URL: "http://127.0.0.1:3211",
      STRIPE_SECRET_KEY: "sk_test_cluster",
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: stripeStub.base,
      RESEND_API_KEY: "re_test_cluster",
      RESEND_BASE_URL: resend.url,
      RATE_LIMIT_ACTIVATION_PER_MIN: "100000",
      RATE_LIMIT_PER_KEY_PER_MIN: "100000",
    };
    // Both start at once on the empty database: migrations and the demo seed must each happen exactly once.
    [a, b] = await Promise.all([startApp(3211, env), startApp(3212, env)]);
    sql = new pg.Client({ connectionString: dbUrl });
    await sql.connect();
  });

  test.afterAll(async () => {
    // Any of these is still unset when beforeAll failed part-way.
    const maybe = <T>(v: T) => v as T | undefined;
    await maybe(sql)?.end();
    await Promise.all([maybe(a)?.stop(), maybe(b)?.stop()]);
    await maybe(stripeStub)?.close();
    await maybe(resend)?.close();
    await dropDatabase(PG_ADMIN, dbName);
  });

  async function paidLicense(email: string) {
    const { rows } = await sql.query(`SELECT id FROM "Product" WHERE status = 'active' AND "maxMachines" >= 2 ORDER BY id LIMIT 1`);
    const created = await post(a.url, "/api/checkout/create", { product_id: rows[0].id, buyer_email: email });
    expect(created.status).toBe(200);
    const order = (await sql.query(`SELECT * FROM "Order" WHERE id = $1`, [created.body.session_id])).rows[0];
    const payload = JSON.stringify({
      id: `evt_cluster_${order.id}`,
      object: "event",
      type: "checkout.session.completed",
      data: {
        object: {
          id: order.providerSessionId,
          object: "checkout.session",
          payment_status: "paid",
          amount_total: order.amountCents,
          currency: "usd",
          client_reference_id: order.id,
          metadata: { order_id: order.id },
        },
      },
    });
    const signature = new Stripe("sk_test_x").webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    // The same event delivered to both instances at the same moment.
    const replies = await Promise.all([a, b].map((s) => post(s.url, "/api/webhooks/stripe", payload, { "stripe-signature": signature })));
    return { order, replies };
  }

  test("migrations and the demo catalogue ran once although both instances started together", async () => {
    expect((await sql.query(`SELECT count(*)::int AS n FROM "_prisma_migrations"`)).rows[0].n).toBeGreaterThan(0);
    const dup = await sql.query(`SELECT migration_name FROM "_prisma_migrations" GROUP BY migration_name HAVING count(*) > 1`);
    expect(dup.rows).toEqual([]);
    expect((await sql.query(`SELECT count(*)::int AS n FROM "Product"`)).rows[0].n).toBeGreaterThanOrEqual(24);
    for (const s of [a, b]) expect((await json(await fetch(`${s.url}/health`))).body.status).toBe("ok");
  });

  test("pages come from each instance's cache, and the next request after an edit on either instance shows it on both", async () => {
    // The catalog's first product, so the catalog's first page shows it too.
    const first = (await json(await fetch(`${a.url}/api/catalog`))).body.products[0].id as string;
    const { rows } = await sql.query(`SELECT id, name, "developerId" FROM "Product" WHERE id = $1`, [first]);
    const product = rows[0] as { id: string; name: string; developerId: string };
    const page = async (s: AppProcess, path: string) => {
      const r = await fetch(s.url + path);
      return { status: r.status, cache: r.headers.get("x-page-cache"), csp: r.headers.get("content-security-policy") ?? "", html: await r.text() };
    };
    // Rendered once per instance, then served from its cache: the same page, each time with its own nonce.
    for (const s of [a, b]) {
      for (const path of [`/products/${product.id}`, "/", "/api/catalog"]) {
        await page(s, path);
        const hit = await page(s, path);
        expect(hit.status, path).toBe(200);
        expect(hit.cache, path).toBe("hit");
      }
      const [one, two] = [await page(s, `/products/${product.id}`), await page(s, `/products/${product.id}`)];
      const nonceOf = (csp: string) => /'nonce-([^']+)'/.exec(csp)?.[1];
      expect(nonceOf(one.csp)).toBeTruthy();
      expect(nonceOf(one.csp)).not.toBe(nonceOf(two.csp));
      expect(one.html).toContain(`nonce="${nonceOf(one.csp)}"`);
      expect(two.html).toContain(`nonce="${nonceOf(two.csp)}"`);
      expect(two.html).not.toContain(`nonce="${nonceOf(one.csp)}"`);
      // A visitor with a cookie (signed in, a refilled form) is never served a shared copy.
      const withCookie = await fetch(`${s.url}/products/${product.id}`, { headers: { cookie: "x=1" } });
      expect(withCookie.headers.get("x-page-cache")).toBeNull();
    }

    // The seller edits the product through the API on instance A.
    const token = `ilmsk_${Buffer.from(`cluster-page-cache-${Date.now()}`).toString("base64url").padEnd(43, "A").slice(0, 43)}`;
    await sql.query(
      `INSERT INTO "SellerToken" (id, "developerId", name, "tokenHash", prefix, scopes, "createdBy", "createdAt") VALUES ($1, $2, 'cluster', $3, $4, '["products"]', 'tests', now())`,
      [`tok_${Date.now()}`, product.developerId, createHash("sha256").update(token).digest("hex"), token.slice(0, 12)],
    );
    const auth = { authorization: `Bearer ${token}` };
    const current = (await json(await fetch(`${a.url}/api/v1/products/${product.id}`, { headers: auth }))).body.product;
    const {
      id: _id,
      status: _status,
      sales_count: _sales,
      license_file_ttl_days: _ttl,
      created_at: _created,
      updated_at: _updated,
      ...input
    } = current;
    const renamed = `${product.name} Renamed ${Date.now().toString(36)}`;
    const put = await fetch(`${a.url}/api/v1/products/${product.id}`, {
      method: "PUT",
      headers: { "content-type": "application/json", ...auth },
      body: JSON.stringify({ ...input, name: renamed }),
    });
    expect(put.status, await put.clone().text()).toBe(200);
    // The very next request on each instance renders anew and shows it: the product page, the home page, the catalog.
    for (const s of [b, a]) {
      const fresh = await page(s, `/products/${product.id}`);
      expect(fresh.cache).toBe("miss");
      expect(fresh.html).toContain(renamed);
      expect((await page(s, "/")).html).toContain(renamed);
      expect((await page(s, "/api/catalog")).html).toContain(renamed);
    }

    // A write from anywhere else (here straight to the database) is seen as well: the version is the database's.
    const again = `${product.name} Again ${Date.now().toString(36)}`;
    await sql.query(`UPDATE "Product" SET name = $1 WHERE id = $2`, [again, product.id]);
    for (const s of [a, b]) expect((await page(s, `/products/${product.id}`)).html).toContain(again);
    await sql.query(`UPDATE "Product" SET name = $1 WHERE id = $2`, [product.name, product.id]);
  });

  test("a webhook event delivered to both instances at once fulfils once, and its e-mail is sent once", async () => {
    const email = `cluster-${Date.now()}@example.com`;
    const { order, replies } = await paidLicense(email);
    expect(replies.map((r) => r.status)).toEqual([200, 200]);
    expect(replies.filter((r) => r.body.fulfilled)).toHaveLength(1);
    expect((await sql.query(`SELECT count(*)::int AS n FROM "License" WHERE "orderId" = $1`, [order.id])).rows[0].n).toBe(1);
    await expect.poll(() => resend.sent.filter((m) => m.to.includes(email)).length, { timeout: 15_000 }).toBe(1);
    // Both senders keep polling; the message must still have gone out exactly once.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(resend.sent.filter((m) => m.to.includes(email))).toHaveLength(1);
  });

  test("activations racing across both instances fill exactly max_machines", async () => {
    const email = `race-${Date.now()}@example.com`;
    const { order } = await paidLicense(email);
    const license = (
      await sql.query(
        `SELECT l.key, l."maxMachines", p."pluginId" FROM "License" l JOIN "Product" p ON p.id = l."productId" WHERE l."orderId" = $1`,
        [order.id],
      )
    ).rows[0];
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        post(i % 2 ? b.url : a.url, "/activate", { license_key: license.key, machine_fingerprint: fp(`${email}-${i}`), plugin_id: license.pluginId }),
      ),
    );
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(replies.filter((r) => r.body.activated)).toHaveLength(license.maxMachines);
    const row = (await sql.query(`SELECT "activeMachines" FROM "License" WHERE key = $1`, [license.key])).rows[0];
    expect(row.activeMachines).toBe(license.maxMachines);
    // A machine activated through one instance validates at once through the other.
    const winner = replies.findIndex((r) => r.body.activated);
    const onOther = await post(winner % 2 ? a.url : b.url, "/validate", {
      license_key: license.key,
      machine_fingerprint: fp(`${email}-${winner}`),
      plugin_id: license.pluginId,
    });
    expect(onOther.body).toMatchObject({ valid: true, machine_bound: true });
  });

  test("Stripe's money events reach either instance and each applies once: onboarding, destination charge, outside refund, dispute lost", async () => {
    const stripe = new Stripe("sk_test_x");
    const run = Date.now().toString(36);
    const deliver = (targets: AppProcess[], event: object) => {
      const payload = JSON.stringify({ object: "event", api_version: "2025-01-01", ...event });
      const signature = stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
      return Promise.all(targets.map((s) => post(s.url, "/api/webhooks/stripe", payload, { "stripe-signature": signature })));
    };
    // A demo seller whose payout account is a Stripe Express account that has not finished onboarding.
    const product = (await sql.query(`SELECT id, "pluginId", "developerId", "priceCents" FROM "Product" WHERE status = 'active' ORDER BY id LIMIT 1`))
      .rows[0];
    const account = `acct_cluster${run}`;
    await sql.query(`DELETE FROM "PayoutAccount" WHERE "developerId" = $1`, [product.developerId]);
    await sql.query(
      `INSERT INTO "PayoutAccount" (id, "developerId", provider, "requirementsDue", "updatedAt") VALUES ($1, $2, 'stripe', '["external_account"]', now())`,
      [account, product.developerId],
    );
    const now = Math.floor(Date.now() / 1000);
    const accountEvent = (id: string, created: number, ready: boolean) => ({
      id,
      type: "account.updated",
      created,
      account,
      data: {
        object: {
          id: account,
          object: "account",
          charges_enabled: ready,
          payouts_enabled: ready,
          details_submitted: ready,
          requirements: { currently_due: ready ? [] : ["external_account"] },
        },
      },
    });
    // Onboarding finished: the event reaches both instances at once, twice; an older event arriving late changes nothing.
    const onboarded = [
      ...(await deliver([a, b], accountEvent(`evt_acct_ready_${run}`, now, true))),
      ...(await deliver([b], accountEvent(`evt_acct_ready_${run}`, now, true))),
    ];
    expect(onboarded.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(onboarded.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    expect((await deliver([a], accountEvent(`evt_acct_old_${run}`, now - 60, false)))[0]!.status).toBe(200);
    const ready = (await sql.query(`SELECT "chargesEnabled", "payoutsEnabled" FROM "PayoutAccount" WHERE id = $1`, [account])).rows[0];
    expect(ready).toEqual({ chargesEnabled: true, payoutsEnabled: true });

    // A sale of that seller's product is a destination charge carrying the platform's fee.
    const email = `cluster-money-${run}@example.com`;
    const created = await post(b.url, "/api/checkout/create", { product_id: product.id, buyer_email: email });
    expect(created.status).toBe(200);
    const order = (await sql.query(`SELECT * FROM "Order" WHERE id = $1`, [created.body.session_id])).rows[0];
    const sent = stripeStub.requests.filter((r) => r.path === "/v1/checkout/sessions" && r.form.get("client_reference_id") === order.id).at(-1)!;
    expect(sent.form.get("payment_intent_data[transfer_data][destination]")).toBe(account);
    expect(Number(sent.form.get("payment_intent_data[application_fee_amount]"))).toBe(Math.round(product.priceCents * 0.05));
    expect(order.feeCents).toBe(Math.round(product.priceCents * 0.05));
    expect(order.payoutAccountId).toBe(account);
    const paymentIntent = `pi_cluster${run}`;
    const completed = {
      id: `evt_paid_${run}`,
      type: "checkout.session.completed",
      created: now,
      data: {
        object: {
          id: order.providerSessionId,
          object: "checkout.session",
          payment_status: "paid",
          amount_total: order.amountCents,
          amount_subtotal: order.amountCents,
          currency: order.currency,
          client_reference_id: order.id,
          metadata: { order_id: order.id },
          payment_intent: paymentIntent,
        },
      },
    };
    expect((await deliver([a, b], completed)).filter((r) => r.body.fulfilled)).toHaveLength(1);

    // A partial refund made in Stripe's dashboard: delivered to both at once and once more; recorded once.
    const refunded = {
      id: `evt_refund_${run}`,
      type: "charge.refunded",
      created: now,
      data: {
        object: {
          id: `ch_cluster${run}`,
          object: "charge",
          amount: order.amountCents,
          amount_refunded: 100,
          currency: order.currency,
          payment_intent: paymentIntent,
          metadata: { order_id: order.id },
          refunded: false,
        },
      },
    };
    const refundReplies = [...(await deliver([a, b], refunded)), ...(await deliver([a, b], refunded))];
    expect(refundReplies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(refundReplies.filter((r) => r.body.applied)).toHaveLength(1);
    const refunds = (await sql.query(`SELECT "amountCents", "initiatedBy", status FROM "Refund" WHERE "orderId" = $1`, [order.id])).rows;
    expect(refunds).toEqual([{ amountCents: 100, initiatedBy: "provider", status: "succeeded" }]);

    // A dispute, its closing (lost) arriving first at one instance, its opening later at the other; each twice.
    const dispute = (type: string, status: string) => ({
      id: `evt_${type}_${run}`,
      type,
      created: now,
      data: {
        object: {
          id: `dp_cluster${run}`,
          object: "dispute",
          amount: order.amountCents - 100,
          currency: order.currency,
          payment_intent: paymentIntent,
          charge: `ch_cluster${run}`,
          metadata: {},
          reason: "fraudulent",
          status,
        },
      },
    });
    await deliver([a, b], dispute("charge.dispute.closed", "lost"));
    await deliver([b, a], dispute("charge.dispute.created", "needs_response"));
    const after = (await sql.query(`SELECT "disputeStatus", "refundedCents" FROM "Order" WHERE id = $1`, [order.id])).rows[0];
    expect(after).toEqual({ disputeStatus: "lost", refundedCents: 100 });
    const license = (await sql.query(`SELECT key, "isActive", revocation FROM "License" WHERE "orderId" = $1`, [order.id])).rows[0];
    expect(license).toMatchObject({ isActive: false, revocation: "dispute_lost" });
    const ledger = (await sql.query(`SELECT kind, "amountMinor" FROM "LedgerEntry" WHERE "orderId" = $1 ORDER BY kind`, [order.id])).rows;
    const count = (kind: string) => ledger.filter((e) => e.kind === kind).length;
    expect({
      sale: count("sale"),
      fee: count("platform_fee"),
      refund: count("refund"),
      dispute: count("dispute"),
      reversal: count("dispute_reversal"),
    }).toEqual({
      sale: 1,
      fee: 1,
      refund: 1,
      dispute: 1,
      reversal: 0,
    });
    expect(ledger.find((e) => e.kind === "refund")!.amountMinor).toBe(-100);
    expect(ledger.find((e) => e.kind === "dispute")!.amountMinor).toBe(-(order.amountCents - 100));
    // Each event id is recorded once, whichever instance took it.
    const events = await sql.query(`SELECT id, count(*)::int AS n FROM "PaymentEvent" WHERE id LIKE $1 GROUP BY id`, [`stripe:evt_%${run}`]);
    expect(events.rows.length).toBe(6);
    expect(events.rows.every((r) => r.n === 1)).toBe(true);
    // Apps asking either instance are told the license is revoked.
    for (const s of [a, b]) {
      const v = await post(s.url, "/validate", { license_key: license.key, machine_fingerprint: fp(run), plugin_id: product.pluginId });
      expect(v.body).toMatchObject({ valid: false, code: "REVOKED" });
    }
  });

  test("a crash between payment and e-mail loses nothing: the other instance sends it once the provider is back", async () => {
    resend.state.failing = true;
    const email = `crash-${Date.now()}@example.com`;
    const { order } = await paidLicense(email);
    const pending = async () =>
      (await sql.query(`SELECT status, attempts FROM "EmailMessage" WHERE "dedupeKey" = $1`, [`license:${order.id}`])).rows[0];
    await expect.poll(async () => (await pending()).attempts, { timeout: 15_000 }).toBeGreaterThan(0);
    expect((await pending()).status).toBe("pending");
    await a.stop("SIGKILL");
    resend.state.failing = false;
    // Time passes until the retry is due (the first retry waits 30 s).
    await sql.query(`UPDATE "EmailMessage" SET "nextAttemptAt" = now(), "lockedUntil" = NULL WHERE "dedupeKey" = $1`, [`license:${order.id}`]);
    await expect.poll(async () => (await pending()).status, { timeout: 15_000 }).toBe("sent");
    expect(resend.sent.filter((m) => m.to.includes(email))).toHaveLength(1);
  });
});

test.describe("the database restarting under load", () => {
  test("requests fail with 503 problem documents while PostgreSQL is down and succeed again afterwards", async () => {
    const server = privatePostgres();
    expect(server, "PostgreSQL's server binaries (initdb, pg_ctl) are needed for this test").not.toBeNull();
    let app: AppProcess | undefined;
    try {
      await server!.start();
      app = await startApp(3213, { DATABASE_URL: server!.url(), BASE_URL: "http://127.0.0.1:3213", DATABASE_POOL_SIZE: "4", PAYMENTS: "test" });
      // A new search each time: marketplace reads are cached for a few seconds, and this must reach the database.
      let n = 0;
      const listing = () => fetch(`${app!.url}/api/marketplace/listings?limit=1&search=a&page=${++n}`).then(json);
      expect((await listing()).status).toBe(200);
      const { products } = (await fetch(`${app.url}/api/marketplace/listings?limit=1`).then(json)).body;
      const checkout = await post(app.url, "/api/checkout/create", { product_id: products[0].id, buyer_email: "fault@example.com" });
      expect(checkout.status).toBe(200);

      server!.stop();
      const down = await Promise.all([
        listing(),
        post(app.url, "/api/checkout/create", { product_id: products[0].id, buyer_email: "fault@example.com" }),
        fetch(`${app.url}/checkout/${checkout.body.session_id}/pay`, { method: "POST" }).then(json),
      ]);
      for (const r of down) {
        expect(r.status).toBe(503);
        expect(r.headers.get("content-type")).toBe("application/problem+json");
        expect(r.body).toMatchObject({ code: "service_unavailable", status: 503 });
        expect(r.headers.get("retry-after")).toBe("5");
      }
      expect((await fetch(`${app.url}/health`)).status).toBe(200);

      await server!.start();
      await expect.poll(async () => (await listing()).status, { timeout: 30_000 }).toBe(200);
      // The payment attempted while the database was down left nothing half-done.
      const status = (await fetch(`${app.url}/api/checkout/${checkout.body.session_id}`).then(json)).body;
      expect(status).toMatchObject({ status: "open", license: null });
      const paid = await fetch(`${app.url}/checkout/${checkout.body.session_id}/pay`, { method: "POST", redirect: "manual" });
      expect(paid.status).toBe(303);
      expect((await fetch(`${app.url}/api/checkout/${checkout.body.session_id}`).then(json)).body).toMatchObject({
        status: "paid",
        license: { license_key: expect.any(String) },
      });
    } finally {
      await app?.stop();
      server?.destroy();
    }
  });
});
