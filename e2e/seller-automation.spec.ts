import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { Webhook } from "standardwebhooks";
import { expect, test, type Page } from "@playwright/test";
import { connectTestPayouts } from "./support/payouts";
import { dropDatabase, freshDatabase, PG_ADMIN, startApp, type AppProcess } from "./support/servers";
import { signIn } from "./support/sign-in";
import { fillSupportAndRefunds } from "./support/seller-profile";

// The seller's CI against the production server: a token made on the dashboard's API tokens page, then a script that
// knows only that token and /openapi.json creates a product, publishes a release, gives a license away and revokes it,
// while two webhook receivers (local HTTP servers) check every delivery's Standard Webhooks signature.
test.describe.configure({ mode: "serial", timeout: 240_000 });

const PORT = 3280;
const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
const sha256 = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");

/** A webhook receiver: verifies each delivery with the endpoint's secret, records it, and answers what `answer` says. */
interface Received {
  id: string;
  type: string;
  at: number;
  verified: boolean;
  body: string;
}
async function startReceiver(answer: (id: string, attempt: number) => number) {
  const received: Received[] = [];
  const state = { secret: "" };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const id = String(req.headers["webhook-id"] ?? "");
      let verified = false;
      let type = "";
      try {
        const event = new Webhook(state.secret).verify(body, headersOf(req.headers)) as { type: string };
        verified = true;
        type = event.type;
      } catch {
        verified = false;
      }
      received.push({ id, type, at: Date.now(), verified, body });
      const status = verified ? answer(id, received.filter((r) => r.id === id).length) : 400;
      res.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "ok" : "not now");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    state,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
const headersOf = (h: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(Object.entries(h).flatMap(([k, v]) => (typeof v === "string" ? [[k, v]] : [])));

function chunked(bytes: Buffer): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(new Uint8Array(bytes.subarray(offset, offset + 16 * 1024)));
      offset += 16 * 1024;
    },
  });
}

/**
 * The seller's CI script: it knows the server's address and a token, and finds every operation in /openapi.json by
 * its operationId (no path is written here).
 */
async function sellerApi(base: string, token: string) {
  const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId?: string }>> };
  const ops = new Map<string, { method: string; path: string }>();
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) if (op.operationId) ops.set(op.operationId, { method: method.toUpperCase(), path });
  return async function call(
    operationId: string,
    opts: { params?: Record<string, string>; query?: Record<string, string>; json?: unknown; bytes?: Buffer; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: any; headers: Headers }> {
    const op = ops.get(operationId);
    if (!op) throw new Error(`${operationId} is not in /openapi.json`);
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(opts.params?.[name] ?? `{${name}}`));
    const qs = opts.query ? `?${new URLSearchParams(opts.query).toString()}` : "";
    const res = await fetch(`${base}${path}${qs}`, {
      method: op.method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(opts.json !== undefined ? { "content-type": "application/json" } : {}),
        ...(opts.bytes ? { "content-type": "application/octet-stream" } : {}),
        ...opts.headers,
      },
      // Files go up as a stream of chunks (chunked transfer encoding), as a pipeline uploads a large build.
      ...(opts.bytes ? { body: chunked(opts.bytes), duplex: "half" } : opts.json !== undefined ? { body: JSON.stringify(opts.json) } : {}),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return { status: res.status, body, headers: res.headers };
  };
}

