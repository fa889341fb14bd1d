import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as openapi } from "@/app/openapi.json/route";
import { GET as products } from "@/app/api/v1/products/route";
import { GET as payouts } from "@/app/api/v1/payouts/route";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { setLicenseStatus } from "@/lib/licensing/set-license-status";
import { operations } from "@/lib/operations/index";
import { idempotencyOf } from "@/lib/operations/guarantees";
import { refundOrder } from "@/lib/refunds/refund-order";
import { simulateTestDispute } from "@/lib/refunds/test-disputes";
import { ingestArtifact } from "@/lib/releases/ingest";
import { createRelease, publishRelease, yankRelease } from "@/lib/releases/manage";
import { SELLER_EVENT_TYPES } from "@/lib/seller-webhooks/events";
import { call, expectProblem } from "../helpers/http";
import { fingerprint } from "../helpers/licenses";
import { createTestProduct, sellingDeveloper } from "../helpers/sellers";

/**
 * /openapi.json as a strict client reads it: what the service POSTs to others (`webhooks`: every seller event type of
 * the catalogue and the ACP order events, each payload schema checked against real queued payloads), the ACP
 * `API-Version` header on every ACP operation, `Idempotency-Key` wherever execute() honours one, the seller API's
 * challenge on every 401 (a request with no credentials at all included), and the document passing an OpenAPI 3.1
 * validator (@redocly/cli lint, its recommended rules, configured in redocly.yaml).
 */

const BASE = "http://localhost:3000";
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const saved = { UPLOAD_DIR: process.env.UPLOAD_DIR, PAYMENTS: process.env.PAYMENTS };

let doc: any;
let text = "";
beforeAll(async () => {
  process.env.UPLOAD_DIR = mkdtempSync(join(tmpdir(), "openapi-uploads-"));
  process.env.PAYMENTS = "test";
  resetEnv();
  const r = await call(openapi, "/openapi.json");
  expect(r.status).toBe(200);
  doc = r.body;
  text = r.text;
});
afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = v;
  }
  resetEnv();
  await disconnectDb();
});

const httpOps = () => operations().filter((op) => op.http);
const opOf = (path: string, method: string) => doc.paths[path]?.[method.toLowerCase()];
const headerParams = (op: any) => (op.parameters ?? []).map((p: any) => (p.$ref ? doc.components.parameters[p.$ref.split("/").pop()] : p));

describe("webhooks", () => {
  it("has one entry per seller event type of the catalogue, the test event and the two ACP order events", () => {
    const names = Object.keys(doc.webhooks);
    expect(names.length).toBeGreaterThanOrEqual(8);
    expect(names.sort()).toEqual([...SELLER_EVENT_TYPES, "webhook.test", "order_create", "order_update"].sort());
    for (const type of SELLER_EVENT_TYPES) {
      const post = doc.webhooks[type].post;
      const schema = post.requestBody.content["application/json"].schema;
      expect(schema.properties.type.const, type).toBe(type);
      expect(schema.required).toEqual(["type", "timestamp", "data"]);
      expect(headerParams(post).map((p: any) => p.name)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
    }
    for (const type of ["order_create", "order_update"]) {
      const post = doc.webhooks[type].post;
      expect(headerParams(post).map((p: any) => p.name)).toContain("Merchant-Signature");
      expect(post.requestBody.content["application/json"].schema.properties.type.const).toBe(type);
    }
  });

  it("describes every payload the seller's endpoints are sent: real events validate against their entry's schema", async () => {
    const dev = await sellingDeveloper(`openapi-${run}@example.com`, { name: `Spec Studio ${run}`, website: null, bio: "" });
    const product = await createTestProduct(dev.id, `Spec ${run}`, `com.openapi.spec${run}`);
    await getDb().sellerWebhookEndpoint.create({
      data: { id: `we_spec${run}`, developerId: dev.id, url: "https://93.184.216.34/spec", secret: "whsec_c3BlYw==", events: [] },
    });
    const admin = { email: `openapi-ops-${run}@example.com` };

    const first = await createCheckout({ product_id: product.id, buyer_email: `openapi-buyer-${run}@example.com` });
    await payTestCheckout(first.session_id); // order.paid, license.created
    const license = await getDb().license.findFirstOrThrow({ where: { orderId: first.session_id } });
    await activateMachine({
      license_key: license.key,
      machine_fingerprint: fingerprint(),
      plugin_id: `com.openapi.spec${run}`,
      machine_name: "Spec Mac",
    });
    await setLicenseStatus({ licenseId: license.id, active: false, reason: "Checking the spec" });
    await setLicenseStatus({ licenseId: license.id, active: true });
    await refundOrder({ orderId: first.session_id, amountCents: 100, reason: "Partial", actor: { kind: "operator", email: admin.email } });
    const second = await createCheckout({ product_id: product.id, buyer_email: `openapi-buyer2-${run}@example.com` });
    await payTestCheckout(second.session_id);
    await simulateTestDispute(second.session_id, "open", admin);
    await simulateTestDispute(second.session_id, "lost", admin);
    await createRelease(dev.id, product.id, { version: "1.0.0", notes: "First" });
    await ingestArtifact(dev.id, product.id, "1.0.0", {
      platform: "linux-x64",
      filename: "app.zip",
      stream: Readable.from([Buffer.from("PK\u0003\u0004 an artifact of the spec test")]),
      contentLength: null,
    });
    await publishRelease(dev.id, product.id, "1.0.0");
    await yankRelease(dev.id, product.id, "1.0.0");

    const rows = await getDb().webhookDelivery.findMany({ where: { kind: "seller", targetId: `we_spec${run}` } });
    // Nothing is sent: the target is a public address literal no one listens on.
    await getDb().webhookDelivery.deleteMany({ where: { targetId: `we_spec${run}` } });
    const seen = new Set(rows.map((r) => r.eventType));
    for (const type of [
      "order.paid",
      "order.refunded",
      "license.created",
      "license.activated",
      "license.revoked",
      "license.reinstated",
      "dispute.opened",
      "dispute.closed",
      "release.published",
      "release.yanked",
    ])
      expect(seen, type).toContain(type);

    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const row of rows) {
      const validate = ajv.compile(doc.webhooks[row.eventType].post.requestBody.content["application/json"].schema);
      const body = JSON.parse(row.payload);
      expect(validate(body), `${row.eventType}: ${JSON.stringify(validate.errors)}\n${row.payload}`).toBe(true);
      // The schema is not looser than the payload: a missing field of data is refused.
      const [firstKey] = Object.keys(body.data);
      const { [firstKey!]: _dropped, ...rest } = body.data;
      expect(validate({ ...body, data: rest }), `${row.eventType} without ${firstKey}`).toBe(false);
    }
  });
});

