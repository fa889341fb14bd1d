import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GET as mailboxRoute } from "@/app/api/dev/mailbox/route";
import { disconnectDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { frontDoor } from "@/lib/transports/front";
import { rateLimiter } from "@/lib/http/rate-limit";
import { fingerprint, newLicense } from "../helpers/licenses";

/**
 * server.ts's request listener (lib/transports/front.ts: host check, lean path, client address) on a real socket, with a
 * stand-in for Next that calls the real dev-mailbox route handler the way Next does (Next adds X-Forwarded-Host and
 * X-Forwarded-For when they are missing). The e2e suite (e2e/security.spec.ts) repeats the attacks against the real
 * production process.
 */

/**
 * A remote peer, as the socket reports it. Tests connect over loopback and name the peer in this header; the
 * listener below makes the socket say so before the front door looks, so a remote client needs no second network
 * interface on the test machine.
 */
const PEER_HEADER = "x-test-socket-peer";
const REMOTE = "198.51.100.20";

const seenByNext: Array<Record<string, string | string[] | undefined>> = [];

async function nextStandIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
  req.headers["x-forwarded-host"] ??= req.headers.host;
  req.headers["x-forwarded-for"] ??= req.socket.remoteAddress;
  seenByNext.push({ ...req.headers });
  const url = new URL(req.url ?? "/", "http://localhost");
  if (url.pathname !== "/api/dev/mailbox") {
    res.writeHead(200, { "content-type": "text/plain" }).end("next");
    return;
  }
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
  const response = await mailboxRoute(new Request(`http://localhost${req.url ?? "/"}`, { headers }), { params: Promise.resolve({}) });
  res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
}

let server: Server;
let port: number;
const saved = { PORT: process.env.PORT, BASE_URL: process.env.BASE_URL };

beforeAll(async () => {
  const front = frontDoor(nextStandIn);
  server = createServer((req, res) => {
    const peer = req.headers[PEER_HEADER];
    if (typeof peer === "string") {
      Object.defineProperty(req.socket, "remoteAddress", { value: peer, configurable: true });
      Reflect.deleteProperty(req.headers, PEER_HEADER);
    }
    front(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
  port = (server.address() as AddressInfo).port;
  process.env.PORT = String(port);
  process.env.BASE_URL = `http://localhost:${port}`;
  resetEnv();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  Object.assign(process.env, saved);
  resetEnv();
  await disconnectDb();
});

afterEach(() => {
  delete process.env.TRUST_PROXY;
  delete process.env.TRUST_PROXY_FROM;
  delete process.env.ALLOWED_HOSTS;
  delete process.env.RATE_LIMIT_VALIDATE_PER_MIN;
  delete process.env.DEV_MAILBOX;
  resetEnv();
  seenByNext.length = 0;
});

interface Reply {
  status: number;
  headers: IncomingMessage["headers"];
  text: string;
  body: any;
}

/** A raw HTTP request: any Host header, and optionally from another local address. */
function send(
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: unknown; from?: string; noHost?: boolean } = {},
): Promise<Reply> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: opts.method ?? "GET",
        headers: {
          ...(opts.noHost ? {} : { host: `localhost:${port}` }),
          ...(body ? { "content-type": "application/json" } : {}),
          ...(opts.from ? { [PEER_HEADER]: opts.from } : {}),
          ...opts.headers,
        },
        setHost: !opts.noHost,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: json });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function expectRefusedHost(r: Reply) {
  expect(r.status, r.text).toBe(421);
  expect(r.headers["content-type"]).toBe("application/problem+json");
  expect(r.body).toMatchObject({ status: 421, code: "host_not_allowed", title: "Misdirected Request" });
}

describe("DNS rebinding: requests naming a host we do not serve", () => {
  it("are refused on the lean path and before Next, with the victim's loopback address and a matching Origin", async () => {
    const { license, product } = await newLicense();
    const attacker = { host: `rebind.attacker.example:${port}`, origin: `http://rebind.attacker.example:${port}` };

    // The attack as reported: the mailbox, a sign-in link, a server action, all from 127.0.0.1.
    expectRefusedHost(await send("/api/dev/mailbox", { headers: attacker }));
    expectRefusedHost(await send("/dev/mailbox", { headers: attacker }));
    expectRefusedHost(await send("/auth/verify?token=abc", { headers: attacker }));
    expectRefusedHost(
      await send("/dashboard", {
        method: "POST",
        headers: { ...attacker, "next-action": "0123456789abcdef", "content-type": "text/plain" },
        body: "[]",
      }),
    );
    expectRefusedHost(
      await send("/validate", {
        method: "POST",
        headers: attacker,
        body: { license_key: license.key, machine_fingerprint: fingerprint(), plugin_id: product.pluginId },
      }),
    );
    expectRefusedHost(await send("/activate", { method: "POST", headers: attacker, body: {} }));
    expect(seenByNext).toEqual([]);

    // No Host at all is no better (Node answers HTTP/1.1 without Host with a bare 400 itself), nor a Host on another port.
    const noHost = await send("/api/dev/mailbox", { noHost: true });
    expect([400, 421]).toContain(noHost.status);
    expectRefusedHost(await send("/api/dev/mailbox", { headers: { host: `localhost:${port + 1}` } }));

    // The same requests by our own name are served.
    expect((await send("/api/dev/mailbox")).status).toBe(200);
    expect((await send("/api/dev/mailbox", { headers: { host: `127.0.0.1:${port}` } })).status).toBe(200);
    expect((await send("/api/dev/mailbox", { headers: { host: `[::1]:${port}` } })).status).toBe(200);
    const ok = await send("/validate", {
      method: "POST",
      body: { license_key: license.key, machine_fingerprint: fingerprint(), plugin_id: product.pluginId },
    });
    expect(ok.status, ok.text).toBe(200);

    // Load balancers probe /health by the instance's own address: exempt, it reveals nothing.
    const health = await send("/health", { headers: { host: `10.0.0.3:${port}` } });
    expect(health.status).toBe(200);
    expect(Object.keys(health.body as object).sort()).toEqual(["status", "version"]);
  });

  it("keep the dev mailbox to loopback names even when ALLOWED_HOSTS lets the name in", async () => {
    process.env.ALLOWED_HOSTS = "shop.test";
    resetEnv();
    expect((await send("/", { headers: { host: `shop.test:${port}` } })).status).toBe(200);
    const r = await send("/api/dev/mailbox", { headers: { host: `shop.test:${port}` } });
    expect(r.status, r.text).toBe(404);
    expect(r.body).toMatchObject({ code: "not_found" });
    expect((await send("/api/dev/mailbox")).status).toBe(200);
    // A client's own X-Forwarded-Host neither gets in nor reaches Next.
    const forged = await send("/api/dev/mailbox", { headers: { host: `shop.test:${port}`, "x-forwarded-host": `localhost:${port}` } });
    expect(forged.status).toBe(404);
    expect(seenByNext.at(-1)?.["x-forwarded-host"]).toBe(`shop.test:${port}`);

    process.env.DEV_MAILBOX = "public";
    expect((await send("/api/dev/mailbox", { headers: { host: `shop.test:${port}` } })).status).toBe(200);
  });
});

