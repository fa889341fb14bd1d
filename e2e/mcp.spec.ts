import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test } from "@playwright/test";

// The MCP purchase with the buyer paying in a browser page. The rest of MCP over HTTP (initialize, the SDK client,
// bad arguments, the inspector CLI) runs in process: tests/integration/mcp-http.test.ts.

async function connect(baseURL: string) {
  const client = new Client({ name: "e2e-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", baseURL)));
  return client;
}

test("MCP: an agent buys a license with agent_checkout and follows it up", async ({ baseURL, page }) => {
  const client = await connect(baseURL!);
  const browse = await client.callTool({ name: "browse_marketplace", arguments: { query: "tape", limit: 1 } });
  const product = (browse.structuredContent as { products: Array<{ id: string; plugin_id: string }> }).products[0]!;
  const email = `mcp-buyer-${Date.now()}@example.com`;
  const checkout = await client.callTool({
    name: "agent_checkout",
    arguments: { product_id: product.id, buyer_email: email, agent_id: "e2e-mcp-agent" },
  });
  expect(checkout.isError).toBeFalsy();
  const session = checkout.structuredContent as { url: string; session_id: string; status_url: string };
  expect(session.url).toContain(`/checkout/${session.session_id}`);

  await page.goto(session.url);
  await page.getByRole("button", { name: /^pay/i }).click();
  await expect(page.getByTestId("license-key")).toBeVisible();

  // The agent follows up over MCP too: get_checkout_status carries the key once paid (as GET status_url does).
  const followUp = await client.callTool({ name: "get_checkout_status", arguments: { session_id: session.session_id } });
  const status = followUp.structuredContent as { license: { license_key: string } };
  expect(status).toMatchObject({ status: "paid", agent_id: "e2e-mcp-agent", license: { delivered_to: email } });
  expect((await (await fetch(session.status_url)).json()).license.license_key).toBe(status.license.license_key);
  const key = status.license.license_key;
  const check = await client.callTool({ name: "check_license_status", arguments: { license_key: key, plugin_id: product.plugin_id } });
  expect(check.structuredContent).toMatchObject({ valid: true, is_active: true });
  const receipt = await client.callTool({ name: "get_receipt", arguments: { license_key: key } });
  const signed = receipt.structuredContent as { receipt: object; signature: string };
  const verified = await client.callTool({ name: "verify_receipt", arguments: { receipt: signed.receipt, signature: signed.signature } });
  expect(verified.structuredContent).toMatchObject({ valid: true, still_active: true });
  await client.close();
});
