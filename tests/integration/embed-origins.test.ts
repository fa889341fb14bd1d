import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as listRoute, POST as addRoute } from "@/app/api/v1/embed-origins/route";
import { DELETE as removeRoute } from "@/app/api/v1/embed-origins/[id]/route";
import { POST as verifyRoute } from "@/app/api/v1/embed-origins/[id]/verify/route";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { disconnectDb, getDb } from "@/lib/db";
import { EMBED_VERIFICATION_PATH } from "@/lib/embed/origins";
import { resetEnv } from "@/lib/env";
import { securityHeaders } from "@/lib/http/security-headers";
import { frontDoor } from "@/lib/transports/front";
import { call, expectProblem } from "../helpers/http";
import { sellerToken } from "../helpers/seller-tokens";
import { createTestProduct, sellingDeveloper } from "../helpers/sellers";

/**
 * The buy button's verified origins, end to end: the /api/v1/embed-origins route handlers with a seller API token,
 * verification against real HTTP servers on this machine serving the well-known file (found, mismatch, 404, too
 * large, a redirect elsewhere, nobody listening, and a loopback address refused without the operator's switch), and
 * the framing headers server.ts's real request listener gives the embeddable checkout pages for verified,
 * unverified and removed origins (Next is a stand-in that sets the headers proxy.ts sets, then answers).
 */

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const saved = {
  WEBHOOK_ALLOW_PRIVATE: process.env.WEBHOOK_ALLOW_PRIVATE,
  RATE_LIMIT_WEBHOOK_SEND_PER_MIN: process.env.RATE_LIMIT_WEBHOOK_SEND_PER_MIN,
  PAYMENTS: process.env.PAYMENTS,
  BASE_URL: process.env.BASE_URL,
  PORT: process.env.PORT,
};

// --- Sites: each a real HTTP server on its own port (an origin of its own), answering what the test set for it.
type Answer = (req: IncomingMessage, res: ServerResponse) => void;
const sites: Server[] = [];
const hits = new Map<string, number>();
async function site(answer: Answer): Promise<string> {
  let origin = "";
  const server = createServer((req, res) => {
    hits.set(origin, (hits.get(origin) ?? 0) + 1);
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  sites.push(server);
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return origin;
}
/** A site serving `body` at the well-known path (and 404 elsewhere). */
const fileSite = (body: () => string, status = 200) =>
  site((req, res) => {
    if (req.url === EMBED_VERIFICATION_PATH) res.writeHead(status, { "content-type": "text/plain" }).end(body());
    else res.writeHead(404).end();
  });

// --- The front door with a stand-in for Next: the headers proxy.ts gives every page, then a plain answer.
let front: Server;
let frontPort = 0;
async function page(path: string): Promise<{ status: number; csp: string; xfo: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: frontPort, path, headers: { host: `localhost:${frontPort}` } }, (res) => {
      res.resume();
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          csp: String(res.headers["content-security-policy"] ?? ""),
          xfo: res.headers["x-frame-options"] as string | undefined,
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}
const ancestors = (csp: string) => /(?:^|;\s*)frame-ancestors ([^;]*)/.exec(csp)?.[1]?.trim();

interface Seller {
  id: string;
  bearer: string;
  product: string;
}
async function newSeller(label: string): Promise<Seller> {
  const id = unique();
  const dev = await sellingDeveloper(`embed-${label}-${id}@example.com`, { name: `Embed ${label} ${id}`, website: null, bio: "" });
  const product = await createTestProduct(dev.id, `Embeddable ${label} ${id}`, `com.embed.${label}${id}`, { price_cents: 1200 });
  return { id: dev.id, bearer: await sellerToken(dev.id, ["products"], { name: `embed ${label}` }), product: product.id };
}
const auth = (s: Seller) => ({ authorization: `Bearer ${s.bearer}` });

async function add(s: Seller, origin: string) {
  return call(addRoute, "/api/v1/embed-origins", { method: "POST", headers: auth(s), json: { origin } });
}
async function added(s: Seller, origin: string) {
  const reply = await add(s, origin);
  expect(reply.status, reply.text).toBe(201);
  return reply.body.origin as { id: string; origin: string; token: string; status: string; verification_url: string };
}
const verify = (s: Seller, id: string) =>
  call(verifyRoute, `/api/v1/embed-origins/${id}/verify`, { method: "POST", headers: auth(s), params: { id } });
const list = async (s: Seller) => {
  const reply = await call(listRoute, "/api/v1/embed-origins", { headers: auth(s) });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.origins as Array<{ id: string; origin: string; status: string; last_error: string | null }>;
};
const remove = (s: Seller, id: string) => call(removeRoute, `/api/v1/embed-origins/${id}`, { method: "DELETE", headers: auth(s), params: { id } });

/** Adds a site that serves its own token, verifies it, and returns it. */
async function verifiedSite(s: Seller): Promise<{ id: string; origin: string }> {
  let token = "";
  const origin = await fileSite(() => `${token}\n`);
  const o = await added(s, origin);
  token = o.token;
  const reply = await verify(s, o.id);
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body.origin.status).toBe("verified");
  return { id: o.id, origin };
}

let a: Seller;
let b: Seller;

beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE = "on";
  process.env.RATE_LIMIT_WEBHOOK_SEND_PER_MIN = "100000";
  process.env.PAYMENTS = "test";
  front = createServer(
    frontDoor((req, res) => {
      // What proxy.ts does for every answer: the path's security headers, framing refused.
      const path = (req.url ?? "/").replace(/\?.*$/s, "");
      for (const [name, value] of Object.entries(securityHeaders(path, { baseUrl: process.env.BASE_URL!, development: false }, "n0nce")))
        res.setHeader(name, value);
      res.writeHead(200, { "content-type": "text/html" }).end("<p>page</p>");
      return Promise.resolve();
    }),
  );
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  frontPort = (front.address() as AddressInfo).port;
  process.env.PORT = String(frontPort);
  process.env.BASE_URL = `http://localhost:${frontPort}`;
  resetEnv();
  a = await newSeller("a");
  b = await newSeller("b");
});

