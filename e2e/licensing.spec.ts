import { createHash } from "node:crypto";
import { expect, test } from "@playwright/test";

// The licensing path as an app sees it, against the production server: trial key (by e-mail) → activate → validate → receipt.
test("a licensed app activates and validates a key; anyone can verify its receipt", async ({ request }) => {
  const { products } = await (await request.get("/api/marketplace/listings?limit=50")).json();
  const product = products.find((p: { trial_available: boolean }) => p.trial_available);
  const email = `e2e-${Date.now()}@example.com`;
  const started = await request.post("/api/trials", { data: { product_id: product.id, buyer_email: email } });
  expect(started.status()).toBe(202);
  const answer = await started.text();
  expect(JSON.parse(answer)).toMatchObject({ accepted: true, trial: true, product_id: product.id });
  // The key goes to the address only: it is read from the (development) mailbox, never from the answer.
  let key = "";
  await expect
    .poll(
      async () => {
        const { messages } = await (await request.get(`/api/dev/mailbox?to=${encodeURIComponent(email)}`)).json();
        const mail = (messages as Array<{ kind: string; text: string }>).find((m) => m.kind === "trial");
        key = /\b[0-9A-Z]{4}(?:-[0-9A-Z]{4}){3}\b/.exec(mail?.text ?? "")?.[0] ?? "";
        return key;
      },
      { timeout: 10_000 },
    )
    .toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
  expect(answer).not.toContain(key);
  const trial = { license_key: key };

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
