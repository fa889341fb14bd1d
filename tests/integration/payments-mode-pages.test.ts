import { renderToStaticMarkup } from "react-dom/server";
import { prerender } from "react-dom/static";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import ProductPage from "@/app/(store)/products/[id]/page";
import CheckoutPage from "@/app/checkout/[session_id]/page";
import CheckoutSuccessPage from "@/app/checkout/[session_id]/success/page";
import MyLicensesPage from "@/app/(store)/licenses/page";
import { consumeSignIn, requestSignIn } from "@/lib/auth/sign-in";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";

/**
 * What the store's pages say about payments, and the words they show after a redirect: only messages we wrote,
 * chosen by a code in the URL, never text from the URL itself.
 */

// The licenses page reads its session cookie through next/headers; here it comes from `cookieJar`.
let cookieJar = new Map<string, string>();
vi.mock("next/headers", () => ({
  cookies: () => Promise.resolve({ get: (name: string) => (cookieJar.has(name) ? { name, value: cookieJar.get(name) } : undefined) }),
  headers: () => Promise.resolve(new Headers()),
}));
// Rendered outside the app router: the release/undo controls' router (they refresh the page after an action) is inert here.
vi.mock("next/navigation", async (original) => ({
  ...(await original<object>()),
  useRouter: () => ({
    refresh: () => undefined,
    push: () => undefined,
    replace: () => undefined,
    back: () => undefined,
    forward: () => undefined,
    prefetch: () => undefined,
  }),
}));