test.describe("a seller automates with an API token", () => {
  const dbName = `ilm_seller_ci_${run}`;
  let app: AppProcess;
  let sql: pg.Client;
  let token = "";
  // The seller's browser, signed in once for the whole run.
  let dashboard: { page: Page; close: () => Promise<void> } | undefined;
  // Every event it subscribes to; answers 200.
  let good: Awaited<ReturnType<typeof startReceiver>>;
  // Only release.published; answers 500 to the first three attempts of each message, then 200.
  let flaky: Awaited<ReturnType<typeof startReceiver>>;

  test.beforeAll(async () => {
    good = await startReceiver(() => 200);
    flaky = await startReceiver((_id, attempt) => (attempt <= 3 ? 500 : 200));
    const dbUrl = await freshDatabase(PG_ADMIN, dbName);
    app = await startApp(PORT, {
      DATABASE_URL: dbUrl,
      BASE_URL: `http://127.0.0.1:${PORT}`,
      PAYMENTS: "test",
      SEED_DEMO: "off",
      // The receivers listen on 127.0.0.1, which a production deployment refuses unless the operator allows it.
      WEBHOOK_ALLOW_PRIVATE: "on",
    });
    sql = new pg.Client({ connectionString: dbUrl });
    await sql.connect();
  });

  test.afterAll(async () => {
    const maybe = <T>(v: T) => v as T | undefined;
    await dashboard?.close();
    await maybe(sql)?.end();
    await maybe(app)?.stop();
    await maybe(good)?.close();
    await maybe(flaky)?.close();
    await dropDatabase(PG_ADMIN, dbName);
  });

  test("the seller creates a token on the dashboard: shown once, then only its first characters", async ({ browser }) => {
    const context = await browser.newContext({ baseURL: app.url });
    const page = await context.newPage();
    dashboard = { page, close: () => context.close() };
    await signIn(page, `e2e-ci-${run}@example.com`);
    await page.getByLabel("Developer or studio name").fill(`CI Studio ${run}`);
    await fillSupportAndRefunds(page);
    await page.getByRole("button", { name: "Create profile" }).click();
    await expect(page).toHaveURL(/\/dashboard\?notice=welcome$/);
    await connectTestPayouts(page);

    await page.goto("/dashboard/api-tokens");
    await expect(page.getByRole("heading", { name: "API tokens", level: 1 })).toBeVisible();
    await page.getByLabel("Name", { exact: true }).fill("GitHub Actions");
    for (const scope of [/^Products and coupons/, /^Releases/, /^Licenses/, /^Webhooks/]) await page.getByRole("checkbox", { name: scope }).check();
    await page.getByLabel("Expires").selectOption("30");
    await page.getByRole("button", { name: "Create token" }).click();

    const shown = page.getByTestId("new-api-token");
    await expect(shown).toHaveText(/^ilmsk_[A-Za-z0-9_-]{43}$/);
    token = (await shown.textContent())!.trim();
    await expect(page.getByText("you won't see it again", { exact: false })).toBeVisible();
    await expect(page.getByRole("heading", { name: /Your new token/ })).toBeFocused();
    await expect(page.getByRole("button", { name: "Copy API token" })).toBeVisible();

    // The list has it, by its first characters; after a reload the token itself is nowhere on the page.
    const row = page.getByRole("row", { name: /GitHub Actions/ });
    await expect(row).toContainText(token.slice(0, 12));
    await expect(row).toContainText("Active");
    await page.reload();
    expect(await page.content()).not.toContain(token);
    await expect(page.getByRole("row", { name: /GitHub Actions/ })).toContainText("Never");

    // Stored as its hash only.
    const { rows } = await sql.query(`SELECT * FROM "SellerToken"`);
    expect(rows).toHaveLength(1);
    expect(rows[0].tokenHash).toBe(sha256(token));
    expect(JSON.stringify(rows[0])).not.toContain(token);
  });

  test("the CI script, with only the token and /openapi.json, publishes and licenses; each event arrives once, signed", async () => {
    expect(token).not.toBe("");
    const api = await sellerApi(app.url, token);

    // Webhooks first, so every later event is delivered.
    const hook = await api("createWebhookEndpoint", { json: { url: good.url, description: "CI receiver" } });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    good.state.secret = hook.body.endpoint.secret;
    const flakyHook = await api("createWebhookEndpoint", { json: { url: flaky.url, description: "Flaky receiver", events: ["release.published"] } });
    expect(flakyHook.status, JSON.stringify(flakyHook.body)).toBe(201);
    flaky.state.secret = flakyHook.body.endpoint.secret;
    expect(flaky.state.secret).not.toBe(good.state.secret);

    // A product, a release with one artifact (streamed), published.
    const product = await api("createSellerProduct", {
      json: {
        name: `CI App ${run}`,
        tagline: "Shipped by a pipeline.",
        description: "A desktop app whose releases are published by the seller's CI with an API token.",
        plugin_id: `com.e2e.ci${run}`,
        price_cents: 1900,
        category: "desktop-apps",
        max_machines: 2,
        seat_model: "per-machine",
        platforms: ["linux"],
        download_url: "https://example.com/ci.zip",
        icon_url: "/icons/tape-warmth.svg",
      },
    });
    expect(product.status, JSON.stringify(product.body)).toBe(201);
    const productId: string = product.body.product.id;
    const release = await api("createRelease", { params: { id: productId }, json: { version: "1.0.0", notes: "First release from CI." } });
    expect(release.status, JSON.stringify(release.body)).toBe(201);
    const bytes = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), randomBytes(64 * 1024)]);
    const artifact = await api("uploadArtifact", {
      params: { id: productId, version: "1.0.0" },
      query: { platform: "linux-x64", filename: "ci-app-1.0.0-linux.zip" },
      bytes,
      headers: { "x-checksum-sha256": sha256(bytes) },
    });
    expect(artifact.status, JSON.stringify(artifact.body)).toBe(201);
    expect(artifact.body).toMatchObject({ size: bytes.length, sha256: sha256(bytes) });
    const published = await api("publishRelease", { params: { id: productId, version: "1.0.0" } });
    expect(published.status, JSON.stringify(published.body)).toBe(200);

    // A complimentary license, then revoked.
    const issued = await api("issueComplimentaryLicense", { json: { product_id: productId, buyer_email: `e2e-ci-friend-${run}@example.com` } });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    const licenseId: string = issued.body.license.id;
    const revoked = await api("revokeLicense", { params: { id: licenseId }, json: { reason: "Given by mistake" } });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(revoked.body.license.status).toBe("revoked");

    // The token reaches no further than its scopes: no refunds, no payouts, no tokens.
    expect((await api("getPayoutAccount")).body.code).toBe("session_required");
    expect((await api("createSellerToken", { json: { name: "Escalate", scopes: ["orders"] } })).body.code).toBe("session_required");

    // The good receiver: every delivery of its endpoint sent (the receiver recorded each before answering 200)...
    const endpointId: string = hook.body.endpoint.id;
    await expect
      .poll(
        async () => {
          const list = await api("listEndpointDeliveries", { params: { id: endpointId }, query: { limit: "100" } });
          const deliveries = list.body.deliveries as Array<{ event_type: string; status: string }>;
          return deliveries.map((d) => `${d.event_type}:${d.status}`).sort();
        },
        { timeout: 60_000 },
      )
      .toEqual(["license.created:sent", "license.revoked:sent", "release.published:sent"]);
    // ...each verified with the standardwebhooks library, and each event exactly once by its webhook-id.
    expect(good.received.every((r) => r.verified)).toBe(true);
    const ids = good.received.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(good.received.map((r) => r.type).sort()).toEqual(["license.created", "license.revoked", "release.published"]);
    const byType = Object.fromEntries(good.received.map((r) => [r.type, JSON.parse(r.body) as { type: string; data: Record<string, any> }]));
    expect(JSON.stringify(byType["release.published"]!.data)).toContain("1.0.0");
    expect(JSON.stringify(byType["license.created"]!.data)).toContain(licenseId);
    expect(JSON.stringify(byType["license.revoked"]!.data)).toContain(licenseId);
    // The license's own history says who did it: the token, by name.
    const events = await api("listLicenseEvents", { params: { id: licenseId } });
    expect(events.status).toBe(200);
    expect(JSON.stringify(events.body)).toContain("token:GitHub Actions");

    // The flaky receiver: its one delivery (release.published) fails three times, with growing waits between
    // attempts, then succeeds. The test moves each scheduled retry into the present instead of waiting 10 s, 1 min
    // and 5 min; the schedule itself is read before each move.
    const flakyId: string = flakyHook.body.endpoint.id;
    const delivery = async () => {
      const list = await api("listEndpointDeliveries", { params: { id: flakyId } });
      const [only, ...more] = list.body.deliveries as Array<{
        id: string;
        event_type: string;
        status: string;
        attempts: number;
        next_attempt_at: string | null;
      }>;
      expect(more).toHaveLength(0);
      return only!;
    };
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      await expect.poll(async () => (await delivery()).attempts, { timeout: 30_000 }).toBe(attempt);
      const d = await delivery();
      expect(d).toMatchObject({ event_type: "release.published", status: "pending" });
      const detail = await api("getWebhookDelivery", { params: { delivery_id: d.id } });
      const last = (detail.body.delivery.attempt_log as Array<{ attempt: number; at: string; status: number | null }>).find(
        (a) => a.attempt === attempt,
      )!;
      expect(last.status).toBe(500);
      delays.push(Date.parse(d.next_attempt_at!) - Date.parse(last.at));
      await sql.query(`UPDATE "WebhookDelivery" SET "nextAttemptAt" = now() - interval '1 second' WHERE id = $1 AND attempts = $2`, [d.id, attempt]);
    }
    await expect.poll(async () => (await delivery()).status, { timeout: 30_000 }).toBe("sent");
    const final = await api("getWebhookDelivery", { params: { delivery_id: (await delivery()).id } });
    expect((final.body.delivery.attempt_log as Array<{ status: number | null }>).map((a) => a.status)).toEqual([500, 500, 500, 200]);
    expect(delays[0]).toBeGreaterThan(5_000);
    expect(delays[1]).toBeGreaterThan(delays[0]!);
    expect(delays[2]).toBeGreaterThan(delays[1]!);
    // The same message every time (one webhook-id), each attempt signed; nothing it did not subscribe to.
    expect(new Set(flaky.received.map((r) => r.id)).size).toBe(1);
    expect(flaky.received).toHaveLength(4);
    expect(flaky.received.every((r) => r.verified && r.type === "release.published")).toBe(true);
    const attemptRows = await sql.query(`SELECT attempt, status FROM "WebhookAttempt" WHERE "deliveryId" = $1 ORDER BY attempt`, [
      flaky.received[0]!.id,
    ]);
    expect(attemptRows.rows.map((r: { status: number }) => r.status)).toEqual([500, 500, 500, 200]);
  });

  test("the token's last use shows on the dashboard, and revoking it there (after a confirmation) stops the script", async () => {
    const page = dashboard!.page;
    await page.goto("/dashboard/api-tokens");
    const row = page.getByRole("row", { name: /GitHub Actions/ });
    // When (a time, where it said "Never" before) and from where.
    await expect(row).toContainText("UTC");
    await expect(row).toContainText(/from (127\.0\.0\.1|::1)/);
    await row.locator("summary").click();
    await row.getByRole("button", { name: /Revoke token/ }).click();
    await expect(page).toHaveURL(/done=revoked/);
    await expect(page.getByRole("row", { name: /GitHub Actions/ })).toContainText("Revoked");
    const api = await sellerApi(app.url, token);
    const refused = await api("listSellerProducts");
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe("token_revoked");
    expect(refused.headers.get("www-authenticate")).toContain("resource_metadata=");
  });
});