afterAll(async () => {
  for (const s of [...sites, front]) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = v;
  }
  resetEnv();
  await disconnectDb();
});

describe("adding an origin", () => {
  it("normalises it, gives a token, and refuses a duplicate, a path and plain http on a public host", async () => {
    const s = await newSeller("add");
    const o = await added(s, "  HTTPS://Shop-Add.Example.COM:443/ ");
    expect(o).toMatchObject({
      origin: "https://shop-add.example.com",
      status: "pending",
      verification_url: `https://shop-add.example.com${EMBED_VERIFICATION_PATH}`,
    });
    expect(o.token).toMatch(/^ilm-verify-[A-Za-z0-9_-]{32}$/);
    expectProblem(await add(s, "https://shop-add.example.com"), 409, "embed_origin_exists");
    expectProblem(await add(s, "https://shop-add.example.com/store"), 400, "embed_origin_invalid");
    expectProblem(await add(s, "http://shop-add.example.com"), 400, "embed_origin_invalid");
    expectProblem(await add(s, "https://shop\u0000.example.com"), 400, "invalid_body");
    expect((await list(s)).map((x) => x.origin)).toEqual(["https://shop-add.example.com"]);
    // Another seller's origin is not found, for verifying and removing alike.
    expectProblem(await verify(b, o.id), 404, "embed_origin_not_found");
    expectProblem(await remove(b, o.id), 404, "embed_origin_not_found");
    expect(await list(s)).toHaveLength(1);
  });
});

describe("verifying an origin", () => {
  it("found: the file's text, trimmed, is the token", async () => {
    const { id } = await verifiedSite(a);
    expect((await list(a)).find((x) => x.id === id)).toMatchObject({ status: "verified", last_error: null });
  });

  const fails = async (s: Seller, origin: string, reason: string) => {
    const o = await added(s, origin);
    const reply = await verify(s, o.id);
    expectProblem(reply, 422, "embed_origin_unverified");
    expect(reply.body.detail).toContain(`(${reason})`);
    expect((await list(s)).find((x) => x.id === o.id)).toMatchObject({ status: "failed", last_error: reason });
    return o;
  };

  it("mismatch: another token", async () => {
    await fails(a, await fileSite(() => "ilm-verify-someone-elses-token"), "mismatch");
  });

  it("not_found: a 404, and a redirect to another origin", async () => {
    await fails(a, await fileSite(() => "nothing here", 404), "not_found");
    const elsewhere = await fileSite(() => "whatever");
    const redirecting = await site((_req, res) => res.writeHead(302, { location: `${elsewhere}${EMBED_VERIFICATION_PATH}` }).end());
    const before = hits.get(elsewhere) ?? 0;
    await fails(a, redirecting, "not_found");
    expect(hits.get(elsewhere) ?? 0).toBe(before);
  });

  it("too_large: more than 4 KiB, declared or streamed", async () => {
    await fails(a, await fileSite(() => "x".repeat(5000)), "too_large");
    const streamed = await site((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("y".repeat(3000));
      res.end("y".repeat(3000));
    });
    await fails(a, streamed, "too_large");
  });

  it("unreachable: nobody listening, or a server error", async () => {
    const gone = await site((_req, res) => res.end());
    const server = sites.pop()!;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await fails(a, gone, "unreachable");
    await fails(a, await fileSite(() => "oops", 503), "unreachable");
  });

  it("blocked_address: a loopback address without WEBHOOK_ALLOW_PRIVATE is never contacted", async () => {
    const origin = await fileSite(() => "ilm-verify-anything");
    const https = origin.replace("http://", "https://");
    process.env.WEBHOOK_ALLOW_PRIVATE = "off";
    resetEnv();
    try {
      // Plain http to a loopback host is refused outright without the switch.
      expectProblem(await add(a, origin), 400, "embed_origin_invalid");
      await fails(a, https, "blocked_address");
      expect(hits.get(origin) ?? 0).toBe(0);
    } finally {
      process.env.WEBHOOK_ALLOW_PRIVATE = "on";
      resetEnv();
    }
  });

  it("a verified origin that fails a later check is failed, and stops framing", async () => {
    let body = "";
    const origin = await fileSite(() => body);
    const o = await added(a, origin);
    body = o.token;
    expect((await verify(a, o.id)).status).toBe(200);
    expect(ancestors((await page(`/embed/checkout?product=${a.product}`)).csp)?.split(" ")).toContain(origin);
    body = "changed";
    expectProblem(await verify(a, o.id), 422, "embed_origin_unverified");
    expect(ancestors((await page(`/embed/checkout?product=${a.product}`)).csp)?.split(" ")).not.toContain(origin);
  });
});

