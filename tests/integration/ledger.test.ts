import { readdirSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { fulfilOrder } from "@/lib/checkout/fulfil-order";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { sellingDeveloper } from "../helpers/sellers";
import { createProduct } from "@/lib/selling/products";
import { salesCsv, sellerSales } from "@/lib/selling/sales";
import { dbEngine, disconnectDb, getDb } from "@/lib/db";
import { platformRevenue, recordEntries, saleEntries, sellerTotals } from "@/lib/ledger/ledger";
import { syncProductSearch } from "@/lib/marketplace/search-index";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { formatPrice, platformFeeCents } from "@/lib/pricing";
import { absoluteUrl } from "@/lib/urls";

afterAll(() => disconnectDb());

const DAY = 86_400_000;
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function seller(priceCents = 2500) {
  const id = unique();
  const dev = await sellingDeveloper(`ledger-${id}@example.com`, { name: `Ledger Studio ${id}`, website: null, bio: "" });
  const product = await createProduct(
    dev.id,
    productInputSchema.parse({
      name: `Ledger Meter ${id}`,
      description: "A product whose sales the ledger records.",
      plugin_id: `com.ledger.p${id}`,
      price_cents: priceCents,
      category: "desktop-apps",
      max_machines: 1,
      seat_model: "per-machine",
      platforms: ["linux"],
      download_url: "https://example.com/download",
      icon_url: "/icons/tape-warmth.svg",
    }),
    { publish: true },
  );
  return { dev, product };
}

async function order(productId: string, opts: { now?: Date; agent?: string; pay?: boolean } = {}) {
  const now = opts.now ?? new Date();
  const { session_id } = await createCheckout({ product_id: productId, buyer_email: `buyer-${unique()}@example.com`, agent_id: opts.agent }, now);
  if (opts.pay !== false) await payTestCheckout(session_id, now);
  return session_id;
}

const entriesOf = (orderId: string) => getDb().ledgerEntry.findMany({ where: { orderId }, orderBy: { kind: "asc" } });

describe("the ledger: a paid order", () => {
  it("writes exactly one sale (+gross) and one platform fee (−fee), dated when it was paid, in the order's currency", async () => {
    const { dev, product } = await seller(2500);
    const id = await order(product.id);
    const o = await getDb().order.findUniqueOrThrow({ where: { id } });
    const entries = await entriesOf(id);
    expect(entries.map((e) => [e.kind, e.amountMinor, e.currency, e.developerId, e.key])).toEqual([
      ["platform_fee", -125, "usd", dev.id, `platform_fee:${id}`],
      ["sale", 2500, "usd", dev.id, `sale:${id}`],
    ]);
    expect(entries.every((e) => e.createdAt.getTime() === o.paidAt!.getTime())).toBe(true);
    // Paying again (a replayed event, a second click) records nothing more.
    await payTestCheckout(id);
    expect(await entriesOf(id)).toHaveLength(2);
  });

  it("records once when fulfilment is retried or two fulfilments race", async () => {
    const { product } = await seller(999);
    const id = await order(product.id, { pay: false });
    const paidAt = new Date();
    const results = await Promise.all([0, 1].map(() => getDb().$transaction((tx) => fulfilOrder(tx, id, paidAt))));
    expect(results.filter((r) => r.fulfilled)).toHaveLength(1);
    await getDb().$transaction((tx) => fulfilOrder(tx, id, paidAt));
    expect((await entriesOf(id)).map((e) => [e.kind, e.amountMinor])).toEqual([
      ["platform_fee", -50],
      ["sale", 999],
    ]);

    const raced = await order(product.id, { pay: false });
    await Promise.allSettled([payTestCheckout(raced), payTestCheckout(raced)]);
    expect(await entriesOf(raced)).toHaveLength(2);
    expect(await getDb().license.count({ where: { orderId: raced } })).toBe(1);
  });

  it("recordEntries skips keys already recorded and refuses wrong signs, fractions and unknown kinds", async () => {
    const { dev, product } = await seller(1000);
    const id = await order(product.id);
    const o = await getDb().order.findUniqueOrThrow({ where: { id } });
    const again = saleEntries({ ...o, developerId: dev.id, paidAt: o.paidAt! });
    expect(await getDb().$transaction((tx) => recordEntries(tx, [...again, ...again]))).toBe(0);
    const base = { developerId: dev.id, orderId: id, currency: "usd" };
    await expect(getDb().$transaction((tx) => recordEntries(tx, [{ ...base, key: `x:${id}`, kind: "refund", amountMinor: 10 }]))).rejects.toThrow(
      /sign/,
    );
    await expect(getDb().$transaction((tx) => recordEntries(tx, [{ ...base, key: `y:${id}`, kind: "sale", amountMinor: 1.5 }]))).rejects.toThrow(
      /integer/,
    );
    await expect(
      getDb().$transaction((tx) => recordEntries(tx, [{ ...base, key: `z:${id}`, kind: "gift" as never, amountMinor: 1 }])),
    ).rejects.toThrow(/kind/);
    await expect(
      getDb().$transaction((tx) => recordEntries(tx, [{ ...base, key: `w:${id}`, kind: "sale", amountMinor: 1, currency: "USD" }])),
    ).rejects.toThrow(/currency/);
    expect(await entriesOf(id)).toHaveLength(2);
  });
});

describe("the ledger: every figure of the Sales page derives from it", () => {
  it("recomputes totals, the per-currency figures, the chart and the order rows from raw entries; currencies are never summed", async () => {
    const now = new Date("2031-03-10T12:00:00Z");
    const { dev, product } = await seller(2500);
    const euro = await seller(1999);
    // The second product belongs to the same seller and sells in euros.
    // Its search row follows the new developer in the same transaction, as every product write keeps it.
    await getDb().$transaction(async (tx) => {
      await tx.product.update({ where: { id: euro.product.id }, data: { developerId: dev.id, currency: "eur" } });
      await syncProductSearch(tx, { productIds: [euro.product.id] });
    });
    const usd1 = await order(product.id, { now: new Date(now.getTime() - 3 * DAY), agent: "agent:test/1" });
    const usd2 = await order(product.id, { now });
    await order(product.id, { now: new Date(now.getTime() - 40 * DAY) });
    const eur1 = await order(euro.product.id, { now: new Date(now.getTime() - DAY) });
    // Two seats with a coupon, and tax the provider calculated: the checkout's figures on the order, paid with tax.
    const eur2 = await order(euro.product.id, { now: new Date(now.getTime() - DAY), pay: false });
    await getDb().order.update({
      where: { id: eur2 },
      data: { quantity: 2, subtotalCents: 3998, discountCents: 400, couponCode: "SPRING", amountCents: 3598, feeCents: platformFeeCents(3598) },
    });
    await getDb().$transaction((tx) => fulfilOrder(tx, eur2, new Date(now.getTime() - DAY), { taxCents: 684 }));
    // A later movement: part of an order refunded, with the fee on it.
    await getDb().$transaction((tx) =>
      recordEntries(tx, [
        { key: `refund:re_${usd1}`, developerId: dev.id, orderId: usd1, kind: "refund", amountMinor: -1000, currency: "usd", createdAt: now },
        { key: `fee_refund:re_${usd1}`, developerId: dev.id, orderId: usd1, kind: "fee_refund", amountMinor: 50, currency: "usd", createdAt: now },
        // Part of the taxed order refunded with its share of tax, and a dispute lost on another order.
        { key: `refund:re_${eur2}`, developerId: dev.id, orderId: eur2, kind: "refund", amountMinor: -1000, currency: "eur", createdAt: now },
        { key: `fee_refund:re_${eur2}`, developerId: dev.id, orderId: eur2, kind: "fee_refund", amountMinor: 50, currency: "eur", createdAt: now },
        { key: `tax_refund:re_${eur2}`, developerId: dev.id, orderId: eur2, kind: "tax_refund", amountMinor: -190, currency: "eur", createdAt: now },
        { key: `dispute:dp_${usd2}`, developerId: dev.id, orderId: usd2, kind: "dispute", amountMinor: -2500, currency: "usd", createdAt: now },
        { key: `payout:po_${usd2}`, developerId: dev.id, kind: "payout", amountMinor: -2000, currency: "usd", createdAt: now },
      ]),
    );

    const sales = await sellerSales(dev.id, { now });
    const raw = await getDb().ledgerEntry.findMany({ where: { developerId: dev.id } });
    const sum = (currency: string, kinds: string[]) =>
      raw.filter((e) => e.currency === currency && kinds.includes(e.kind)).reduce((s, e) => s + e.amountMinor, 0);
    const expected = (currency: string) => ({
      currency,
      orders: raw.filter((e) => e.currency === currency && e.kind === "sale").length,
      gross: sum(currency, ["sale"]),
      discounts: 0 - sum(currency, ["discount"]),
      fees: 0 - sum(currency, ["platform_fee", "fee_refund"]),
      tax: sum(currency, ["tax", "tax_refund"]),
      refunds: 0 - sum(currency, ["refund"]),
      disputes: 0 - sum(currency, ["dispute", "dispute_reversal"]),
      net: sum(currency, ["sale", "discount", "platform_fee", "fee_refund", "refund", "dispute", "dispute_reversal"]),
      payouts: 0 - sum(currency, ["payout"]),
    });
    expect(await sellerTotals(dev.id)).toEqual([expected("eur"), expected("usd")]);
    expect(expected("usd")).toMatchObject({
      orders: 3,
      gross: 7500,
      discounts: 0,
      fees: 325,
      tax: 0,
      refunds: 1000,
      disputes: 2500,
      net: 3675,
      payouts: 2000,
    });
    // Tax is collected for the tax authority: apart from net, which is gross − discounts − fees − refunds − disputes.
    expect(expected("eur")).toMatchObject({ orders: 2, gross: 5997, discounts: 400, fees: 100 + 180 - 50, tax: 684 - 190, refunds: 1000, net: 4367 });
    for (const c of ["eur", "usd"]) {
      const t = expected(c);
      expect(t.net).toBe(t.gross - t.discounts - t.fees - t.refunds - t.disputes);
    }

    // The leading currency (most orders) in the cents figures, every currency apart in the displays.
    expect(sales.totals).toEqual({
      orders: 5,
      currency: "usd",
      gross_cents: 7500,
      fee_cents: 325,
      net_cents: 3675,
      gross_display: `${formatPrice(7500, "usd")} · ${formatPrice(5997, "eur")}`,
      fee_display: `${formatPrice(325, "usd")} · ${formatPrice(230, "eur")}`,
      net_display: `${formatPrice(3675, "usd")} · ${formatPrice(4367, "eur")}`,
      agent_orders: 1,
    });
    // Each currency on its own, the leading one first, every figure formatted with its code.
    expect(sales.currencies.map(({ daily: _, display: __, ...t }) => t)).toEqual([expected("usd"), expected("eur")]);
    for (const c of sales.currencies) {
      const t = expected(c.currency);
      expect(c.display).toEqual({
        gross: formatPrice(t.gross, c.currency),
        discounts: formatPrice(t.discounts, c.currency),
        fees: formatPrice(t.fees, c.currency),
        tax: formatPrice(t.tax, c.currency),
        refunds: formatPrice(t.refunds, c.currency),
        disputes: formatPrice(t.disputes, c.currency),
        net: formatPrice(t.net, c.currency),
        payouts: formatPrice(t.payouts, c.currency),
      });
    }
    expect(sales.currencies.find((c) => c.currency === "eur")!.display).toMatchObject({
      discounts: "€4.00 EUR",
      tax: "€4.94 EUR",
      net: "€43.67 EUR",
    });

    // The chart: each day's net per currency, from the entries dated that day.
    const start = Math.floor(now.getTime() / DAY) * DAY - 29 * DAY;
    for (const c of sales.currencies) {
      const days = Array.from({ length: 30 }, (_, i) => {
        const inDay = raw.filter(
          (e) =>
            e.currency === c.currency && !["payout", "tax", "tax_refund"].includes(e.kind) && Math.floor((e.createdAt.getTime() - start) / DAY) === i,
        );
        return {
          date: new Date(start + i * DAY).toISOString().slice(0, 10),
          net_cents: inDay.reduce((s, e) => s + e.amountMinor, 0),
          orders: inDay.filter((e) => e.kind === "sale").length,
        };
      });
      expect(c.daily).toEqual(days);
    }
    expect(sales.daily).toEqual(sales.currencies.find((c) => c.currency === "usd")!.daily);
    expect(sales.daily.at(-1)).toMatchObject({ date: "2031-03-10", net_cents: 2375 - 1000 + 50 - 2500, orders: 1 });
    // The euro chart: both orders the day before (sale, discount and fee; not the tax), the refund today.
    const eurDaily = sales.currencies.find((c) => c.currency === "eur")!.daily;
    expect(eurDaily.at(-2)).toMatchObject({ net_cents: 1999 - 100 + 3998 - 400 - 180, orders: 2 });
    expect(eurDaily.at(-1)).toMatchObject({ net_cents: -1000 + 50, orders: 0 });

    // The order rows: newest first, each order's own entries.
    // Ties (two orders paid at the same moment) in the order of their keys, as the page lists them.
    const sales_ = raw
      .filter((e) => e.kind === "sale")
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
    expect(sales.orders.map((o) => o.id)).toEqual(sales_.map((e) => e.orderId));
    for (const row of sales.orders) {
      const mine = raw.filter((e) => e.orderId === row.id);
      const of = (kinds: string[]) => mine.filter((e) => kinds.includes(e.kind)).reduce((s, e) => s + e.amountMinor, 0);
      const net = mine.filter((e) => !["tax", "tax_refund", "payout"].includes(e.kind)).reduce((s, e) => s + e.amountMinor, 0);
      const o = await getDb().order.findUniqueOrThrow({ where: { id: row.id } });
      expect(row).toMatchObject({
        amount_cents: of(["sale"]),
        discount_cents: 0 - of(["discount"]),
        fee_cents: 0 - of(["platform_fee", "fee_refund"]),
        tax_cents: o.taxCents === null ? null : of(["tax", "tax_refund"]),
        refunds_cents: 0 - of(["refund", "dispute", "dispute_reversal"]),
        net_cents: net,
        currency: mine[0]!.currency,
        quantity: o.quantity,
        coupon_code: o.couponCode,
        order_path: `/dashboard/orders/${row.id}`,
      });
      expect(row.net_display).toBe(formatPrice(net, row.currency));
      expect(row.tax_display).toBe(o.taxCents === null ? "not calculated" : formatPrice(of(["tax", "tax_refund"]), row.currency));
    }
    expect(sales.orders.find((o) => o.id === eur2)).toMatchObject({
      quantity: 2,
      coupon_code: "SPRING",
      amount_display: "€39.98 EUR",
      discount_display: "€4.00 EUR",
      fee_display: "€1.30 EUR",
      tax_display: "€4.94 EUR",
      refunds_display: "€10.00 EUR",
      net_display: "€24.68 EUR",
    });
    // The CSV: one row per entry, oldest first, signed amounts in minor units and as decimals.
    const [header, ...lines] = (await salesCsv(dev.id)).trimEnd().split("\r\n");
    expect(header).toBe("date,kind,order_id,product,buyer_email,currency,amount_minor,amount,in_net,quantity,coupon_code,order_url");
    const names = new Map([
      [product.id, product.name],
      [euro.product.id, euro.product.name],
    ]);
    const orders = await getDb().order.findMany({ where: { id: { in: raw.flatMap((e) => (e.orderId ? [e.orderId] : [])) } } });
    const rows = raw.map((e) => {
      const o = orders.find((x) => x.id === e.orderId);
      const amount = `${e.amountMinor < 0 ? "-" : ""}${Math.floor(Math.abs(e.amountMinor) / 100)}.${String(Math.abs(e.amountMinor) % 100).padStart(2, "0")}`;
      return [
        e.createdAt.toISOString(),
        e.kind,
        e.orderId ?? "",
        o ? names.get(o.productId) : "",
        o?.buyerEmail ?? "",
        e.currency,
        String(e.amountMinor),
        amount,
        ["tax", "tax_refund", "payout"].includes(e.kind) ? "no" : "yes",
        o ? String(o.quantity) : "",
        o?.couponCode ?? "",
        e.orderId ? absoluteUrl(`/dashboard/orders/${e.orderId}`) : "",
      ].join(",");
    });
    // Summing one currency's "yes" rows gives the Sales page's net: the CSV reproduces every figure.
    for (const c of sales.currencies) {
      const fromCsv = lines
        .map((l) => l.split(","))
        .filter((f) => f[5] === c.currency && f[8] === "yes")
        .reduce((s, f) => s + Number(f[6]), 0);
      expect(fromCsv).toBe(c.net);
    }
    expect([...lines].sort()).toEqual(rows.sort());
    expect(lines.map((l) => l.slice(0, 24))).toEqual(lines.map((l) => l.slice(0, 24)).sort());
    expect(lines).toContain(
      `${now.toISOString()},refund,${usd1},${product.name},${orders.find((o) => o.id === usd1)!.buyerEmail},usd,-1000,-10.00,yes,1,,${absoluteUrl(`/dashboard/orders/${usd1}`)}`,
    );
    expect(lines.find((l) => l.startsWith(`${new Date(now.getTime() - DAY).toISOString()},tax,${eur2},`))).toContain(",eur,684,6.84,no,2,SPRING,");

    expect(sales.orders.find((o) => o.id === eur1)).toMatchObject({
      currency: "eur",
      amount_display: "€19.99 EUR",
      fee_display: "€1.00 EUR",
      tax_display: "not calculated",
    });
  });

  it("a seller with no sales shows zeros in the platform's currency", async () => {
    const { dev } = await seller();
    const sales = await sellerSales(dev.id);
    expect(sales.totals).toMatchObject({ orders: 0, gross_cents: 0, gross_display: "$0.00 USD", net_display: "$0.00 USD" });
    expect(sales.currencies).toMatchObject([{ currency: "usd", orders: 0, net: 0, display: { net: "$0.00 USD" } }]);
    expect(sales.daily).toHaveLength(30);
    expect(sales.orders).toEqual([]);
  });
});

describe("the ledger: platform revenue", () => {
  it("is the platform's fees less fees refunded, per currency, over a range", async () => {
    const day = new Date("2032-07-01T00:00:00Z");
    const { dev, product } = await seller(1000);
    const euro = await seller(3000);
    await getDb().product.update({ where: { id: euro.product.id }, data: { currency: "eur" } });
    const a = await order(product.id, { now: new Date(day.getTime() + 3600_000) });
    await order(product.id, { now: new Date(day.getTime() + 7200_000) });
    await order(euro.product.id, { now: new Date(day.getTime() + 7200_000) });
    await order(product.id, { now: new Date(day.getTime() + DAY + 60_000) }); // the next day: outside
    await getDb().$transaction((tx) =>
      recordEntries(tx, [
        {
          key: `fee_refund:t_${a}`,
          developerId: dev.id,
          orderId: a,
          kind: "fee_refund",
          amountMinor: 50,
          currency: "usd",
          createdAt: new Date(day.getTime() + 9000_000),
        },
      ]),
    );
    const range = { from: day, to: new Date(day.getTime() + DAY) };
    const raw = await getDb().ledgerEntry.findMany({
      where: { createdAt: { gte: range.from, lt: range.to }, kind: { in: ["platform_fee", "fee_refund"] } },
    });
    const of = (c: string) => -raw.filter((e) => e.currency === c).reduce((s, e) => s + e.amountMinor, 0);
    expect(await platformRevenue(range)).toEqual([
      { currency: "eur", revenue: of("eur") },
      { currency: "usd", revenue: of("usd") },
    ]);
    expect(of("usd")).toBe(50 + 50 - 50);
    expect(of("eur")).toBe(150);
  });
});

describe("the ledger: the migration's backfill", () => {
  it("gives an order paid before the ledger its sale and fee, once", async () => {
    const { dev, product } = await seller();
    const paidAt = new Date("2030-05-05T05:05:05.123Z");
    const id = `old-${unique()}`;
    await getDb().order.create({
      data: {
        id,
        productId: product.id,
        buyerEmail: "old@example.com",
        provider: "test",
        amountCents: 4200,
        feeCents: 210,
        currency: "usd",
        status: "paid",
        paidAt,
        expiresAt: paidAt,
      },
    });
    const open = `open-${unique()}`;
    await getDb().order.create({
      data: { id: open, productId: product.id, buyerEmail: "o@example.com", provider: "test", amountCents: 1, feeCents: 0, expiresAt: paidAt },
    });
    const dir = `prisma/migrations/${dbEngine()}`;
    const migration = readdirSync(dir).find((d) => d.endsWith("_ledger"))!;
    const sql = readFileSync(`${dir}/${migration}/migration.sql`, "utf8");
    const statements = sql
      .split(";")
      .map((s) => s.replace(/^--.*$/gm, "").trim())
      .filter((s) => s.startsWith('INSERT INTO "LedgerEntry"'));
    expect(statements).toHaveLength(2);
    for (let i = 0; i < 2; i++) for (const s of statements) await getDb().$executeRawUnsafe(s);
    const entries = await entriesOf(id);
    expect(entries.map((e) => [e.kind, e.amountMinor, e.currency, e.developerId, e.key, e.createdAt.toISOString()])).toEqual([
      ["platform_fee", -210, "usd", dev.id, `platform_fee:${id}`, paidAt.toISOString()],
      ["sale", 4200, "usd", dev.id, `sale:${id}`, paidAt.toISOString()],
    ]);
    expect(await entriesOf(open)).toEqual([]);
    expect((await sellerSales(dev.id)).totals).toMatchObject({ orders: 1, gross_cents: 4200, fee_cents: 210, net_cents: 3990 });
  });
});
