import { createHash } from "node:crypto";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, noHorizontalScroll, test } from "./fixtures";

// "My licenses": a buyer signs in by e-mail link and releases a machine themselves, freeing its seat at once.

const fingerprint = (label: string) => createHash("sha256").update(`licenses-e2e|${label}|${Date.now()}`).digest("hex");
const short = (fp: string) => `${fp.slice(0, 8)}…${fp.slice(-4)}`;

/** Screenshots wait for hydration to finish, so the capture cannot race React (it touches the inputs' styles). */
async function settled(page: Page): Promise<void> {
  await page.waitForLoadState("networkidle");
}

/** The newest sign-in link the development mailbox holds for an address, as a path on this site. */
async function signInLink(request: APIRequestContext, email: string, notThis?: string): Promise<string> {
  let link = "";
  await expect
    .poll(
      async () => {
        const { messages } = await (await request.get(`/api/dev/mailbox?to=${encodeURIComponent(email)}`)).json();
        const found = (messages as Array<{ kind: string; text: string }>)
          .filter((m) => m.kind === "sign-in")
          .map((m) => /https?:\/\/[^\s"<>]+\/auth\/verify\?token=[A-Za-z0-9_-]+/.exec(m.text)?.[0])
          .find((u) => u && u !== notThis);
        link = found ?? "";
        return link;
      },
      { timeout: 10_000 },
    )
    .not.toBe("");
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

/** Opens a sign-in link in the browser that asked for it: the confirm page names the account; its button signs in. */
async function followSignInLink(page: Page, link: string): Promise<void> {
  await page.goto(link);
  await expect(page.getByTestId("sign-in-confirm")).toHaveText("Sign in to My licenses");
  await expect(page.locator("#sign-in-other-browser")).toHaveCount(0);
  await page.getByRole("button", { name: /^sign in as /i }).click();
  await expect(page).toHaveURL(/\/licenses$/);
}

async function requestSignIn(page: Page, email: string): Promise<void> {
  await expect(page.getByText(/we.ll send a sign-in link\. no password/i)).toBeVisible();
  await page.getByLabel(/e-?mail address/i).fill(email);
  await page.getByRole("button", { name: "Send sign-in link" }).click();
  await expect(page).toHaveURL(/\/auth\/check-email\?purpose=buyer$/);
  await expect(page.getByRole("heading", { level: 1, name: /check your e-mail/i })).toBeVisible();
  await expect(page.getByTestId("check-email-address")).toHaveText(email);
  await expect(page.getByText(/works once and expires in 15 minutes/i)).toBeVisible();
}

test("a buyer signs in by e-mail link and releases a machine; its seat is free at once", async ({ page, request, shot }) => {
  const { products } = await (await request.get("/api/marketplace/listings?limit=50")).json();
  const product = (products as Array<{ id: string; name: string; plugin_id: string; max_machines: number }>).find((p) => p.max_machines >= 2);
  expect(product, "a listed product with at least two seats").toBeTruthy();
  const { id, name, plugin_id, max_machines } = product!;
  const email = `e2e-licenses-${Date.now()}@example.com`;

  // Buy in test mode through the browser.
  await page.goto(`/products/${id}`);
  await page.getByLabel(/e-?mail/i).fill(email);
  await page.getByRole("button", { name: /^buy$/i }).click();
  await expect(page).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]+$/);
  await page.getByRole("button", { name: /^pay/i }).click();
  await expect(page.getByTestId("license-key")).toHaveText(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
  const key = (await page.getByTestId("license-key").textContent())!.trim();

  // The app activates the key on two machines.
  const [fpA, fpB, fpC] = [fingerprint("studio"), fingerprint("laptop"), fingerprint("new-studio")];
  for (const fp of [fpA, fpB]) {
    const res = await request.post("/activate", { data: { license_key: key, machine_fingerprint: fp, plugin_id } });
    expect(await res.json()).toMatchObject({ activated: true });
  }

  // "My licenses" from the header, signed out: the form. A sign-in link arrives in the development mailbox.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "My licenses" }).click();
  await expect(page).toHaveURL(/\/licenses$/);
  await expect(page).toHaveTitle(/My licenses/);
  await settled(page);
  await shot("licenses-signed-out");
  await requestSignIn(page, email);
  await settled(page);
  await shot("licenses-check-email");
  await followSignInLink(page, await signInLink(request, email));

  // Signed in: the license, its key, its status and both machines.
  await expect(page).toHaveURL(/\/licenses$/);
  await expect(page.getByTestId("buyer-email")).toHaveText(email);
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  const card = page.locator(`[data-testid="license"][data-license-key="${key}"]`);
  await expect(card.getByRole("heading", { name })).toBeVisible();
  await expect(card.getByTestId("license-key")).toHaveText(key);
  await expect(card.getByTestId("license-status")).toHaveText(/Active/);
  await expect(card.getByTestId("seats")).toHaveText(`2 of ${max_machines} machines in use`);
  await expect(card.getByRole("link", { name: new RegExp(`download`, "i") })).toBeVisible();
  await expect(card.getByRole("link", { name: /receipt/i })).toBeVisible();
  const machines = card.getByTestId("machine");
  await expect(machines).toHaveCount(2);
  const machineA = card.locator(`[data-testid="machine"][data-fingerprint="${fpA}"]`);
  await expect(machineA.getByTitle(fpA)).toHaveText(short(fpA));
  await expect(machineA).toContainText(/activated \d{1,2} \w{3} \d{4}/);
  // Activating counts as being seen.
  await expect(machineA).toContainText(/last seen \d{1,2} \w{3} \d{4}/);
  await settled(page);
  await shot("licenses-signed-in");

  // Release the first machine: asked first, then done, with an Undo offered for a few seconds (announced politely).
  await machineA.getByRole("button", { name: /release this machine/i }).click();
  await page.getByRole("button", { name: "Release machine" }).click();
  const notice = page.getByTestId("undo-region");
  await expect(notice).toContainText("Machine released. Its seat is free.");
  await expect(notice).toHaveAttribute("role", "status");
  await expect(notice.getByRole("button", { name: "Undo" })).toBeVisible();
  await expect(machines).toHaveCount(1);
  await expect(card.locator(`[data-testid="machine"][data-fingerprint="${fpB}"]`)).toBeVisible();
  await expect(card.getByTestId("seats")).toHaveText(`1 of ${max_machines} machines in use`);
  await settled(page);
  await shot("licenses-released");

  // The licensing API agrees: the released machine is no longer bound, the other still is, and a new one activates.
  const validate = async (fp: string) => (await request.post("/validate", { data: { license_key: key, machine_fingerprint: fp, plugin_id } })).json();
  expect(await validate(fpA)).toMatchObject({ machine_bound: false });
  expect(await validate(fpB)).toMatchObject({ valid: true, machine_bound: true });
  const third = await request.post("/activate", { data: { license_key: key, machine_fingerprint: fpC, plugin_id } });
  expect(await third.json()).toMatchObject({ activated: true });

  // At phone width nothing scrolls sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(machines).toHaveCount(2);
  await noHorizontalScroll(page);
  await settled(page);
  await shot("licenses-phone");
});

test.describe("without JavaScript (the plain form posts the machine's id)", () => {
  test.use({ javaScriptEnabled: false });

  test("releasing a machine that is not the buyer's is an error on the page, not a crash", async ({ page, request }) => {
    const email = `e2e-licenses-forged-${Date.now()}@example.com`;
    const { products } = await (await request.get("/api/marketplace/listings?limit=50")).json();
    const product = (products as Array<{ id: string; plugin_id: string; max_machines: number }>).find((p) => p.max_machines >= 1)!;
    const created = await (await request.post("/api/checkout/create", { data: { product_id: product.id, buyer_email: email } })).json();
    await request.post(`/checkout/${created.session_id}/pay`, { maxRedirects: 0 });
    const { license } = await (await request.get(`/api/checkout/${created.session_id}`)).json();
    const fp = fingerprint("forged");
    await request.post("/activate", { data: { license_key: license.license_key, machine_fingerprint: fp, plugin_id: product.plugin_id } });

    await page.goto("/licenses");
    await requestSignIn(page, email);
    await followSignInLink(page, await signInLink(request, email));
    await expect(page.getByTestId("machine")).toHaveCount(1);
    await settled(page);

    // Someone edits the form to name an activation that is not theirs.
    await page
      .locator('input[name="activation_id"]')
      .first()
      .evaluate((el: HTMLInputElement) => (el.value = "not-yours"));
    await page.getByRole("button", { name: /release this machine/i }).click();
    await expect(page).toHaveURL(/\/licenses\?notice=release_not_found$/);
    await expect(page.locator("#licenses-error")).toHaveAttribute("role", "alert");
    await expect(page.locator("#licenses-error")).toContainText(/not on any of your licenses/i);
    await expect(page.getByTestId("machine")).toHaveCount(1);
    const validation = await (
      await request.post("/validate", { data: { license_key: license.license_key, machine_fingerprint: fp, plugin_id: product.plugin_id } })
    ).json();
    expect(validation).toMatchObject({ machine_bound: true });
  });
});

test("an address without licenses sees the empty state; a used sign-in link shows the invalid page", async ({ page, request, shot }) => {
  const email = `e2e-licenses-none-${Date.now()}@example.com`;

  // A bad address comes back as an alert on the form.
  await page.goto("/licenses?error=invalid-email");
  await expect(page.locator("#sign-in-error")).toHaveAttribute("role", "alert");
  await expect(page.locator("#sign-in-error")).toHaveText("Please enter a valid e-mail address.");

  await page.goto("/licenses");
  await requestSignIn(page, email);
  const link = await signInLink(request, email);
  await followSignInLink(page, link);
  await expect(page.getByRole("heading", { name: /no licenses for this address yet/i })).toBeVisible();
  await expect(page.getByRole("link", { name: /browse the store/i })).toHaveAttribute("href", "/");
  await settled(page);
  await shot("licenses-empty");

  // The same link again: spent.
  await page.goto(link);
  await expect(page).toHaveURL(/\/auth\/check-email\?invalid=1$/);
  await expect(page.getByRole("heading", { level: 1, name: "This sign-in link has expired or was already used" })).toBeVisible();
  await expect(page.getByRole("link", { name: /new link for my licenses/i })).toHaveAttribute("href", "/licenses");
  await expect(page.getByRole("link", { name: /new link for the seller dashboard/i })).toHaveAttribute("href", "/dashboard/sign-in");
  await expect(page).toHaveTitle(/Sign-in link expired/);
  await settled(page);
  await shot("licenses-link-invalid");

  // Signing out ends the session.
  await page.goto("/licenses");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.goto("/licenses");
  await expect(page.getByRole("button", { name: "Send sign-in link" })).toBeVisible();
});

test("opening a sign-in link uses nothing up; another browser is warned; only our own form's POST signs in, once", async ({
  page,
  browser,
  baseURL,
  request,
  shot,
}) => {
  const email = `e2e-licenses-confirm-${Date.now()}@example.com`;
  await page.goto("/licenses");
  await requestSignIn(page, email);
  const link = await signInLink(request, email);
  const token = new URL(link, baseURL).searchParams.get("token")!;

  // A mail scanner fetches the link, twice: a page that asks, not a session, and nothing to cache.
  for (let i = 0; i < 2; i++) {
    const scanned = await request.get(link, { maxRedirects: 0 });
    expect(scanned.status()).toBe(200);
    expect(scanned.headers()["set-cookie"] ?? "").not.toMatch(/ilm_buyer=/);
    expect(scanned.headers()["cache-control"]).toMatch(/no-store/);
    // The token never leaves the site in a Referer.
    expect(["same-origin", "no-referrer"]).toContain(scanned.headers()["referrer-policy"]);
    const html = await scanned.text();
    expect(html).toContain('<meta name="referrer" content="same-origin"/>');
    expect(html).not.toContain(email);
  }

  // Someone else's browser (the link forwarded, or an attacker's own link sent to a victim): an explicit warning.
  const other = await browser.newContext({ baseURL });
  const otherPage = await other.newPage();
  await otherPage.goto(link);
  await expect(otherPage.getByTestId("sign-in-as")).toHaveText("e2•••@example.com");
  await expect(otherPage.locator("#sign-in-other-browser")).toContainText("This link was requested from another browser or device.");
  await otherPage.screenshot({ path: "e2e/artifacts/screens/sign-in-confirm-other-browser.png", fullPage: true });
  // Another site posting the link is refused, and the link still works.
  const crossSite = await other.request.post("/auth/verify/confirm", {
    form: { token },
    headers: { origin: "https://evil.example" },
    maxRedirects: 0,
  });
  expect(crossSite.status()).toBe(403);
  await other.close();

  // The browser that asked: no warning; the button signs in.
  await page.goto(link);
  await expect(page.getByTestId("sign-in-as")).toHaveText("e2•••@example.com");
  await expect(page.locator("#sign-in-other-browser")).toHaveCount(0);
  await settled(page);
  await shot("sign-in-confirm");
  await page.getByRole("button", { name: "Sign in as e2•••@example.com" }).click();
  await expect(page).toHaveURL(/\/licenses$/);
  await expect(page.getByTestId("buyer-email")).toHaveText(email);

  // The same POST again: the link is spent.
  const replay = await page.request.post("/auth/verify/confirm", { form: { token }, maxRedirects: 0 });
  expect(replay.status()).toBe(303);
  expect(replay.headers().location).toMatch(/\/auth\/check-email\?invalid=1$/);
  expect(replay.headers()["set-cookie"] ?? "").not.toMatch(/ilm_buyer=/);
});