describe("frame-ancestors of the embeddable checkout pages", () => {
  it("verified origins may frame; pending, failed and removed ones may not; every other page keeps 'none'", async () => {
    const s = await newSeller("frame");
    // No origin yet: refused like every page.
    let p = await page(`/embed/checkout?product=${s.product}&origin=${encodeURIComponent("http://127.0.0.1:1")}`);
    expect(p.status).toBe(200);
    expect(ancestors(p.csp)).toBe("'none'");
    expect(p.xfo).toBe("DENY");

    // Pending (added, not verified) and failed origins are not named.
    const pending = await added(s, await fileSite(() => "not yet"));
    const failedSite = await fileSite(() => "wrong");
    const failed = await added(s, failedSite);
    expect((await verify(s, failed.id)).status).toBe(422);
    p = await page(`/embed/checkout?product=${s.product}`);
    expect(ancestors(p.csp)).toBe("'none'");
    expect(p.xfo).toBe("DENY");

    // Verified: named, alone, and X-Frame-Options (which cannot name it) is left out.
    const one = await verifiedSite(s);
    p = await page(`/embed/checkout?product=${s.product}&origin=${encodeURIComponent(one.origin)}`);
    expect(ancestors(p.csp)).toBe(one.origin);
    expect(p.xfo).toBeUndefined();
    expect(p.csp).toContain("script-src 'self' 'nonce-n0nce' 'strict-dynamic'");
    expect(p.csp.match(/frame-ancestors/g)).toHaveLength(1);
    const two = await verifiedSite(s);
    expect(
      ancestors((await page(`/embed/checkout?product=${s.product}`)).csp)
        ?.split(" ")
        .sort(),
    ).toEqual([one.origin, two.origin].sort());

    // Another seller's verified origins never frame this seller's checkout.
    const other = await verifiedSite(b);
    expect(ancestors((await page(`/embed/checkout?product=${s.product}`)).csp)).not.toContain(other.origin);

    // The checkout reached from the overlay (test pay page, success, cancelled) answers the same in embed mode only.
    const session = await createCheckout({ product_id: s.product, buyer_email: `embed-buyer-${unique()}@example.com` });
    const embed = `embed=${encodeURIComponent(one.origin)}`;
    for (const path of [`/checkout/${session.session_id}`, `/checkout/${session.session_id}/success`, `/checkout/${session.session_id}/cancelled`]) {
      p = await page(`${path}?${embed}`);
      expect(ancestors(p.csp)?.split(" ").sort(), path).toEqual([one.origin, two.origin].sort());
      expect(p.xfo).toBeUndefined();
      p = await page(path);
      expect(ancestors(p.csp), path).toBe("'none'");
      expect(p.xfo).toBe("DENY");
    }
    // Pages that are not the overlay's keep the default, whatever their query says.
    for (const path of [`/products/${s.product}?embed=${encodeURIComponent(one.origin)}`, `/checkout/${session.session_id}/pay?${embed}`, "/"]) {
      p = await page(path);
      expect(ancestors(p.csp), path).toBe("'none'");
      expect(p.xfo).toBe("DENY");
    }
    // Our own origin only for the dashboard's preview: the preview page itself, and an overlay opened from it.
    p = await page("/embed/preview?product=x");
    expect(ancestors(p.csp)).toBe("'self'");
    expect(p.xfo).toBe("SAMEORIGIN");
    p = await page(`/embed/checkout?product=${s.product}&origin=${encodeURIComponent(`http://localhost:${frontPort}`)}`);
    expect(ancestors(p.csp)?.split(" ")).toContain("'self'");

    // Removed: from the next response on, no longer named (no cache to wait out).
    expect((await remove(s, one.id)).status).toBe(200);
    p = await page(`/embed/checkout?product=${s.product}`);
    expect(ancestors(p.csp)).toBe(two.origin);
    expect((await remove(s, two.id)).status).toBe(200);
    p = await page(`/checkout/${session.session_id}/success?${embed}`);
    expect(ancestors(p.csp)).toBe("'none'");
    expect(p.xfo).toBe("DENY");
    expect((await list(s)).map((x) => x.id).sort()).toEqual([pending.id, failed.id].sort());
    // An unknown product names nobody.
    expect(ancestors((await page("/embed/checkout?product=no-such-product")).csp)).toBe("'none'");
    await getDb().embedOrigin.deleteMany({ where: { developerId: s.id } });
  });
});
