import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test } from "@playwright/test";
import { acpSchemaErrors, delegateBody } from "../tests/helpers/acp-protocol";

/**
 * An agent that buys and uses a license by itself with nothing but the official MCP SDK client over HTTP: no REST
 * call, no browser. It finds a product, opens an Agentic Commerce Protocol checkout session, gives the buyer's
 * e-mail, vaults a test card with delegate_payment, completes the session, reads the license key from the order, then
 * activates, validates, proves and verifies the purchase, and releases the machine. Every step is a tools/call.
 */
const API_VERSION = "2026-04-17";

type Result = Awaited<ReturnType<Client["callTool"]>>;

// Every ACP tool result is the protocol's own object: checked against the official JSON Schemas (2026-04-17, vendored
// byte for byte in tests/fixtures/acp-2026-04-17).
function expectValid(body: unknown, ref: string): void {
  const errors = acpSchemaErrors(body, ref);
  expect(errors, `${ref}: ${errors}\n${JSON.stringify(body).slice(0, 1500)}`).toBeNull();
}

async function connect(baseURL: string) {
  const client = new Client({ name: "e2e-journey-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", baseURL)));
  return client;
}

/** Calls a tool and insists on success, showing the tool's own words when it refuses. */
async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<{ data: any; text: string }> {
  const r: Result = await client.callTool({ name, arguments: args });
  const text = (r.content as Array<{ type: string; text: string }>).map((c) => c.text).join("\n");
  expect(r.isError ?? false, `${name}: ${text}`).toBe(false);
  return { data: r.structuredContent, text };
}

test("MCP only: browse → details → ACP checkout with a delegated test card → key → activate → validate → receipt → verify → deactivate", async ({
  baseURL,
}) => {
  const client = await connect(baseURL!);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const needed of [
    "browse_marketplace",
    "get_product_details",
    "create_checkout_session",
    "update_checkout_session",
    "delegate_payment",
    "complete_checkout_session",
    "activate_license",
    "validate_license",
    "get_receipt",
    "verify_receipt",
    "deactivate_license",
  ]) {
    expect(names, needed).toContain(needed);
  }

  // Browse: a per-machine product, paging until one turns up.
  let product: { id: string; plugin_id: string; currency: string; price_cents: number; seat_model?: string } | undefined;
  for (let page: number | null = 1; page !== null && !product;) {
    const { data } = await ok(client, "browse_marketplace", { page, limit: 10, sort: "price_asc" });
    product = data.products.find((p: { seat_model?: string }) => p.seat_model === undefined || p.seat_model === "per-machine");
    page = data.next_page;
  }
  expect(product, "a product to buy").toBeDefined();
  const details = await ok(client, "get_product_details", { product_id: product!.id });
  expect(details.data.product).toMatchObject({ id: product!.id, plugin_id: product!.plugin_id });

  // Open an ACP checkout session, then give the buyer's e-mail.
  const email = `journey-${Date.now()}@example.com`;
  const created = await ok(client, "create_checkout_session", {
    meta: { api_version: API_VERSION, idempotency_key: randomUUID() },
    payload: { line_items: [{ id: product!.id }], currency: product!.currency },
  });
  expectValid(created.data, "checkout#/$defs/CheckoutSession");
  const sessionId: string = created.data.id;
  expect(sessionId).toBeTruthy();
  const updated = await ok(client, "update_checkout_session", {
    meta: { api_version: API_VERSION, idempotency_key: randomUUID() },
    id: sessionId,
    payload: { buyer: { email } },
  });
  expectValid(updated.data, "checkout#/$defs/CheckoutSession");
  expect(updated.data.status).toBe("ready_for_payment");
  const total: number = updated.data.totals.find((t: { type: string }) => t.type === "total").amount;
  expect(total).toBeGreaterThan(0);

  // Vault a test card for exactly this session and amount.
  const token = await ok(client, "delegate_payment", {
    meta: { api_version: API_VERSION, idempotency_key: randomUUID() },
    payload: delegateBody(sessionId, total, updated.data.currency),
  });
  expectValid(token.data, "delegate#/$defs/DelegatePaymentResponse");
  expect(token.data.id).toMatch(/^vt_/);

  // Complete: the order carries the license key.
  const handler = (updated.data.capabilities?.payment?.handlers ?? []).find((h: { id: string }) => h.id === "test_card")?.id ?? "test_card";
  const completed = await ok(client, "complete_checkout_session", {
    meta: { api_version: API_VERSION, idempotency_key: randomUUID() },
    id: sessionId,
    payload: { payment_data: { handler_id: handler, instrument: { type: "card", credential: { type: "vt", token: token.data.id } } } },
  });
  expectValid(completed.data, "checkout#/$defs/CheckoutSessionWithOrder");
  expect(completed.data.status).toBe("completed");
  const delivery = completed.data.order.fulfillments[0].digital_delivery;
  expect(delivery).toMatchObject({ license_key: expect.stringMatching(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/), plugin_id: product!.plugin_id });
  const key: string = delivery.license_key;

  // Use the license on a machine.
  const machine = "d".repeat(64);
  const activated = await ok(client, "activate_license", { license_key: key, machine_fingerprint: machine, plugin_id: product!.plugin_id });
  expect(activated.data).toMatchObject({ activated: true, code: "ACTIVATED" });
  const validated = await ok(client, "validate_license", { license_key: key, machine_fingerprint: machine, plugin_id: product!.plugin_id });
  expect(validated.data).toMatchObject({ valid: true, machine_bound: true });

  // Prove the purchase and check the proof.
  const receipt = await ok(client, "get_receipt", { license_key: key });
  expect(receipt.data.receipt).toMatchObject({ license_key: key, buyer_email: email, product_id: product!.id });
  const verified = await ok(client, "verify_receipt", { receipt: receipt.data.receipt, signature: receipt.data.signature });
  expect(verified.data).toMatchObject({ valid: true, still_active: true });

  // Release the machine; validation then says it is not bound any more.
  const released = await ok(client, "deactivate_license", { license_key: key, machine_fingerprint: machine });
  expect(released.data).toMatchObject({ deactivated: true });
  const after = await ok(client, "validate_license", { license_key: key, machine_fingerprint: machine, plugin_id: product!.plugin_id });
  expect(after.data.machine_bound).toBe(false);

  // The session stays completed, with the same order, when the agent looks again.
  const again = await ok(client, "get_checkout_session", { meta: { api_version: API_VERSION }, id: sessionId });
  expectValid(again.data, "checkout#/$defs/CheckoutSessionWithOrder");
  expect(again.data.order.fulfillments[0].digital_delivery.license_key).toBe(key);
  await client.close();
});
