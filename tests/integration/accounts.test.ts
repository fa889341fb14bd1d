import { afterAll, describe, expect, it } from "vitest";
import { POST as confirmSignIn } from "@/app/auth/verify/confirm/route";
import { POST as signInForm } from "@/app/auth/sign-in/route";
import { POST as createApi } from "@/app/api/v1/products/route";
import { PUT as updateApi } from "@/app/api/v1/products/[id]/route";
import { disconnectDb, getDb } from "@/lib/db";
import { linkBoundHere, maskEmail, readBinding, SIGN_IN_BROWSER_COOKIE } from "@/lib/auth/link-binding";
import { consumeSignIn, peekSignIn, requestSignIn, sessionFromToken, signInRequestSchema } from "@/lib/auth/sign-in";
import { hashToken } from "@/lib/auth/tokens";
import { buyerLicenses, buyerReleaseMachine } from "@/lib/buyer/licenses";
import { sellingDeveloper } from "../helpers/sellers";
import { issueComplimentaryLicense, sellerReleaseMachine, sellerSetLicenseStatus } from "@/lib/selling/licenses";
import { licenseSearchSchema, searchLicenses } from "@/lib/seller-api/licenses";
import { createProduct, setProductStatus, updateProduct } from "@/lib/selling/products";
import { sellerSales } from "@/lib/selling/sales";
import { saveUpload } from "@/lib/selling/uploads";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { productInputSchema, type ProductInput } from "@/lib/marketplace/schemas";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { call, expectProblem } from "../helpers/http";
import { fingerprint } from "../helpers/licenses";

afterAll(() => disconnectDb());

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function signIn(email: string, purpose: "seller" | "buyer") {
  await requestSignIn({ email, purpose });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const token = /token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!;
  return { token, session: await consumeSignIn(token) };
}

function productInput(over: Partial<ProductInput> = {}): ProductInput {
  const id = unique();
  return productInputSchema.parse({
    name: `Test Synth ${id}`,
    tagline: "A test product.",
    description: "A product created by the integration tests, with a long enough description.",
    plugin_id: `com.test.synth${id}`,
    price_cents: 2500,
    category: "audio-plugins",
    max_machines: 2,
    seat_model: "per-machine",
    platforms: ["linux"],
    download_url: "https://example.com/download",
    icon_url: "/icons/tape-warmth.svg",
    ...over,
  });
}

/** The token of the newest sign-in link mailed to an address. */
async function latestToken(email: string): Promise<string> {
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  return /token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!;
}

async function mailedToken(email: string, purpose: "seller" | "buyer"): Promise<string> {
  await requestSignIn({ email, purpose });
  return latestToken(email);
}

/** The confirm page's form post (same-origin unless headers say otherwise). */
const confirm = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
  call(confirmSignIn, "/auth/verify/confirm", {
    method: "POST",
    body: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
  });

const postSignInForm = (fields: Record<string, string>, cookie?: string, origin?: string) =>
  call(signInForm, "/auth/sign-in", {
    method: "POST",
    body: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}), ...(origin ? { origin } : {}) },
  });