describe("X-Forwarded-For with TRUST_PROXY set", () => {
  it("is ignored from a peer that is not in TRUST_PROXY_FROM: the mailbox stays shut and limits count the real address", async () => {
    const from = REMOTE;
    process.env.TRUST_PROXY = "1";
    const spoof = { "x-forwarded-for": "127.0.0.1" };

    // The attack: a direct request that says it comes from 127.0.0.1.
    const mailbox = await send("/api/dev/mailbox", { from, headers: spoof });
    expect(mailbox.status, mailbox.text).toBe(404);
    expect(seenByNext.at(-1)?.["x-ilm-client-address"]).toBe(from);
    expect(seenByNext.at(-1)?.["x-ilm-client-via-proxy"]).toBeUndefined();

    // Rate limits count the socket's address, whatever X-Forwarded-For says on each request.
    const { license, product } = await newLicense();
    rateLimiter().reset();
    process.env.RATE_LIMIT_VALIDATE_PER_MIN = "2";
    const statuses: number[] = [];
    for (const fake of ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) {
      const r = await send("/validate", {
        method: "POST",
        from,
        headers: { "x-forwarded-for": fake },
        body: { license_key: license.key, machine_fingerprint: fingerprint(), plugin_id: product.pluginId },
      });
      statuses.push(r.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    rateLimiter().reset();
    delete process.env.RATE_LIMIT_VALIDATE_PER_MIN;

    // A client-supplied X-ILM-Client-Address is overwritten too.
    await send("/", { from, headers: { "x-ilm-client-address": "127.0.0.1", "x-ilm-client-via-proxy": "1" } });
    expect(seenByNext.at(-1)?.["x-ilm-client-address"]).toBe(from);
    expect(seenByNext.at(-1)?.["x-ilm-client-via-proxy"]).toBeUndefined();

    // Once that peer is a listed proxy, the address it forwards is the client's.
    process.env.TRUST_PROXY_FROM = `127.0.0.1,::1,${from}/32`;
    await send("/", { from, headers: { "x-forwarded-for": "198.51.100.9" } });
    expect(seenByNext.at(-1)?.["x-ilm-client-address"]).toBe("198.51.100.9");
    expect(seenByNext.at(-1)?.["x-ilm-client-via-proxy"]).toBe("1");
    // ...and a client on this machine behind it reads the mailbox, by a loopback name only.
    expect((await send("/api/dev/mailbox", { from, headers: spoof })).status).toBe(200);
    expect((await send("/api/dev/mailbox", { from, headers: { ...spoof, "x-forwarded-host": "rebind.attacker.example" } })).status).toBe(421);
  });

  it("from a local proxy we do not trust, a forwarded remote client keeps the mailbox shut", async () => {
    process.env.TRUST_PROXY = "1";
    process.env.TRUST_PROXY_FROM = "10.0.0.0/8";
    const r = await send("/api/dev/mailbox", { headers: { "x-forwarded-for": "198.51.100.4" } });
    expect(r.status).toBe(404);
    expect(seenByNext.at(-1)?.["x-ilm-client-address"]).toBe("127.0.0.1");
  });
});

describe("control characters in the address", () => {
  it("are refused before any page or handler sees them (an encoded NUL in a product page or search answered 500 on PostgreSQL)", async () => {
    for (const path of ["/products/%00", "/products/a%00b", "/?q=tape%00warmth", "/api/marketplace/listings?search=%00", "/dashboard/products/%0A"]) {
      const r = await send(path);
      expect(r.status, `${path}: ${r.text}`).toBe(400);
      expect(r.body, path).toMatchObject({ status: 400, code: "invalid_url" });
    }
    // Encoded text without control characters, and malformed encodings, still go on to Next.
    for (const path of ["/?q=tape%20warmth", "/products/%E2%9C%93", "/?q=%zz"]) {
      const r = await send(path);
      expect(r.status, path).toBe(200);
      expect(r.text).toBe("next");
    }
  });
});
