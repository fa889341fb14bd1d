import { afterAll, describe, expect, it } from "vitest";
import { POST as create } from "@/app/api/checkout/create/route";
import { GET as status } from "@/app/api/checkout/[session_id]/route";
import { POST as startForm } from "@/app/checkout/start/route";
import { POST as pay } from "@/app/checkout/[session_id]/pay/route";
import { POST as cancel } from "@/app/checkout/[session_id]/cancel/route";
import { disconnectDb, getDb } from "@/lib/db";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { call, expectProblem } from "../helpers/http";

afterAll(() => disconnectDb());

async function product(over: { trial?: boolean } = {}) {
  return getDb().product.findFirstOrThrow({
    where: { status: "active", ...(over.trial ? { trialAvailable: true } : {}) },
    orderBy: { priceCents: "desc" },
  });
}

async function checkout(body: Record<string, unknown>) {
  return call(create, "/api/checkout/create", { method: "POST", json: body });
}

describe("POST /api/checkout/create (test mode)", () => {
  it("returns {url, session_id} with where to follow up, and records amount, currency, the 5 % fee and the agent", async () => {
    const p = await product();
    const r = await checkout({ product_id: p.id, buyer_email: "Buyer@Example.com", agent_id: "agent:claude/1" });
    expect(r.status, r.text).toBe(200);
    // The interface's two fields, plus what REST and the MCP checkout tools share for following up.
    expect(Object.keys(r.body).sort()).toEqual(["amount_cents", "currency", "expires_at", "session_id", "status_url", "url"]);
    expect(r.body.status_url).toBe(`http://localhost:3000/api/checkout/${r.body.session_id}`);
    expect(r.body.session_id).toMatch(/^cs_[A-Za-z0-9]{24}$/);
    expect(r.body.url).toBe(`http://localhost:3000/checkout/${r.body.session_id}`);
    const order = await getDb().order.findUniqueOrThrow({ where: { id: r.body.session_id } });
    expect(order).toMatchObject({
      productId: p.id,
      buyerEmail: "buyer@example.com",
      agentId: "agent:claude/1",
      provider: "test",
      amountCents: p.priceCents,
      feeCents: Math.round(p.priceCents * 0.05),
      currency: "usd",
      status: "open",
    });
    expect(order.expiresAt.getTime()).toBeGreaterThan(Date.now() + 22 * 3600_000);
  });

  it("refuses unknown and unlisted products, bad e-mails and malformed bodies", async () => {
    const p = await product();
    expectProblem(await checkout({ product_id: "no-such-product", buyer_email: "a@example.com" }), 404, "product_not_found");
    const bad = await checkout({ product_id: p.id, buyer_email: "not-an-email" });
    expectProblem(bad, 400, "invalid_body");
    expect(bad.body.errors[0].name).toBe("buyer_email");
    expectProblem(await checkout({ product_id: p.id }), 400, "invalid_body");
    expectProblem(await checkout({ product_id: p.id, buyer_email: "a@example.com", agent_id: "<script>" }), 400, "invalid_body");
    expectProblem(
      await call(create, "/api/checkout/create", { method: "POST", body: "{oops", headers: { "content-type": "application/json" } }),
      400,
      "invalid_json",
    );
    expectProblem(
      await call(create, "/api/checkout/create", {
        method: "POST",
        json: { product_id: p.id, buyer_email: "a@example.com", pad: "x".repeat(100_000) },
      }),
      413,
      "body_too_large",
    );

    const before = await getDb().order.count();
    await getDb().product.update({ where: { id: p.id }, data: { status: "unlisted" } });
    try {
      expectProblem(await checkout({ product_id: p.id, buyer_email: "a@example.com" }), 404, "product_not_found");
    } finally {
      await getDb().product.update({ where: { id: p.id }, data: { status: "active" } });
    }
    expect(await getDb().order.count()).toBe(before);
  });
});

