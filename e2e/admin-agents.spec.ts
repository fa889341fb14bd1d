import { randomUUID } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { delegateBody } from "../tests/helpers/acp-protocol";
import { expect, noHorizontalScroll, test } from "./fixtures";
import { signInLink } from "./support/sign-in";

// The operator's agent platforms at /admin/agents: register one (the key and the webhook secret are on the page this
// once), the key buys through ACP, the order's webhook shows up in the deliveries with its status and last error, and
// a revoked key is refused. The suite's server runs in production mode, where a webhook URL must be https: this one
// points at a port on this machine where nothing listens, so its deliveries fail visibly and are retried.

// Its own operator: specs running side by side that sign the same address in could each open the other's link.
const OPERATOR = "operator-agents@e2e.example.com";
const VERSION = "2026-04-17";

/** An agent with the platform's key buys the cheapest per-machine dollar product over ACP REST (test card). */
async function buyAsAgent(request: APIRequestContext, apiKey: string): Promise<string> {
  const headers = () => ({ "API-Version": VERSION, "Idempotency-Key": randomUUID(), Authorization: `Bearer ${apiKey}` });
  const listings = await (await request.get("/api/marketplace/listings?sort=price_asc&limit=50")).json();
  const product = listings.products.find((p: { seat_model: string; currency: string }) => p.seat_model === "per-machine" && p.currency === "usd");
  expect(product, "a per-machine product priced in usd").toBeDefined();
  const post = async (path: string, data: unknown, status: number) => {
    const r = await request.post(`/api/acp${path}`, { data, headers: headers() });
    expect(r.status(), await r.text()).toBe(status);
    return r.json();
  };
  const session = await post(
    "/checkout_sessions",
    { line_items: [{ id: product.id }], currency: "usd", buyer: { email: `agents-e2e-${Date.now()}@e2e.example.com` } },
    201,
  );
  expect(session.status).toBe("ready_for_payment");
  const total: number = session.totals.find((t: { type: string }) => t.type === "total").amount;
  const token = await post("/agentic_commerce/delegate_payment", delegateBody(session.id, total, "usd"), 201);
  const done = await post(
    `/checkout_sessions/${session.id}/complete`,
    { payment_data: { handler_id: "test_card", instrument: { type: "card", credential: { type: "vt", token: token.id } } } },
    200,
  );
  expect(done.status).toBe("completed");
  return done.order.id as string;
}

test("the operator registers an agent platform, sees its key once, watches its webhook deliveries, and revokes it", async ({ page, shot }) => {
  await page.goto("/dashboard/sign-in?next=/admin/agents");
  await page.getByLabel("E-mail address").fill(OPERATOR);
  await page.getByRole("button", { name: /e-mail me a sign-in link/i }).click();
  await expect(page).toHaveURL(/\/auth\/check-email/);
  await page.goto(await signInLink(page, OPERATOR));
  await page.getByRole("button", { name: /^sign in as /i }).click();
  await expect(page).toHaveURL(/\/admin\/agents$/);
  await expect(page.getByRole("heading", { level: 1, name: "Agent platforms" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Operator console" }).getByRole("link", { name: "Agents" })).toHaveAttribute(
    "aria-current",
    "page",
  );

  // A URL carrying credentials is refused; the form says why. (Plain http to another host is refused too, but these
  // servers run with WEBHOOK_ALLOW_PRIVATE=on, under which http is allowed as for sellers' webhooks:
  // tests/integration/agent-platform-webhook.test.ts checks both settings.)
  const name = `E2E Agent ${Date.now().toString(36)}`;
  const form = page.getByRole("form", { name: "Register an agent platform" });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Webhook URL (optional)").fill("https://user:secret@agent.example.com/hooks");
  await form.getByRole("button", { name: "Register platform" }).click();
  await expect(page.locator("#agent-register-error")).toContainText("credentials");

  await form.getByLabel("Webhook URL (optional)").fill("https://127.0.0.1:9/acp/order_events");
  await form.getByRole("button", { name: "Register platform" }).click();
  const apiKey = (await page.locator("#agent-api-key").textContent())?.trim() ?? "";
  const secret = (await page.locator("#agent-webhook-secret").textContent())?.trim() ?? "";
  expect(apiKey).toMatch(/^acpk_[A-Za-z0-9_-]{43}$/);
  expect(secret).toMatch(/^whsec_/);
  await expect(page.locator("#agent-secret")).toContainText("not shown again");
  await shot("admin-agents-key-once");

  // The key works on the ACP endpoints (an unknown session is a 404, not a 401); a made-up key does not.
  const probe = (key: string) =>
    page.request.get("/api/acp/checkout_sessions/acs_000000000000000000000000", {
      headers: { "API-Version": VERSION, Authorization: `Bearer ${key}` },
    });
  expect((await probe(apiKey)).status()).toBe(404);
  expect((await probe(`acpk_${"x".repeat(43)}`)).status()).toBe(401);

  // After a reload the key and secret are gone from the page; the platform is listed by its prefix.
  await page.reload();
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText(apiKey.slice(0, 12));
  await expect(page.locator("body")).not.toContainText(apiKey);
  await expect(page.locator("body")).not.toContainText(secret);

  // An order through ACP: its order_create is queued; nobody listens at the URL, so the delivery shows its error.
  const orderId = await buyAsAgent(page.request, apiKey);
  await expect
    .poll(
      async () => {
        await page.reload();
        return page.getByRole("row").filter({ hasText: orderId }).textContent();
      },
      { timeout: 20_000 },
    )
    .toMatch(/[1-9]\d* attempts?/);
  const delivery = page.getByRole("row").filter({ hasText: orderId });
  await expect(delivery).toContainText("order_create");
  await expect(delivery).toContainText("pending");
  await expect(delivery).toContainText(name);
  await expect(delivery.locator(".text-red-800")).not.toBeEmpty();
  await noHorizontalScroll(page);
  await shot("admin-agents-deliveries");

  // Revoke: the key is refused from now on, and the waiting delivery is dropped.
  const platformRow = page
    .getByRole("row")
    .filter({ hasText: name })
    .filter({ hasText: apiKey.slice(0, 12) });
  await platformRow.locator("summary", { hasText: "Revoke" }).click();
  await platformRow.getByLabel("Reason (for the audit log)").fill("End of the e2e run");
  await platformRow.getByRole("button", { name: "Revoke platform" }).click();
  await expect(page.locator("#admin-notice")).toContainText("Platform revoked");
  await expect(
    page
      .getByRole("row")
      .filter({ hasText: name })
      .filter({ hasText: apiKey.slice(0, 12) }),
  ).toContainText("Revoked");
  await expect(page.getByRole("row").filter({ hasText: orderId })).toContainText("failed");
  expect((await probe(apiKey)).status()).toBe(401);

  await page.getByRole("navigation", { name: "Operator console" }).getByRole("link", { name: "Audit" }).click();
  // The audit page's own table, once it is there (the agents page has tables too, until the navigation lands).
  await expect(page).toHaveURL(/\/admin\/audit/);
  const audit = page.getByRole("table", { name: "Operator actions, newest first" });
  for (const action of ["agent_platform.register", "agent_platform.revoke"]) await expect(audit).toContainText(action);
});
