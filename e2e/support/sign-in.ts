import { expect, type Page } from "@playwright/test";

/** Signs a seller in the way a person does: the form, then the link from the (development) mailbox. */
export async function signIn(page: Page, email: string) {
  await page.goto("/dashboard/sign-in");
  await page.getByLabel("E-mail address").fill(email);
  await page.getByRole("button", { name: /e-mail me a sign-in link/i }).click();
  await expect(page).toHaveURL(/\/auth\/check-email/);
  let link: string | undefined;
  await expect
    .poll(
      async () => {
        const { messages } = (await (await page.request.get(`/api/dev/mailbox?to=${encodeURIComponent(email)}`)).json()) as {
          messages: Array<{ text: string }>;
        };
        link = messages.map((m) => /\/auth\/verify\?token=[\w-]+/.exec(m.text)?.[0]).find(Boolean);
        return link;
      },
      { timeout: 15_000 },
    )
    .toBeTruthy();
  // Opening the link only asks; the button signs in (this browser asked for the link, so no warning).
  await page.goto(link!);
  await expect(page.getByTestId("sign-in-confirm")).toHaveText("Sign in to your seller dashboard");
  await expect(page.locator("#sign-in-other-browser")).toHaveCount(0);
  await page.getByRole("button", { name: /^sign in as /i }).click();
  await expect(page).not.toHaveURL(/\/auth\//);
}

/** Signs a buyer in on My licenses, as a person does: the form, the e-mailed link (read from the dev mailbox), the button. */
export async function signInToMyLicenses(page: Page, buyerEmail: string) {
  await page.goto("/licenses");
  await page.getByLabel(/e-?mail address/i).fill(buyerEmail);
  await page.getByRole("button", { name: "Send sign-in link" }).click();
  await expect(page).toHaveURL(/\/auth\/check-email/);
  const link = await signInLink(page, buyerEmail);
  await page.goto(link);
  await page.getByRole("button", { name: /^sign in as /i }).click();
  await expect(page).toHaveURL(/\/licenses$/);
}

/** The newest sign-in link the development mailbox holds for an address, as a path on this site. */
export async function signInLink(page: Page, email: string): Promise<string> {
  let link = "";
  await expect
    .poll(
      async () => {
        const { messages } = (await (await page.request.get(`/api/dev/mailbox?to=${encodeURIComponent(email)}`)).json()) as {
          messages: Array<{ kind: string; text: string }>;
        };
        link = messages.filter((m) => m.kind === "sign-in").map((m) => /\/auth\/verify\?token=[\w-]+/.exec(m.text)?.[0])[0] ?? "";
        return link;
      },
      { timeout: 15_000 },
    )
    .not.toBe("");
  return link;
}