describe("test-mode payment and fulfilment", () => {
  it("Pay issues one full license and queues one e-mail; the status API reports it", async () => {
    const p = await product({ trial: true });
    const { body } = await checkout({ product_id: p.id, buyer_email: "payer@example.com", agent_id: "agent-7" });
    const open = await call(status, `/api/checkout/${body.session_id}`, { params: { session_id: body.session_id } });
    expect(open.body).toMatchObject({
      status: "open",
      url: body.url,
      license: null,
      agent_id: "agent-7",
      fee_cents: Math.round(p.priceCents * 0.05),
    });

    const paid = await call(pay, `/checkout/${body.session_id}/pay`, { method: "POST", params: { session_id: body.session_id } });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`http://localhost:3000/checkout/${body.session_id}/success`);

    const license = await getDb().license.findUniqueOrThrow({ where: { orderId: body.session_id } });
    expect(license).toMatchObject({
      productId: p.id,
      buyerEmail: "payer@example.com",
      maxMachines: p.maxMachines,
      trial: false,
      expiresAt: null,
      source: "purchase",
      isActive: true,
    });
    const mails = await getDb().emailMessage.findMany({ where: { dedupeKey: `license:${body.session_id}` } });
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toBe("payer@example.com");
    expect(mails[0]!.text).toContain(license.key);
    expect((await getDb().product.findUniqueOrThrow({ where: { id: p.id } })).salesCount).toBe(p.salesCount + 1);

    const s = await call(status, `/api/checkout/${body.session_id}`, { params: { session_id: body.session_id } });
    expect(s.body).toMatchObject({
      status: "paid",
      url: null,
      license: { license_key: license.key, plugin_id: p.pluginId, max_machines: p.maxMachines, delivered_to: "payer@example.com" },
    });
    expect(["queued", "sent"]).toContain(s.body.license.email_status);
    expect(s.body.paid_at).not.toBeNull();
  });

  it("a race of completions gives one license and one e-mail", async () => {
    const p = await product();
    const { body } = await checkout({ product_id: p.id, buyer_email: "race@example.com" });
    const results = await Promise.all(Array.from({ length: 10 }, () => payTestCheckout(body.session_id)));
    expect(results.filter((r) => r.fulfilled)).toHaveLength(1);
    expect(await getDb().license.count({ where: { orderId: body.session_id } })).toBe(1);
    expect(await getDb().emailMessage.count({ where: { dedupeKey: `license:${body.session_id}` } })).toBe(1);
  });

  it("a cancelled or expired session cannot be paid; a paid one cannot be cancelled", async () => {
    const p = await product();
    const a = (await checkout({ product_id: p.id, buyer_email: "c@example.com" })).body;
    const c = await call(cancel, `/checkout/${a.session_id}/cancel`, { method: "POST", params: { session_id: a.session_id } });
    expect(c.status).toBe(303);
    await expect(payTestCheckout(a.session_id)).rejects.toMatchObject({ status: 409, code: "checkout_cancelled" });
    expect(await getDb().license.count({ where: { orderId: a.session_id } })).toBe(0);

    const b = (await checkout({ product_id: p.id, buyer_email: "e@example.com" })).body;
    await getDb().order.update({ where: { id: b.session_id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const s = await call(status, `/api/checkout/${b.session_id}`, { params: { session_id: b.session_id } });
    expect(s.body.status).toBe("expired");
    await expect(payTestCheckout(b.session_id)).rejects.toMatchObject({ status: 409, code: "checkout_expired" });

    const d = (await checkout({ product_id: p.id, buyer_email: "d@example.com" })).body;
    await payTestCheckout(d.session_id);
    await call(cancel, `/checkout/${d.session_id}/cancel`, { method: "POST", params: { session_id: d.session_id } });
    expect((await getDb().order.findUniqueOrThrow({ where: { id: d.session_id } })).status).toBe("paid");
  });

  it("the status API answers 404 for unknown and 400 for malformed session ids", async () => {
    expectProblem(
      await call(status, "/api/checkout/x", { params: { session_id: "cs_AAAAAAAAAAAAAAAAAAAAAAAA" } }),
      404,
      "checkout_session_not_found",
    );
    expectProblem(await call(status, "/api/checkout/x", { params: { session_id: "../etc" } }), 400, "invalid_path");
  });
});

describe("the Buy form", () => {
  const form = (fields: Record<string, string>) =>
    call(startForm, "/checkout/start", {
      method: "POST",
      body: new URLSearchParams(fields).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });

  it("opens a session and sends the browser to pay, or back to the form with the problem", async () => {
    const p = await product();
    const ok = await form({ product_id: p.id, buyer_email: "form@example.com" });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toMatch(/^http:\/\/localhost:3000\/checkout\/cs_[A-Za-z0-9]{24}$/);
    const bad = await form({ product_id: p.id, buyer_email: "nope" });
    expect(bad.status).toBe(303);
    // A code, not words: the product page says it in its own words (and shows nothing for codes it does not know).
    // The address the buyer typed never goes into the URL: it comes back in a cookie for that product page only.
    expect(bad.headers.get("location")).toBe(`http://localhost:3000/products/${p.id}?buy_error=invalid_email#buy`);
    expect(bad.headers.get("set-cookie")).toBe(`ilm_buy_email=nope; Path=/products/${p.id}; HttpOnly; SameSite=Strict; Max-Age=60`);
    const gone = await form({ product_id: "no-such-product", buyer_email: "form@example.com" });
    expect(gone.headers.get("location")).toBe("http://localhost:3000/products/no-such-product?buy_error=not_buyable#buy");
    expect(gone.headers.get("set-cookie")).toBe(
      "ilm_buy_email=form%40example.com; Path=/products/no-such-product; HttpOnly; SameSite=Strict; Max-Age=60",
    );
    expect(gone.headers.get("location")).not.toContain("example.com");
    const json = await call(startForm, "/checkout/start", { method: "POST", json: { product_id: p.id } });
    expectProblem(json, 415, "unsupported_media_type");
  });
});
