import { createHash, randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { disconnectDb } from "@/lib/db";
import { acpSchemaErrors, delegateBody } from "../helpers/acp-protocol";
import { startAppServer, type AppServer } from "../helpers/app-server";

/**
 * An agent buys and uses a license over the Agentic Commerce Protocol's REST binding alone, with plain HTTP (no
 * browser page): discovery → create a checkout session → give the buyer → delegate a test card → complete → the
 * license key from the order → activate → validate → the receipt → verify it → deactivate. Every ACP answer is checked
 * against the official JSON Schemas (vendored from the 2026-04-17 release in tests/fixtures/acp-2026-04-17). Against the
 * service in this process (tests/helpers/app-server.ts: server.ts's front door, lean path and route files); moved
 * from the browser suite, which needed no browser for it.
 */
let app: AppServer;
beforeAll(async () => {
  app = await startAppServer();
});
afterAll(async () => {
  await app.close();
  await disconnectDb();
});
type Request = AppServer["request"];
const VERSION = "2026-04-17";
function expectValid(body: unknown, ref: string): void {
  const errors = acpSchemaErrors(body, ref);
  expect(errors, `${ref}: ${errors}\n${JSON.stringify(body).slice(0, 1500)}`).toBeNull();
}

/** One ACP POST with the headers the protocol requires; checks the status (and the Request-Id echo) and returns the JSON body. */
async function acp(request: Request, url: string, data: unknown, status: number, echoes = true): Promise<any> {
  const requestId = randomUUID();
  const r = await request.post(url, {
    data,
    headers: { "API-Version": VERSION, "Idempotency-Key": randomUUID(), "Request-Id": requestId, "Content-Type": "application/json" },
  });
  expect(r.status(), await r.text()).toBe(status);
  if (echoes) expect(r.headers()["request-id"]).toBe(requestId);
  return r.json();
}

it("ACP over REST: discovery → session → buyer → delegate_payment → complete → key → activate → validate → receipt → verify → deactivate", async () => {
  const request = app.request;
  // Discovery: where the API is and what it speaks.
  const discovery = await request.get("/.well-known/acp.json");
  expect(discovery.status()).toBe(200);
  expect(discovery.headers()["cache-control"]).toBe("public, max-age=3600");
  const doc = await discovery.json();
  expectValid(doc, "checkout#/$defs/DiscoveryResponse");
  expect(doc.protocol.supported_versions).toContain(VERSION);
  expect(doc.transports).toEqual(["rest", "mcp"]);
  expect(doc.capabilities.services).toEqual(expect.arrayContaining(["checkout", "delegate_payment"]));
  const api: string = doc.api_base_url;

  // A per-machine product in dollars from the public listings.
  const listings = await (await request.get("/api/marketplace/listings?sort=price_asc&limit=50")).json();
  const product = listings.products.find((p: { seat_model: string; currency: string }) => p.seat_model === "per-machine" && p.currency === "usd");
  expect(product, "a per-machine product priced in usd").toBeDefined();

  // Create: no buyer yet, so not ready for payment, and the message says what is missing.
  const created = await acp(
    request,
    `${api}/checkout_sessions`,
    { line_items: [{ id: product.id }], currency: "usd", capabilities: { interventions: { supported: [] } } },
    201,
  );
  expectValid(created, "checkout#/$defs/CheckoutSession");
  expect(created.status).toBe("not_ready_for_payment");
  expect(created.messages).toEqual(expect.arrayContaining([expect.objectContaining({ type: "error", code: "missing", param: "$.buyer.email" })]));
  const id: string = created.id;

  // The buyer's e-mail: ready for payment; the handler to pay with comes from the session's capabilities.
  const buyer = `acp-rest-${Date.now()}@e2e.example.com`;
  const ready = await acp(request, `${api}/checkout_sessions/${id}`, { buyer: { email: buyer } }, 200);
  expectValid(ready, "checkout#/$defs/CheckoutSession");
  expect(ready.status).toBe("ready_for_payment");
  const handler = ready.capabilities.payment.handlers[0];
  expect(handler).toMatchObject({ id: "test_card", psp: "test", requires_delegate_payment: true });
  const total: number = ready.totals.find((t: { type: string }) => t.type === "total").amount;
  expect(total).toBe(product.price_cents);

  // Delegate a test card for exactly this session and amount.
  const token = await acp(request, `${api}/agentic_commerce/delegate_payment`, delegateBody(id, total, "usd"), 201);
  expectValid(token, "delegate#/$defs/DelegatePaymentResponse");

  // Complete: the order carries the key.
  const done = await acp(
    request,
    `${api}/checkout_sessions/${id}/complete`,
    { payment_data: { handler_id: handler.id, instrument: { type: "card", credential: { type: "vt", token: token.id } } } },
    200,
  );
  expectValid(done, "checkout#/$defs/CheckoutSessionWithOrder");
  expect(done.status).toBe("completed");
  const delivery = done.order.fulfillments[0].digital_delivery;
  const key: string = delivery.license_key;
  expect(key).toMatch(/^[A-Z0-9]{4}(-[A-Z0-9]{4}){3}$/);
  expect(delivery.activation_instructions).toContain("/activate");
  const got = await request.get(`${api}/checkout_sessions/${id}`, { headers: { "API-Version": VERSION } });
  expect(got.status()).toBe(200);
  const again = await got.json();
  expectValid(again, "checkout#/$defs/CheckoutSessionWithOrder");
  expect(again.order.fulfillments[0].digital_delivery.license_key).toBe(key);

  // Use the license: activate, validate, prove it with the receipt and verify it, release the machine.
  const machine = createHash("sha256").update(`acp-rest-e2e-${Date.now()}`).digest("hex");
  const license = { license_key: key, machine_fingerprint: machine, plugin_id: product.plugin_id };
  const activated = await request.post("/activate", { data: license });
  expect(activated.status(), await activated.text()).toBe(200);
  expect(await activated.json()).toMatchObject({ activated: true, code: "ACTIVATED", active_machines: 1 });
  const validated = await request.post("/validate", { data: license });
  expect(await validated.json()).toMatchObject({ valid: true, machine_bound: true, code: "VALID" });

  const receiptReply = await request.get(delivery.receipt_url);
  expect(receiptReply.status(), await receiptReply.text()).toBe(200);
  const receipt = await receiptReply.json();
  expect(receipt.receipt.license_key).toBe(key);
  const verified = await request.post(receipt.verify_url, { data: { receipt: receipt.receipt, signature: receipt.signature } });
  expect(verified.status()).toBe(200);
  expect(await verified.json()).toMatchObject({ valid: true, still_active: true });

  const released = await request.post("/deactivate", { data: { license_key: key, machine_fingerprint: machine } });
  expect(released.status(), await released.text()).toBe(200);
  expect(await released.json()).toMatchObject({ deactivated: true, active_machines: 0 });
  const after = await request.post("/validate", { data: license });
  expect(await after.json()).toMatchObject({ machine_bound: false });

  // The session is done: completing it again is refused with the protocol's error object.
  const twice = await request.post(`${api}/checkout_sessions/${id}/complete`, {
    data: { payment_data: { handler_id: handler.id, instrument: { type: "card", credential: { type: "vt", token: token.id } } } },
    headers: { "API-Version": VERSION, "Idempotency-Key": randomUUID() },
  });
  expect(twice.status()).toBe(409);
  const error = await twice.json();
  expectValid(error, "checkout#/$defs/Error");
  expect(error.code).toBe("checkout_session_completed");
});
