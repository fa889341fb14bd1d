import { createHash } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { disconnectDb } from "@/lib/db";
import { startAppServer, type AppServer } from "../helpers/app-server";

/**
 * The licensing path as an app sees it, over HTTP against the service in this process (tests/helpers/app-server.ts:
 * server.ts's front door, lean path and route files): trial key (by e-mail) → activate → validate → receipt.
 * (Moved from the browser suite, which needed no browser for it.)
 */
let app: AppServer;
beforeAll(async () => {
  app = await startAppServer();
});
afterAll(async () => {
  await app.close();
  await disconnectDb();
});

it("a licensed app activates and validates a key; anyone can verify its receipt", async () => {
  // The first product with a trial, page by page: other test files list products of their own on this database.
  type Listed = { id: string; plugin_id: string; trial_days: number; trial_available: boolean };
  let product: Listed | undefined;
  for (let page: number | null = 1; page !== null && !product;) {
    const listing: { products: Listed[]; next_page: number | null } = (await app.get(`/api/marketplace/listings?limit=50&page=${page}`)).body;
    product = listing.products.find((p) => p.trial_available);
    page = listing.next_page;
  }
  if (!product) throw new Error("no listed product offers a trial");
  const email = `e2e-${Date.now()}@example.com`;
  const started = await app.post("/api/trials", { product_id: product.id, buyer_email: email });
  expect(started.status).toBe(202);
  const answer = started.text;
  expect(JSON.parse(answer)).toMatchObject({ accepted: true, trial: true, product_id: product.id });
  // The key goes to the address only: it is read from the (development) mailbox, never from the answer.
  let key = "";
  await expect
    .poll(
      async () => {
        const { messages } = (await app.get(`/api/dev/mailbox?to=${encodeURIComponent(email)}`)).body;
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
  const activated = (await app.post("/activate", body)).body;
  expect(activated).toMatchObject({ activated: true, machine_fingerprint: fp, code: "ACTIVATED" });

  const validation = await app.post("/validate", body);
  expect(validation.headers.get("link")).toContain('rel="mcp"');
  expect(validation.body).toMatchObject({ valid: true, machine_bound: true, trial: true, trial_days_remaining: product.trial_days });

  const signed = (await app.get(`/api/receipt?key=${trial.license_key}`)).body;
  const verified = (await app.post("/api/receipt", { receipt: signed.receipt, signature: signed.signature })).body;
  expect(verified).toMatchObject({ valid: true, still_active: true });

  const released = (await app.post("/deactivate", { license_key: trial.license_key, machine_fingerprint: fp })).body;
  expect(released).toMatchObject({ deactivated: true });

  const did = await app.get("/.well-known/did.json");
  expect(did.headers.get("content-type")).toContain("application/did+json");
  expect(did.body.id).toMatch(/^did:web:localhost%3A\d+$/);
});
