import { createHash } from "node:crypto";
import { expect, test } from "@playwright/test";

// The licensing path as an app sees it, against the production server: trial key → activate → validate → receipt.
test("a licensed app activates and validates a key; anyone can verify its receipt", async ({ request }) => {
  const { products } = await (await request.get("/api/marketplace/listings?limit=50")).json();
  const product = products.find((p: { trial_available: boolean }) => p.trial_available);
  const trial = await (await request.post("/api/trials", { data: { product_id: product.id, buyer_email: `e2e-${Date.now()}@example.com` } })).json();
  expect(trial.license_key).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);

  const fp = createHash("sha256").update("Intel(R) Core(TM) i7|linux-e2e").digest("hex");
  const body = { license_key: trial.license_key, machine_fingerprint: fp, plugin_id: product.plugin_id };
  const activated = await (await request.post("/activate", { data: body })).json();
  expect(activated).toMatchObject({ activated: true, machine_fingerprint: fp, code: "ACTIVATED" });

  const validation = await request.post("/validate", { data: body });
  expect(validation.headers()["link"]).toContain('rel="mcp"');
  expect(await validation.json()).toMatchObject({ valid: true, machine_bound: true, trial: true, trial_days_remaining: product.trial_days });

  const signed = await (await request.get(`/api/receipt?key=${trial.license_key}`)).json();
  const verified = await (await request.post("/api/receipt", { data: { receipt: signed.receipt, signature: signed.signature } })).json();
  expect(verified).toMatchObject({ valid: true, still_active: true });

  const released = await (await request.post("/deactivate", { data: { license_key: trial.license_key, machine_fingerprint: fp } })).json();
  expect(released).toMatchObject({ deactivated: true });

  const did = await request.get("/.well-known/did.json");
  expect(did.headers()["content-type"]).toContain("application/did+json");
  expect((await did.json()).id).toMatch(/^did:web:localhost%3A\d+$/);
});
