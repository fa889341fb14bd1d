import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as create } from "@/app/api/checkout/create/route";
import { GET as status } from "@/app/api/checkout/[session_id]/route";
import { POST as quote } from "@/app/api/checkout/quote/route";
import { POST as startForm } from "@/app/checkout/start/route";
import { POST as mcpPost } from "@/app/api/mcp/route";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { createProduct } from "@/lib/selling/products";
import { disconnectDb, getDb } from "@/lib/db";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";
import { call, expectProblem } from "../helpers/http";
import { sellingDeveloper } from "../helpers/sellers";

afterAll(() => disconnectDb());

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

let perSeat: { id: string; priceCents: number; maxMachines: number };
let perMachine: { id: string; priceCents: number };
let couponCode: string;

beforeAll(async () => {
  const id = unique();
  const dev = await sellingDeveloper(`seats-${id}@example.com`, { name: `Seat Studio ${id}`, website: null, bio: "" });
  const product = (n: string, seatModel: string, maxMachines: number) =>
    createProduct(
      dev.id,
      productInputSchema.parse({
        name: `Seats ${n} ${id}`,
        description: "A product sold by the seat in these tests.",
        plugin_id: `com.seats.${n}${id}`,
        price_cents: 1200,
        currency: "eur",
        category: "dev-tools",
        max_machines: maxMachines,
        seat_model: seatModel,
        platforms: ["linux"],
        download_url: "https://example.com/download",
        icon_url: "/icons/tape-warmth.svg",
      }),
      { publish: true },
    );
  const a = await product("team", "per-seat", 2);
  const b = await product("solo", "per-machine", 3);
  perSeat = { id: a.id, priceCents: a.priceCents, maxMachines: a.maxMachines };
  perMachine = { id: b.id, priceCents: b.priceCents };
  couponCode = `SEATS${id}`.slice(0, 20).toUpperCase();
  await getDb().coupon.create({ data: { developerId: dev.id, code: couponCode, kind: "percent", percentOff: 10, productIds: [] } });
});

function checkout(body: Record<string, unknown>) {
  return call(create, "/api/checkout/create", { method: "POST", json: { buyer_email: `seat-${unique()}@example.com`, ...body } });
}

describe("seats", () => {
  it("a per-seat product sells N seats: price × N, fee on it, license max_machines × N, all in the status", async () => {
    const r = await checkout({ product_id: perSeat.id, quantity: 3 });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ amount_cents: 3600, currency: "eur" });
    const order = await getDb().order.findUniqueOrThrow({ where: { id: r.body.session_id } });
    expect(order).toMatchObject({ quantity: 3, subtotalCents: 3600, discountCents: 0, amountCents: 3600, feeCents: 180 });

    await payTestCheckout(order.id);
    const s = await call(status, `/api/checkout/${order.id}`, { params: { session_id: order.id } });
    expect(s.status, s.text).toBe(200);
    expect(s.body).toMatchObject({
      status: "paid",
      quantity: 3,
      subtotal_cents: 3600,
      discount_cents: 0,
      coupon_code: null,
      amount_cents: 3600,
      fee_cents: 180,
      tax_cents: null, // test mode: not calculated
      currency: "eur",
    });
    expect(s.body.license.max_machines).toBe(perSeat.maxMachines * 3);
    const license = await getDb().license.findUniqueOrThrow({ where: { orderId: order.id } });
    expect(license.maxMachines).toBe(6);
  });

  it("seats and a coupon together: the discount is on the seats' subtotal and the fee on what is paid", async () => {
    const q = await call(quote, "/api/checkout/quote", {
      method: "POST",
      json: { product_id: perSeat.id, quantity: 5, coupon_code: couponCode.toLowerCase() },
    });
    expect(q.status, q.text).toBe(200);
    expect(q.body).toMatchObject({ quantity: 5, subtotal_cents: 6000, discount_cents: 600, amount_cents: 5400, fee_cents: 270, max_machines: 10 });
    const r = await checkout({ product_id: perSeat.id, quantity: 5, coupon_code: couponCode });
    expect(r.status, r.text).toBe(200);
    expect(r.body.amount_cents).toBe(5400);
    await payTestCheckout(r.body.session_id);
    const s = await call(status, `/api/checkout/${r.body.session_id}`, { params: { session_id: r.body.session_id } });
    expect(s.body).toMatchObject({
      quantity: 5,
      subtotal_cents: 6000,
      discount_cents: 600,
      coupon_code: couponCode,
      amount_cents: 5400,
      fee_cents: 270,
    });
    expect(s.body.license.max_machines).toBe(10);
    const ledger = await getDb().ledgerEntry.findMany({ where: { orderId: r.body.session_id } });
    expect(Object.fromEntries(ledger.map((e) => [e.kind, e.amountMinor]))).toEqual({ sale: 6000, discount: -600, platform_fee: -270 });
  });

  it("other seat models take only one; quantity is 1–100 and a whole number", async () => {
    expectProblem(await checkout({ product_id: perMachine.id, quantity: 2 }), 400, "quantity_not_allowed");
    expectProblem(
      await call(quote, "/api/checkout/quote", { method: "POST", json: { product_id: perMachine.id, quantity: 2 } }),
      400,
      "quantity_not_allowed",
    );
    const one = await checkout({ product_id: perMachine.id, quantity: 1 });
    expect(one.status, one.text).toBe(200);
    expect(one.body.amount_cents).toBe(1200);
    for (const quantity of [0, 101, 1.5, "2", -1]) expectProblem(await checkout({ product_id: perSeat.id, quantity }), 400, "invalid_body");
    expect((await checkout({ product_id: perSeat.id, quantity: 100 })).status).toBe(200);
  });
});

