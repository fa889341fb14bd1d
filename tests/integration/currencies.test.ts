import { afterAll, describe, expect, it } from "vitest";
import { GET as issue, POST as verifyRoute } from "@/app/api/receipt/route";
import { GET as productRoute } from "@/app/api/marketplace/product/[id]/route";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { fulfilOrder } from "@/lib/checkout/fulfil-order";
import { getCheckoutView } from "@/lib/checkout/get-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { createProduct, updateProduct, productToInput } from "@/lib/selling/products";
import { disconnectDb, getDb } from "@/lib/db";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { platformFeeCents } from "@/lib/pricing";
import { call } from "../helpers/http";
import { sellingDeveloper } from "../helpers/sellers";

afterAll(() => disconnectDb());

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function euroProduct() {
  const id = unique();
  const dev = await sellingDeveloper(`fx-${id}@example.com`, { name: `Euro Studio ${id}`, website: null, bio: "" });
  const body = {
    name: `Euro Meter ${id}`,
    description: "A product priced in euros, shown with its code.",
    plugin_id: `com.euro.p${id}`,
    price_cents: 1250,
    currency: "eur",
    category: "dev-tools",
    max_machines: 2,
    seat_model: "per-seat",
    platforms: ["linux"],
    download_url: "https://example.com/download",
    icon_url: "/icons/tape-warmth.svg",
  };
  const product = await createProduct(dev.id, productInputSchema.parse(body), { publish: true });
  return { dev, product, body };
}

describe("a product priced in euros", () => {
  it("keeps its currency, shows it with its code in the API, and an update without a currency keeps it", async () => {
    const { dev, product, body } = await euroProduct();
    expect(product.currency).toBe("eur");
    const r = await call(productRoute, `/api/marketplace/product/${product.id}`, { params: { id: product.id } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.product).toMatchObject({ price_cents: 1250, currency: "eur", price_display: "€12.50 EUR" });
    expect(r.body.product.pricing).toMatchObject({ price_display: "€12.50 EUR", currency: "eur" });

    // A client written before currencies existed sends none: the product stays in euros.
    const { currency: _, ...withoutCurrency } = body;
    const updated = await updateProduct(dev.id, product.id, productInputSchema.parse({ ...withoutCurrency, price_cents: 1300 }));
    expect(updated).toMatchObject({ currency: "eur", priceCents: 1300 });
    expect(productToInput(updated).currency).toBe("eur");
    // A seller can move it to another supported currency.
    expect((await updateProduct(dev.id, product.id, productInputSchema.parse({ ...body, currency: "gbp" }))).currency).toBe("gbp");
  });

  it("is bought in euros: the checkout view, the license e-mail and the signed receipt say what was paid, with the code", async () => {
    const { product } = await euroProduct();
    const email = `fx-buyer-${unique()}@example.com`;
    const { session_id } = await createCheckout({ product_id: product.id, buyer_email: email });
    await payTestCheckout(session_id);

    const view = await getCheckoutView(session_id);
    expect(view.amountDisplay).toBe("€12.50 EUR");
    expect(view.charges).toMatchObject({ quantity: 1, unit: "€12.50 EUR", total: "€12.50 EUR", tax: "not calculated", discount: null });

    const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "license" } });
    expect(mail.text).toMatch(/Total paid:\s+€12\.50 EUR/);
    expect(mail.text).toMatch(/Tax:\s+not calculated/);

    const license = await getDb().license.findFirstOrThrow({ where: { orderId: session_id } });
    const signed = (await call(issue, `/api/receipt?key=${license.key}`)).body;
    expect(signed.receipt.purchase).toEqual({
      order_id: session_id,
      currency: "eur",
      quantity: 1,
      subtotal_cents: 1250,
      discount_cents: 0,
      coupon_code: null,
      amount_cents: 1250,
      tax_cents: null,
      total_cents: 1250,
      total_display: "€12.50 EUR",
    });
    const ok = await call(verifyRoute, "/api/receipt", { method: "POST", json: { receipt: signed.receipt, signature: signed.signature } });
    expect(ok.body.valid).toBe(true);
    // What was paid is signed with the rest: changing it breaks the signature.
    const forged = { ...signed.receipt, purchase: { ...signed.receipt.purchase, total_cents: 1 } };
    expect((await call(verifyRoute, "/api/receipt", { method: "POST", json: { receipt: forged, signature: signed.signature } })).body.valid).toBe(
      false,
    );
  });

  it("records seats, a coupon's discount and tax on the receipt and in the e-mail", async () => {
    const { product } = await euroProduct();
    const email = `fx-seats-${unique()}@example.com`;
    const { session_id } = await createCheckout({ product_id: product.id, buyer_email: email });
    // The checkout's figures for two seats with a coupon (how they are computed is the checkout's own test).
    await getDb().order.update({
      where: { id: session_id },
      data: { quantity: 2, subtotalCents: 2500, discountCents: 250, couponCode: "LAUNCH", amountCents: 2250, feeCents: platformFeeCents(2250) },
    });
    await getDb().$transaction((tx) => fulfilOrder(tx, session_id, new Date(), { taxCents: 428 }));

    const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "license" } });
    for (const line of ["2 × €12.50 EUR", "€25.00 EUR", "−€2.50 EUR (LAUNCH)", "€4.28 EUR"]) expect(mail.text).toContain(line);
    expect(mail.text).toMatch(/Total paid:\s+€26\.78 EUR/);

    const license = await getDb().license.findFirstOrThrow({ where: { orderId: session_id } });
    expect(license.maxMachines).toBe(4);
    const { receipt } = (await call(issue, `/api/receipt?key=${license.key}`)).body;
    expect(receipt).toMatchObject({
      max_machines: 4,
      purchase: {
        quantity: 2,
        subtotal_cents: 2500,
        discount_cents: 250,
        coupon_code: "LAUNCH",
        amount_cents: 2250,
        tax_cents: 428,
        total_cents: 2678,
      },
    });
    expect(receipt.purchase.total_display).toBe("€26.78 EUR");
  });
});