const KEYS = ["NODE_ENV", "PAYMENTS", "STRIPE_SECRET_KEY", "BASE_URL"] as const;
const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
function setEnv(vars: { [K in (typeof KEYS)[number]]?: string | undefined }) {
  const entries: Array<[string, string | undefined]> = Object.entries(vars);
  for (const [k, v] of entries) {
    if (v === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = v;
  }
  resetEnv();
}
afterEach(() => {
  setEnv(saved);
  cookieJar = new Map();
});
afterAll(() => disconnectDb());

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const product = () => getDb().product.findFirstOrThrow({ where: { status: "active" }, orderBy: { id: "asc" } });
// Its reviews part is an async component too.
const productPage = async (id: string, query: Record<string, string> = {}) =>
  new Response((await prerender(await ProductPage({ params: Promise.resolve({ id }), searchParams: Promise.resolve(query) }))).prelude).text();
// It renders async components (the signed-in part reads the buyer's licenses): wait for all of them.
const licensesPage = async (query: Record<string, string>) =>
  new Response((await prerender(await MyLicensesPage({ searchParams: Promise.resolve(query) }))).prelude).text();

const ATTACK = "Your card was declined. Call +1 555 0100 and read us your card number to finish the purchase.";

describe("the product page's Buy box", () => {
  it("says checkout is not configured, with no Buy form, in a public production deployment without a payment provider", async () => {
    // (With BASE_URL on this machine, a first local start, test mode sells instead: payments-mode.test.ts.)
    setEnv({ NODE_ENV: "production", PAYMENTS: undefined, STRIPE_SECRET_KEY: undefined, BASE_URL: "https://shop.example" });
    const html = await productPage((await product()).id);
    expect(html).toContain('id="checkout-not-configured"');
    expect(html).toMatch(/Checkout is not configured on this deployment/);
    expect(html).not.toContain('action="/checkout/start"');
    expect(html).not.toContain('href="#buy"');
    // Search engines and agents reading the markup are not told it is for sale either.
    expect(html).toContain("https://schema.org/OutOfStock");
    expect(html).not.toContain("https://schema.org/InStock");
  });

  it("offers the Buy form with PAYMENTS=test, and in test mode outside production", async () => {
    const id = (await product()).id;
    setEnv({ NODE_ENV: "production", PAYMENTS: "test", STRIPE_SECRET_KEY: undefined });
    const optedIn = await productPage(id);
    expect(optedIn).toContain('action="/checkout/start"');
    expect(optedIn).not.toContain("checkout-not-configured");
    expect(optedIn).toContain("https://schema.org/InStock");
    setEnv({ NODE_ENV: "test", PAYMENTS: undefined });
    expect(await productPage(id)).toContain('action="/checkout/start"');
  });

  it("shows only known ?buy_error= codes, in its own words; text in the URL is never shown", async () => {
    const id = (await product()).id;
    // The address typed comes back in /checkout/start's cookie for this page; one in the URL is not used.
    cookieJar.set("ilm_buy_email", "someone%40example.com");
    const known = await productPage(id, { buy_error: "invalid_email", email: "url-person@example.com" });
    expect(known).toMatch(/<div id="buy_error" role="alert"[^>]*>Please enter a valid e-mail address\.<\/div>/);
    expect(known).toContain('value="someone@example.com"');
    expect(known).not.toContain("url-person@example.com");
    // Without a refusal the cookie refills nothing.
    expect(await productPage(id)).not.toContain('value="someone@example.com"');

    for (const crafted of [ATTACK, "constructor", "__proto__", "toString", "invalid_email "]) {
      const html = await productPage(id, { buy_error: crafted });
      expect(html, crafted).not.toContain('id="buy_error"');
      expect(html).not.toContain("555 0100");
    }
  });
});

describe("a test-mode checkout page once test mode is off", () => {
  it("has no Pay button, and says why", async () => {
    setEnv({ NODE_ENV: "test", PAYMENTS: undefined, STRIPE_SECRET_KEY: undefined });
    const { session_id } = await createCheckout({ product_id: (await product()).id, buyer_email: `pages-${run}@example.com` });
    const open = renderToStaticMarkup(await CheckoutPage({ params: Promise.resolve({ session_id }) }));
    expect(open).toContain(`action="/checkout/${session_id}/pay"`);

    setEnv({ STRIPE_SECRET_KEY: "sk_test_pages" });
    const off = renderToStaticMarkup(await CheckoutPage({ params: Promise.resolve({ session_id }) }));
    expect(off).toContain("This test checkout can no longer be paid");
    expect(off).not.toContain("/pay");
    // The success page would wait for a payment that cannot come: it sends the buyer to that explanation instead.
    await expect(CheckoutSuccessPage({ params: Promise.resolve({ session_id }) })).rejects.toMatchObject({
      digest: expect.stringContaining(`/checkout/${session_id};`),
    });
  });
});

describe("My licenses' ?error=", () => {
  it("signed out: a known code shows its message; crafted text shows only a generic one", async () => {
    expect(await licensesPage({ error: "invalid_email" })).toMatch(/id="sign-in-error"[\s\S]*Please enter a valid e-mail address\./);
    // The sign-in route's codes, as it sends them.
    expect(await licensesPage({ error: "invalid-email" })).toContain("Please enter a valid e-mail address.");
    expect(await licensesPage({ error: "rate-limited" })).toContain("Too many sign-in links");
    // Our own sentence pasted into the URL is still just text from the URL.
    expect(await licensesPage({ error: "Too many sign-in links for this address; wait a few minutes." })).not.toContain("Too many sign-in links");

    const crafted = await licensesPage({ error: ATTACK });
    expect(crafted).not.toContain("555 0100");
    expect(crafted).toMatch(/id="sign-in-error"[\s\S]*That did not work\. Please try again\./);
    expect(await licensesPage({ error: "constructor" })).toContain("That did not work");
    expect(await licensesPage({})).not.toContain('id="sign-in-error"');
  });

  it("signed in: the release action's code shows its message; crafted text does not", async () => {
    const buyer = `licenses-${run}@example.com`;
    await requestSignIn({ email: buyer, purpose: "buyer" });
    const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: buyer, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
    const session = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
    cookieJar.set(session.cookieName, session.cookieValue);

    const ended = await licensesPage({ error: "session_ended" });
    expect(ended).toContain('data-testid="buyer-email"');
    expect(ended).toMatch(/id="licenses-error" role="alert"[\s\S]*Your session has ended/);

    const crafted = await licensesPage({ error: ATTACK });
    expect(crafted).toContain('data-testid="buyer-email"');
    expect(crafted).not.toContain("555 0100");

    expect(await licensesPage({ notice: "released" })).toMatch(/id="licenses-notice"[\s\S]*Machine released/);
    expect(await licensesPage({ notice: ATTACK })).not.toContain("licenses-notice");
  });
});