describe("the Buy form (/checkout/start)", () => {
  const post = (fields: Record<string, string>) =>
    call(startForm, "/checkout/start", {
      method: "POST",
      body: new URLSearchParams(fields).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });

  it("opens a checkout with the seats and coupon typed in", async () => {
    const r = await post({ product_id: perSeat.id, buyer_email: "form-seats@example.com", quantity: "2", coupon_code: couponCode.toLowerCase() });
    expect(r.status).toBe(303);
    const id = /\/checkout\/(cs_[A-Za-z0-9]{24})$/.exec(r.headers.get("location") ?? "")?.[1];
    expect(id).toBeTruthy();
    expect(await getDb().order.findUniqueOrThrow({ where: { id: id! } })).toMatchObject({
      quantity: 2,
      subtotalCents: 2400,
      discountCents: 240,
      amountCents: 2160,
    });
  });

  it("sends refusals back as a known code with everything the buyer typed", async () => {
    const back = async (fields: Record<string, string>) => {
      const r = await post({ product_id: perSeat.id, buyer_email: "form-back@example.com", ...fields });
      expect(r.status).toBe(303);
      const url = new URL(r.headers.get("location")!);
      expect(url.pathname).toBe(`/products/${perSeat.id}`);
      // The e-mail address comes back in a cookie for that page, never in the URL.
      expect(url.searchParams.get("email")).toBeNull();
      expect(r.headers.get("set-cookie")).toContain("ilm_buy_email=form-back%40example.com;");
      return url.searchParams;
    };
    let q = await back({ coupon_code: "nope-nope", quantity: "4" });
    expect([q.get("buy_error"), q.get("coupon"), q.get("quantity")]).toEqual(["coupon_not_found", "nope-nope", "4"]);
    q = await back({ coupon_code: "x!", quantity: "1" });
    expect(q.get("buy_error")).toBe("invalid_coupon");
    q = await back({ quantity: "many" });
    expect(q.get("buy_error")).toBe("invalid_quantity");
    q = await back({ quantity: "500" });
    expect(q.get("buy_error")).toBe("invalid_quantity");
    const solo = await post({ product_id: perMachine.id, buyer_email: "form-back@example.com", quantity: "3" });
    expect(new URL(solo.headers.get("location")!).searchParams.get("buy_error")).toBe("quantity_not_allowed");
  });
});

describe("MCP agent_checkout", () => {
  async function tool(args: Record<string, unknown>) {
    const response = await mcpPost(
      new Request("http://localhost:3000/api/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", [CLIENT_ADDRESS_HEADER]: "198.51.100.7" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "agent_checkout", arguments: args } }),
      }),
    );
    const text = await response.text();
    const json = /^\s*\{/.test(text)
      ? JSON.parse(text)
      : JSON.parse(
          text
            .split("\n")
            .find((l) => l.startsWith("data:"))!
            .slice(5),
        );
    return json.result as { isError?: boolean; structuredContent?: Record<string, unknown>; content: Array<{ text: string }> };
  }

  it("takes the same optional coupon_code and quantity, and says why a coupon is refused", async () => {
    const ok = await tool({
      product_id: perSeat.id,
      buyer_email: "agent-seats@example.com",
      agent_id: "seat-agent",
      quantity: 4,
      coupon_code: couponCode,
    });
    expect(ok.isError ?? false, JSON.stringify(ok)).toBe(false);
    expect(ok.structuredContent).toMatchObject({ amount_cents: 4320, currency: "eur" });
    expect(ok.content[0]!.text).toContain("€43.20 EUR");
    const order = await getDb().order.findUniqueOrThrow({ where: { id: String(ok.structuredContent!.session_id) } });
    expect(order).toMatchObject({ quantity: 4, subtotalCents: 4800, discountCents: 480, amountCents: 4320, agentId: "seat-agent", couponCode });
    const refused = await tool({ product_id: perSeat.id, buyer_email: "agent-seats@example.com", agent_id: "seat-agent", coupon_code: "NOPE-NOPE" });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/coupon_not_found|does not exist/);
  });
});