describe("sign-in links and sessions", () => {
  it("e-mail a single-use link whose token is stored only as a hash, and open a session", async () => {
    const email = `seller-${unique()}@example.com`;
    const { token, session } = await signIn(email, "seller");
    expect(await getDb().signInToken.count({ where: { tokenHash: token } })).toBe(0);
    expect(await getDb().signInToken.count({ where: { tokenHash: hashToken(token) } })).toBe(1);
    expect(session).toMatchObject({ kind: "seller", email, next: "/dashboard", cookieName: "ilm_seller" });
    expect(await sessionFromToken(session.cookieValue, "seller")).toMatchObject({ email });
    expect(await sessionFromToken(session.cookieValue, "buyer")).toBeNull();
    await expect(consumeSignIn(token)).rejects.toMatchObject({ code: "sign_in_link_invalid" });
  });

  it("refuse expired and unknown links; the confirm POST sets an HTTP-only cookie once", async () => {
    const email = `buyer-${unique()}@example.com`;
    await requestSignIn({ email, purpose: "buyer" }, new Date(Date.now() - 20 * 60_000));
    const expired = await latestToken(email);
    await expect(consumeSignIn(expired)).rejects.toMatchObject({ code: "sign_in_link_invalid" });
    expect(await peekSignIn(expired)).toBeNull();
    expect(await peekSignIn("no-such-token")).toBeNull();
    await expect(consumeSignIn("")).rejects.toMatchObject({ code: "sign_in_link_invalid" });

    const fresh = await mailedToken(email, "buyer");
    const ok = await confirm({ token: fresh });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe("http://localhost:3000/licenses");
    expect(ok.headers.get("set-cookie")).toMatch(/^ilm_buyer=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
    expect(ok.headers.get("cache-control")).toBe("no-store");
    expect(ok.headers.get("referrer-policy")).toBe("no-referrer");
    const again = await confirm({ token: fresh });
    expect(again.headers.get("location")).toContain("/auth/check-email?invalid=1");
    expect(again.headers.get("set-cookie")).toBeNull();
  });

  it("opening a link (what a mail scanner does) uses nothing up: only the confirm POST does, once", async () => {
    const email = `scanned-${unique()}@example.com`;
    const token = await mailedToken(email, "seller");
    // The scanner, the link preview and the person each open the link: it still works, and names its account.
    for (let i = 0; i < 3; i++) expect(await peekSignIn(token)).toEqual({ email, kind: "seller" });
    expect((await getDb().signInToken.findUniqueOrThrow({ where: { tokenHash: hashToken(token) } })).usedAt).toBeNull();
    const first = await confirm({ token });
    expect(first.headers.get("set-cookie")).toMatch(/^ilm_seller=/);
    expect(await peekSignIn(token)).toBeNull();
    const second = await confirm({ token });
    expect(second.headers.get("location")).toContain("/auth/check-email?invalid=1");
    expect(second.headers.get("set-cookie")).toBeNull();
    expect(await getDb().session.count({ where: { email } })).toBe(1);
  });

  it("login CSRF: another site cannot post an attacker's link, and the link stays unused", async () => {
    const attacker = `attacker-${unique()}@example.com`;
    const token = await mailedToken(attacker, "seller");
    // The attacker's page auto-submits a form to our confirm endpoint in the victim's browser.
    const crossOrigin = await confirm({ token }, { origin: "https://evil.example" });
    expectProblem(crossOrigin, 403, "cross_site_form");
    expect(crossOrigin.headers.get("set-cookie")).toBeNull();
    expectProblem(await confirm({ token }, { "sec-fetch-site": "cross-site" }), 403, "cross_site_form");
    expectProblem(await confirm({ token }, { "sec-fetch-site": "same-site" }), 403, "cross_site_form");
    expectProblem(await confirm({ token }, { origin: "null" }), 403, "cross_site_form");
    expectProblem(await confirm({ token }, { origin: "http://localhost:3000", "sec-fetch-site": "cross-site" }), 403, "cross_site_form");
    expect(await peekSignIn(token)).toEqual({ email: attacker, kind: "seller" });
    expect(await getDb().session.count({ where: { email: attacker } })).toBe(0);
    // Our own page's post goes through; the page sends no Referer, so the browser says `Origin: null` and Fetch Metadata decides.
    const own = await confirm({ token }, { origin: "null", "sec-fetch-site": "same-origin" });
    expect(own.headers.get("set-cookie")).toMatch(/^ilm_seller=/);
  });

  it("a link is bound to the browser that asked for it; the attacker's link in the victim's browser is not", async () => {
    const victim = `victim-${unique()}@example.com`;
    const asked = await postSignInForm({ email: victim, purpose: "buyer" });
    expect(asked.headers.get("location")).toBe("http://localhost:3000/auth/check-email?purpose=buyer");
    const setCookie = asked.headers.get("set-cookie")!;
    expect(setCookie).toMatch(new RegExp(`^${SIGN_IN_BROWSER_COOKIE}=[A-Za-z0-9_.-]+; Path=/auth; HttpOnly; SameSite=Lax; Max-Age=900$`));
    const victimCookie = setCookie.split(";")[0]!;
    expect(readBinding(victimCookie).email).toBe(victim);
    const victimToken = await latestToken(victim);
    expect(linkBoundHere(victimCookie, victimToken)).toBe(true);

    // The attacker asks for a link to their own account (in their browser) and sends it to the victim.
    const attacker = `attacker-${unique()}@example.com`;
    const attackerAsked = await postSignInForm({ email: attacker, purpose: "buyer" });
    const attackerToken = await latestToken(attacker);
    expect(linkBoundHere(attackerAsked.headers.get("set-cookie")!.split(";")[0]!, attackerToken)).toBe(true);
    // In the victim's browser the confirm page sees a link asked for elsewhere and warns (app/auth/verify/page.tsx).
    expect(linkBoundHere(victimCookie, attackerToken)).toBe(false);
    expect(linkBoundHere(null, attackerToken)).toBe(false);
    expect(linkBoundHere(`${SIGN_IN_BROWSER_COOKIE}=forged.${"A".repeat(22)}`, attackerToken)).toBe(false);

    // A second request from the same browser keeps the first link bound.
    const again = await postSignInForm({ email: victim, purpose: "seller" }, victimCookie);
    const both = again.headers.get("set-cookie")!.split(";")[0]!;
    expect(linkBoundHere(both, victimToken)).toBe(true);
    expect(linkBoundHere(both, await latestToken(victim))).toBe(true);
  });

  it("the confirm page shows a masked address", () => {
    expect(maskEmail("jonathan@example.com")).toBe("jo•••@example.com");
    expect(maskEmail("ab@example.com")).toBe("a•••@example.com");
    expect(maskEmail("a@example.com")).toBe("a•••@example.com");
  });

  it("the sign-in form refuses bad addresses, foreign origins and off-site next paths, by code", async () => {
    expect((await postSignInForm({ email: "nope", purpose: "buyer" })).headers.get("location")).toBe(
      "http://localhost:3000/licenses?error=invalid-email",
    );
    // Off-site however spelled: as written, percent-encoded (once or twice), or with a backslash browsers read as `/`.
    for (const next of [
      "//evil.example",
      "/%2F%2Fevil.example",
      "/%2f/evil.example",
      "/%252F%252Fevil.example",
      "/%5C%5Cevil.example",
      "/%5Cevil.example",
    ])
      expect((await postSignInForm({ email: "a@example.com", purpose: "seller", next })).headers.get("location"), next).toBe(
        "http://localhost:3000/dashboard/sign-in?error=invalid-email",
      );
    // A real path with an encoded query is still fine.
    expect(signInRequestSchema.safeParse({ email: "a@example.com", purpose: "seller", next: "/dashboard/products?q=a%20b" }).success).toBe(true);
    expectProblem(await postSignInForm({ email: "a@example.com", purpose: "buyer" }, undefined, "https://evil.example"), 403, "cross_site_form");
    const ok = await postSignInForm({ email: `form-${unique()}@example.com`, purpose: "seller" });
    // The address is not in the URL: the check-email page reads it from this browser's cookie.
    expect(ok.headers.get("location")).toBe("http://localhost:3000/auth/check-email?purpose=seller");
  });
});

describe("seller operations are scoped to the seller", () => {
  it("create, edit, unlist; another seller can neither see nor change them", async () => {
    const a = await sellingDeveloper(`a-${unique()}@example.com`, { name: "Alpha Audio", website: null, bio: "" });
    const b = await sellingDeveloper(`b-${unique()}@example.com`, { name: "Beta Tools", website: null, bio: "" });
    const product = await createProduct(a.id, productInput(), { publish: true });
    expect(product).toMatchObject({ developerId: a.id, status: "active" });
    expect(product.searchText).toContain("alpha audio");

    await expect(updateProduct(b.id, product.id, productInput())).rejects.toMatchObject({ status: 404 });
    await expect(setProductStatus(b.id, product.id, "unlisted")).rejects.toMatchObject({ status: 404 });
    const edited = await updateProduct(a.id, product.id, { ...productInput({ plugin_id: product.pluginId }), name: "Renamed Synth" });
    expect(edited.name).toBe("Renamed Synth");
    await expect(createProduct(b.id, productInput({ plugin_id: product.pluginId }), { publish: true })).rejects.toMatchObject({
      status: 409,
      code: "plugin_id_taken",
    });
    expect((await setProductStatus(a.id, product.id, "unlisted")).status).toBe("unlisted");
  });

  it("the dashboard API refuses anonymous callers and other sellers", async () => {
    const owner = `owner-${unique()}@example.com`;
    const other = `other-${unique()}@example.com`;
    const dev = await sellingDeveloper(owner, { name: "Owner Studio", website: null, bio: "" });
    await sellingDeveloper(other, { name: "Other Studio", website: null, bio: "" });
    const product = await createProduct(dev.id, productInput(), { publish: true });
    const body = productInput({ plugin_id: product.pluginId });
    expectProblem(
      await call(updateApi, `/api/v1/products/${product.id}`, { method: "PUT", json: body, params: { id: product.id } }),
      401,
      "unauthorized",
    );
    const otherCookie = (await signIn(other, "seller")).session;
    const refused = await call(updateApi, `/api/v1/products/${product.id}`, {
      method: "PUT",
      json: { ...body, name: "Hijacked" },
      params: { id: product.id },
      headers: { cookie: `ilm_seller=${otherCookie.cookieValue}` },
    });
    expectProblem(refused, 404, "product_not_found");
    expect((await getDb().product.findUniqueOrThrow({ where: { id: product.id } })).name).not.toBe("Hijacked");
    const ownerCookie = (await signIn(owner, "seller")).session;
    const created = await call(createApi, "/api/v1/products", {
      method: "POST",
      json: productInput(),
      headers: { cookie: `ilm_seller=${ownerCookie.cookieValue}` },
    });
    expect(created.status, created.text).toBe(201);
    const invalid = await call(createApi, "/api/v1/products", {
      method: "POST",
      json: { ...productInput(), price_cents: 5 },
      headers: { cookie: `ilm_seller=${ownerCookie.cookieValue}` },
    });
    expectProblem(invalid, 400, "invalid_body");
    expect(invalid.body.errors[0].name).toBe("price_cents");
  });

  it("sales show fee, net and agents; licenses can be searched, released, revoked and given away", async () => {
    const dev = await sellingDeveloper(`sales-${unique()}@example.com`, { name: "Sales Studio", website: null, bio: "" });
    const product = await createProduct(dev.id, productInput({ price_cents: 4000 }), { publish: true });
    const s1 = await createCheckout({ product_id: product.id, buyer_email: "one@example.com", agent_id: "agent-x" });
    const s2 = await createCheckout({ product_id: product.id, buyer_email: "two@example.com" });
    await payTestCheckout(s1.session_id);
    await payTestCheckout(s2.session_id);
    const sales = await sellerSales(dev.id);
    expect(sales.totals).toMatchObject({ orders: 2, gross_cents: 8000, fee_cents: 400, net_cents: 7600, agent_orders: 1 });
    expect(sales.orders.find((o) => o.buyer_email === "one@example.com")).toMatchObject({ agent_id: "agent-x", fee_cents: 200, net_cents: 3800 });
    expect(sales.daily).toHaveLength(30);
    expect(sales.daily.at(-1)!.net_cents).toBe(7600);

    const search = async (developerId: string, q: string) => (await searchLicenses(developerId, licenseSearchSchema.parse({ q }))).licenses;
    const [found] = await search(dev.id, "one@example");
    expect(found!.buyer_email).toBe("one@example.com");
    const byKey = await search(dev.id, found!.key.toLowerCase());
    expect(byKey.map((l) => l.id)).toEqual([found!.id]);
    const other = await sellingDeveloper(`nosy-${unique()}@example.com`, { name: "Nosy Studio", website: null, bio: "" });
    expect(await search(other.id, found!.key)).toEqual([]);

    const fp = fingerprint();
    await activateMachine({ license_key: found!.key, machine_fingerprint: fp, plugin_id: product.pluginId });
    const activation = await getDb().activation.findFirstOrThrow({ where: { licenseId: found!.id } });
    await expect(sellerReleaseMachine(other.id, found!.id, activation.id)).rejects.toMatchObject({ status: 404 });
    expect(await sellerReleaseMachine(dev.id, found!.id, activation.id)).toMatchObject({ deactivated: true });
    await expect(sellerSetLicenseStatus(other.id, found!.id, false)).rejects.toMatchObject({ status: 404 });
    expect((await sellerSetLicenseStatus(dev.id, found!.id, false, "refunded")).isActive).toBe(false);

    const gift = await issueComplimentaryLicense(dev.id, { product_id: product.id, buyer_email: "press@example.com", max_machines: 1 });
    expect(gift).toMatchObject({ source: "complimentary", maxMachines: 1, buyerEmail: "press@example.com" });
    expect(await getDb().emailMessage.count({ where: { dedupeKey: `license:complimentary:${gift.id}` } })).toBe(1);
    await expect(issueComplimentaryLicense(other.id, { product_id: product.id, buyer_email: "x@example.com" })).rejects.toMatchObject({
      status: 404,
    });
  });
});

describe("buyers", () => {
  it("see their own licenses and release their own machines only", async () => {
    const product = await getDb().product.findFirstOrThrow({ where: { status: "active", maxMachines: { gte: 2 } } });
    const email = `buyer-${unique()}@example.com`;
    const s = await createCheckout({ product_id: product.id, buyer_email: email });
    await payTestCheckout(s.session_id);
    const [license] = await buyerLicenses(email);
    expect(license).toMatchObject({ product: { id: product.id }, active: true });
    await activateMachine({ license_key: license!.key, machine_fingerprint: fingerprint("one"), plugin_id: product.pluginId });
    await activateMachine({ license_key: license!.key, machine_fingerprint: fingerprint("two"), plugin_id: product.pluginId });
    const [withMachines] = await buyerLicenses(email.toUpperCase());
    expect(withMachines!.activations).toHaveLength(2);
    await expect(buyerReleaseMachine("someone@example.com", license!.id, withMachines!.activations[0]!.id)).rejects.toMatchObject({ status: 404 });
    expect(await buyerReleaseMachine(email, license!.id, withMachines!.activations[0]!.id)).toMatchObject({ deactivated: true, active_machines: 1 });
  });
});

describe("uploads", () => {
  it("accept PNG, JPEG and WebP by their bytes only, within the size cap", async () => {
    const png = Buffer.from(
      "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a9b20000000049454e44ae426082",
      "hex",
    );
    expect(await saveUpload(png, "uploads-dev")).toMatch(/^\/uploads\/[a-f0-9]{12}-[a-f0-9]{32}\.png$/);
    await expect(saveUpload(Buffer.from("<svg onload=alert(1)></svg>"), "uploads-dev")).rejects.toMatchObject({ status: 415 });
    await expect(saveUpload(Buffer.alloc(0), "uploads-dev")).rejects.toMatchObject({ status: 400 });
    await expect(saveUpload(Buffer.concat([png, Buffer.alloc(600 * 1024)]), "uploads-dev")).rejects.toMatchObject({ status: 413 });
  });
});