describe("parameters", () => {
  it("declares API-Version, required, on every ACP operation", () => {
    const acp = httpOps().filter((op) => op.http!.errorFormat === "acp" || op.http!.path.startsWith("/api/acp/"));
    expect(acp.length).toBeGreaterThanOrEqual(6);
    for (const op of acp) {
      const version = headerParams(opOf(op.http!.path, op.http!.method)).find((p: any) => p.name === "API-Version");
      expect(version, op.id).toMatchObject({ in: "header", required: true, schema: { enum: ["2026-04-17"] } });
    }
  });

  it("declares Idempotency-Key exactly where execute() honours one, required where it is required", () => {
    let honoured = 0;
    for (const op of httpOps()) {
      const key = headerParams(opOf(op.http!.path, op.http!.method)).find((p: any) => p.name === "Idempotency-Key");
      const expected = idempotencyOf(op);
      if (expected) honoured++;
      if (expected) expect(key, op.id).toMatchObject({ in: "header", required: expected === "required" });
      else expect(key, op.id).toBeUndefined();
    }
    expect(honoured).toBeGreaterThan(20);
  });
});

describe("the seller API's 401", () => {
  it("is declared with WWW-Authenticate on every seller operation", () => {
    const seller = httpOps().filter((op) => op.auth === "seller");
    expect(seller.length).toBeGreaterThan(20);
    for (const op of seller) {
      const answer = opOf(op.http!.path, op.http!.method).responses["401"];
      expect(answer, op.id).toBeDefined();
      expect(answer.headers["WWW-Authenticate"].$ref, op.id).toBe("#/components/headers/SellerChallenge");
      expect(answer.description).toContain("Authorization: Bearer ilmsk_");
    }
    expect(doc.components.headers.SellerChallenge.description).toContain("resource_metadata");
  });

  it("answers a request with no credentials with the challenge and words a token client can act on", async () => {
    const reply = await call(products, "/api/v1/products");
    expectProblem(reply, 401, "unauthorized");
    const challenge = reply.headers.get("www-authenticate") ?? "";
    expect(challenge).toBe(`Bearer realm="seller", resource_metadata="${BASE}/.well-known/oauth-protected-resource"`);
    expect(reply.body.detail).toContain("Authorization: Bearer ilmsk_");
    expect(reply.body.detail).toContain(`${BASE}/dashboard/api-tokens`);
  });

  it("answers an Authorization header that holds no seller token as invalid_token, with the challenge", async () => {
    for (const authorization of ["Basic dXNlcjpwYXNz", "Bearer acpk_not-a-seller-token"]) {
      const reply = await call(products, "/api/v1/products", { headers: { authorization } });
      expectProblem(reply, 401, "invalid_token");
      const challenge = reply.headers.get("www-authenticate") ?? "";
      expect(challenge).toContain('error="invalid_token"');
      expect(challenge).toContain(`resource_metadata="${BASE}/.well-known/oauth-protected-resource"`);
    }
  });

  it("on a session-only operation says the dashboard's session is needed, with the challenge", async () => {
    const reply = await call(payouts, "/api/v1/payouts");
    expectProblem(reply, 401, "unauthorized");
    expect(reply.headers.get("www-authenticate")).toContain("resource_metadata=");
    expect(reply.body.detail).toMatch(/session only/);
  });
});

describe("validation", () => {
  it("gives every operation a 2xx answer, but the downloads' 302 (the one warning redocly.yaml turns off for them)", () => {
    for (const op of httpOps()) {
      const codes = Object.keys(opOf(op.http!.path, op.http!.method).responses);
      if (op.http!.redirect) expect(codes, op.id).toContain("302");
      else
        expect(
          codes.some((c) => /^2\d\d$/.test(c)),
          op.id,
        ).toBe(true);
    }
  });

  it("passes @redocly/cli lint (OpenAPI 3.1, recommended rules) with no error and no warning", () => {
    const dir = mkdtempSync(join(tmpdir(), "openapi-contract-"));
    const file = join(dir, "openapi.json");
    writeFileSync(file, text);
    const lint = spawnSync("npx", ["--no-install", "redocly", "lint", file, "--format=json", "--config", join(process.cwd(), "redocly.yaml")], {
      encoding: "utf8",
      timeout: 120_000,
    });
    const report = JSON.parse(lint.stdout.slice(lint.stdout.indexOf("{")));
    const problems = report.problems.map((p: any) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);
    expect(problems).toEqual([]);
    expect(lint.status).toBe(0);
  });
});
