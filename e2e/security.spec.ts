import { spawn } from "node:child_process";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { serverArgs, startApp, type AppProcess } from "./support/servers";

/**
 * The host check and the proxy allow-list against the real production process (server.ts): DNS rebinding (a page
 * on another name pointed at 127.0.0.1) and a forged X-Forwarded-For. Raw node:http requests, because a browser
 * (or Playwright's request context) will not send a Host of our choosing.
 */

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
  text: string;
}

function send(
  url: string,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; from?: string } = {},
): Promise<Reply> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path,
        method: opts.method ?? "GET",
        headers: { host: u.host, ...opts.headers },
        localAddress: opts.from,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: any;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
        });
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

const refusedHost = (r: Reply) => {
  expect(r.status, r.text).toBe(421);
  expect(r.headers["content-type"]).toBe("application/problem+json");
  expect(r.body).toMatchObject({ status: 421, code: "host_not_allowed" });
};

test("DNS rebinding: a request naming another host is refused before the mailbox, sign-in links and server actions", async ({ baseURL }) => {
  const base = baseURL!;
  const port = new URL(base).port;
  const attacker = { host: `rebind.attacker.example:${port}`, origin: `http://rebind.attacker.example:${port}` };

  // Ours, by our own names: the mailbox answers (the other specs read keys and links from it).
  const own = await send(base, "/api/dev/mailbox?limit=1");
  expect(own.status, own.text).toBe(200);
  expect((await send(base, "/api/dev/mailbox?limit=1", { headers: { host: `127.0.0.1:${port}` } })).status).toBe(200);

  // The reported attack, step by step: read the mailbox, open a sign-in link, run a server action.
  refusedHost(await send(base, "/api/dev/mailbox", { headers: attacker }));
  refusedHost(await send(base, "/dev/mailbox", { headers: attacker }));
  refusedHost(await send(base, "/auth/verify?token=ABCDEFGHIJKLMNOPQRSTUVWXYZ", { headers: attacker }));
  refusedHost(
    await send(base, "/dashboard/profile", {
      method: "POST",
      headers: { ...attacker, "next-action": "7f".repeat(21), "content-type": "text/plain;charset=UTF-8", accept: "text/x-component" },
      body: "[]",
    }),
  );
  // The lean licensing path too.
  refusedHost(
    await send(base, "/validate", {
      method: "POST",
      headers: { ...attacker, "content-type": "application/json" },
      body: JSON.stringify({ license_key: "ABCD-EFGH-JKLM-NPQR", machine_fingerprint: "a".repeat(64), plugin_id: "com.example.app" }),
    }),
  );

  // A load balancer's health check by the instance's address is answered: it reveals nothing.
  const health = await send(base, "/health", { headers: { host: `10.0.0.3:${port}` } });
  expect(health.status).toBe(200);
  expect(health.body).toEqual({ status: "ok", version: expect.any(String) });
});

test.describe("behind TRUST_PROXY=1", () => {
  test.describe.configure({ mode: "serial", timeout: 120_000 });
  let app: AppProcess | undefined;

  test.afterAll(async () => {
    await app?.stop();
  });

  test("a client that is not a listed proxy cannot choose its address with X-Forwarded-For; a listed proxy's forwarded client is believed", async () => {
    // Two peers on this machine's loopback network: 127.0.0.1 is the listed proxy, 127.0.0.2 is not. (A peer on
    // another network opening the mailbox with "XFF: 127.0.0.1" is tests/integration/host.test.ts's case.)
    const from = "127.0.0.2";
    const port = 3221;
    app = await startApp(port, {
      BASE_URL: `http://localhost:${port}`,
      DATABASE_URL: `file:${join(tmpdir(), `ilm-e2e-proxy-${Date.now().toString(36)}.db`)}`,
      TRUST_PROXY: "1",
      TRUST_PROXY_FROM: "127.0.0.1",
      HOST: "0.0.0.0",
      RATE_LIMIT_VALIDATE_PER_MIN: "2",
    });
    const url = `http://127.0.0.1:${port}`;
    const host = { host: `localhost:${port}` };

    // Each request claims another address; all three count against the socket's.
    const statuses: number[] = [];
    for (const fake of ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) {
      const r = await send(url, "/validate", {
        method: "POST",
        from,
        headers: { ...host, "content-type": "application/json", "x-forwarded-for": fake },
        body: JSON.stringify({ license_key: "ABCD-EFGH-JKLM-NPQR", machine_fingerprint: "a".repeat(64), plugin_id: "com.example.app" }),
      });
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 2)).not.toContain(429);
    expect(statuses[2]).toBe(429);

    // Through the listed proxy, the forwarded address is the client's: a remote one keeps the mailbox shut (before
    // this fix a forwarded address was believed from any peer), and its own limit is fresh.
    expect((await send(url, "/api/dev/mailbox", { headers: { ...host, "x-forwarded-for": "198.51.100.4" } })).status).toBe(404);
    expect((await send(url, "/dev/mailbox", { headers: { ...host, "x-forwarded-for": "198.51.100.4" } })).status).toBe(404);
    expect((await send(url, "/api/dev/mailbox", { headers: { ...host, "x-forwarded-for": "127.0.0.1" } })).status).toBe(200);
    const viaProxy = await send(url, "/validate", {
      method: "POST",
      headers: { ...host, "content-type": "application/json", "x-forwarded-for": "198.51.100.5" },
      body: JSON.stringify({ license_key: "ABCD-EFGH-JKLM-NPQR", machine_fingerprint: "a".repeat(64), plugin_id: "com.example.app" }),
    });
    expect(viaProxy.status).not.toBe(429);
  });

  test("an invalid TRUST_PROXY_FROM or ALLOWED_HOSTS stops the server at start with a clear error", async () => {
    const start = (env: Record<string, string>) =>
      new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = spawn(process.execPath, serverArgs(), {
          env: { ...process.env, NODE_ENV: "production", PORT: "3222", DATABASE_URL: "file::memory:", ...env },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let output = "";
        child.stdout.on("data", (d: Buffer) => (output += d.toString()));
        child.stderr.on("data", (d: Buffer) => (output += d.toString()));
        const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
        child.on("close", (code) => {
          clearTimeout(timer);
          resolve({ code, output });
        });
      });
    const proxies = await start({ TRUST_PROXY: "1", TRUST_PROXY_FROM: "127.0.0.1,10.0.0.300/8" });
    expect(proxies.code).toBe(1);
    expect(proxies.output).toMatch(/TRUST_PROXY_FROM: "10\.0\.0\.300\/8" is not an IP address or CIDR range/);
    expect(proxies.output).not.toContain("ready:");
    const hosts = await start({ ALLOWED_HOSTS: "https://shop.example" });
    expect(hosts.code).toBe(1);
    expect(hosts.output).toMatch(/ALLOWED_HOSTS: "https:\/\/shop\.example" is not a host name/);
  });
});
