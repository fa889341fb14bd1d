import { execFile } from "node:child_process";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as sellerLicenses from "@/app/api/v1/licenses/route";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { frontDoor } from "@/lib/transports/front";
import { LINGER } from "@/lib/transports/lean";
import { sellerToken } from "../helpers/seller-tokens";

/**
 * Bodies over the cap, on server.ts's real request listener (lib/transports/front.ts) over real sockets: the lean path
 * (/validate, /deactivate) and MCP are the production code. The server answers 413 before the body is in, and
 * used to close the connection with the rest unread: the kernel then resets it, and a client still writing got
 * EPIPE or ECONNRESET instead of its answer (about a third to most of 50 Node clients posting 4 MB). Now the answer
 * goes out with `Connection: close` and the rest of the body is read away, within bounds, before the socket closes.
 *
 * For a REST route, Next is a stand-in that does what Next does before a route handler runs (it reads the whole
 * body: proxy.ts's body clone) and then calls the real handler; on the production build those answers were always
 * read (Next reads every body to its end), and this checks the front door keeps it so.
 */

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

async function nextStandIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const path = (req.url ?? "/").replace(/\?.*$/s, "");
  const handler = path === "/api/v1/licenses" ? (sellerLicenses[req.method as "POST"] as Handler | undefined) : undefined;
  if (!handler) {
    res.writeHead(404, { "content-type": "text/plain" }).end("not here");
    return;
  }
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
  const response = await handler(new Request(`http://localhost${req.url ?? "/"}`, { method: req.method, headers, body: Buffer.concat(chunks) }), {
    params: Promise.resolve({}),
  });
  res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
}

let server: Server;
let port: number;
let token: string;
const saved = { PORT: process.env.PORT, BASE_URL: process.env.BASE_URL };
const bounds = { ...LINGER };

beforeAll(async () => {
  server = createServer(frontDoor(nextStandIn));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  process.env.PORT = String(port);
  process.env.BASE_URL = `http://localhost:${port}`;
  resetEnv();
  const product = await getDb().product.findFirstOrThrow({ where: { status: "active" }, orderBy: { id: "asc" } });
  token = await sellerToken(product.developerId, ["licenses"]);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  Object.assign(process.env, saved);
  resetEnv();
  await disconnectDb();
});

afterEach(() => Object.assign(LINGER, bounds));

const MB4 = 4 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x20);

interface Outcome {
  status: number | undefined;
  body: any;
  contentType: string | undefined;
  connection: string | undefined;
  /** Every error the client saw, during or after the exchange. */
  errors: string[];
}

/**
 * A node:http client posting `size` bytes of JSON-typed body in 64 KiB writes (with a Content-Length, or chunked
 * without one), as a licensed app's HTTP stack does. Settles when the request is closed, with every error seen.
 */
function postInChunks(path: string, size: number, opts: { chunked?: boolean; headers?: Record<string, string> } = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    const out: Outcome = { status: undefined, body: undefined, contentType: undefined, connection: undefined, errors: [] };
    let text = "";
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path,
        headers: {
          host: `localhost:${port}`,
          "content-type": "application/json",
          ...(opts.chunked ? {} : { "content-length": String(size) }),
          ...opts.headers,
        },
        agent: false,
      },
      (res) => {
        out.status = res.statusCode;
        out.contentType = res.headers["content-type"];
        out.connection = res.headers.connection;
        res.on("data", (c: Buffer) => (text += c.toString("utf8")));
        res.on("error", (e: NodeJS.ErrnoException) => out.errors.push(`response ${e.code ?? e.message}`));
      },
    );
    req.on("error", (e: NodeJS.ErrnoException) => out.errors.push(e.code ?? e.message));
    req.on("close", () =>
      setImmediate(() => {
        try {
          out.body = JSON.parse(text);
        } catch {
          out.body = text;
        }
        resolve(out);
      }),
    );
    let sent = 0;
    const pump = () => {
      while (sent < size && !req.destroyed) {
        sent += CHUNK.length;
        if (!req.write(sent <= size ? CHUNK : CHUNK.subarray(0, CHUNK.length - (sent - size)))) {
          req.once("drain", pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

/**
 * `times` clients posting `size` bytes each, one after another, in a separate process, as licensed apps and agents
 * are (a client in this process would share the server's event loop, which orders its writes and the server's close
 * in a way real clients are not: fetch never lost its answer in-process, and most of the time on the production
 * server). `mode`: node:http writing 64 KiB chunks with a Content-Length, the same chunked without one, or fetch.
 * Returns how many ended each way, as "<status> <problem code>[ <errors seen, during or after the exchange>]".
 */
const CLIENTS = `
const { request } = require("node:http");
const [port, path, mode, times, size, headersJson] = process.argv.slice(1);
const extra = JSON.parse(headersJson);
const CHUNK = Buffer.alloc(64 * 1024, 0x20);
const BODY = Buffer.alloc(Number(size), 0x20);
const key = (status, text, contentType, errors) => {
  let code = "not a problem";
  try { if (contentType === "application/problem+json") code = JSON.parse(text).code; } catch {}
  return status + " " + code + (errors.length ? " " + errors.join(",") : "");
};
function viaHttp(chunked) {
  return new Promise((resolve) => {
    const errors = []; let status, contentType, text = "";
    const headers = { "content-type": "application/json", ...extra };
    if (!chunked) headers["content-length"] = size;
    const req = request({ host: "127.0.0.1", port, method: "POST", path, headers, agent: false }, (res) => {
      status = res.statusCode; contentType = res.headers["content-type"];
      res.on("data", (c) => (text += c));
      res.on("error", (e) => errors.push("response " + (e.code || e.message)));
    });
    req.on("error", (e) => errors.push(e.code || e.message));
    req.on("close", () => setTimeout(() => resolve(key(status, text, contentType, errors)), 5));
    let sent = 0;
    const pump = () => {
      while (sent < Number(size) && !req.destroyed) {
        sent += CHUNK.length;
        if (!req.write(CHUNK)) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}
async function viaFetch() {
  try {
    const r = await fetch("http://127.0.0.1:" + port + path, { method: "POST", headers: { "content-type": "application/json", ...extra }, body: BODY });
    return key(r.status, await r.text(), r.headers.get("content-type"), []);
  } catch (e) {
    return key(undefined, "", undefined, [(e.cause && e.cause.code) || e.message]);
  }
}
(async () => {
  const counts = {};
  for (let i = 0; i < Number(times); i++) {
    const k = mode === "fetch" ? await viaFetch() : await viaHttp(mode === "chunked");
    counts[k] = (counts[k] || 0) + 1;
  }
  process.stdout.write(JSON.stringify(counts));
})();
`;

async function clients(
  path: string,
  mode: "http" | "chunked" | "fetch",
  times: number,
  headers: Record<string, string> = {},
  size = MB4,
): Promise<Record<string, number>> {
  const args = ["-e", CLIENTS, String(port), path, mode, String(times), String(size), JSON.stringify(headers)];
  const { stdout } = await promisify(execFile)(process.execPath, args, { timeout: 60_000 });
  return JSON.parse(stdout) as Record<string, number>;
}

const allRead413 = (times: number) => ({ "413 body_too_large": times });

describe("a body over the cap on the lean path", () => {
  for (const [path, fetches] of [
    ["/validate", 50],
    ["/deactivate", 20],
  ] as const) {
    it(`${path}: 50 Node clients writing 4 MB in chunks all read a 413 problem, none sees EPIPE or ECONNRESET`, async () => {
      expect(await clients(path, "http", 50)).toEqual(allRead413(50));
    });

    it(`${path}: ${fetches} fetch clients posting 4 MB all read a 413 problem`, async () => {
      expect(await clients(path, "fetch", fetches)).toEqual(allRead413(fetches));
    });

    it(`${path}: chunked transfer encoding (no Content-Length), 4 MB: all read a 413 problem`, async () => {
      expect(await clients(path, "chunked", 20)).toEqual(allRead413(20));
    });
  }

  it("the 413 is a problem document that closes the connection; the next connection is served as usual", async () => {
    const o = await postInChunks("/validate", MB4, { headers: { "x-request-id": "body-cap-1" } });
    expect(o.errors).toEqual([]);
    expect(o.status).toBe(413);
    expect(o.contentType).toBe("application/problem+json");
    expect(o.connection).toBe("close");
    expect(o.body).toMatchObject({
      status: 413,
      code: "body_too_large",
      title: "Content Too Large",
      request_id: "body-cap-1",
      instance: "/validate",
    });
    const next = await fetch(`http://127.0.0.1:${port}/validate`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(next.status).toBe(400);
    expect(await next.json()).toMatchObject({ code: "invalid_body" });
  });
});

describe("a body over the cap on the other paths", () => {
  it("MCP (answered by the front door): declared, chunked and fetch, 4 MB: all read a 413 problem", async () => {
    expect(await clients("/api/mcp", "http", 20)).toEqual(allRead413(20));
    expect(await clients("/api/mcp", "chunked", 10)).toEqual(allRead413(10));
    expect(await clients("/api/mcp", "fetch", 10)).toEqual(allRead413(10));
  });

  it("MCP: a chunked body within the cap still reaches the endpoint whole", async () => {
    const r = await fetch(`http://127.0.0.1:${port}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: new Blob([JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })]).stream(),
      duplex: "half",
    } as RequestInit);
    const text = await r.text();
    expect(r.status, text).toBe(200);
    expect(text).toContain('"tools"');
  });

  it("a REST route handled by Next (POST /api/v1/licenses, a seller's token): all read a 413 problem", async () => {
    const auth = { authorization: `Bearer ${token}` };
    expect(await clients("/api/v1/licenses", "http", 20, auth)).toEqual(allRead413(20));
    expect(await clients("/api/v1/licenses", "chunked", 5, auth)).toEqual(allRead413(5));
    expect(await clients("/api/v1/licenses", "fetch", 10, auth)).toEqual(allRead413(10));
  });
});

/** A raw client on a socket: sends the head, then `bodyBytes` of body (or forever), and reports how the server ended it. */
function rawClient(
  path: string,
  opts: { declared?: number; keepSending: boolean; firstBytes?: number },
): Promise<{ answer: string; sent: number; error: string | undefined; ms: number }> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const started = Date.now();
    let answer = "";
    let sent = 0;
    let error: string | undefined;
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Type: application/json\r\nContent-Length: ${opts.declared ?? 2 ** 30}\r\n\r\n`,
    );
    socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
    socket.on("error", (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on("close", () => resolve({ answer, sent, error, ms: Date.now() - started }));
    const pump = () => {
      while (!socket.destroyed && (opts.keepSending || sent < (opts.firstBytes ?? 0))) {
        sent += CHUNK.length;
        if (!socket.write(CHUNK)) {
          socket.once("drain", pump);
          return;
        }
      }
    };
    pump();
  });
}

describe("a body sent with a request the front door refuses", () => {
  it("a URL that does not decode or holds a control character, a host we do not serve: all read their problem", async () => {
    expect(await clients("/validate/%00", "http", 10)).toEqual({ "400 invalid_url": 10 });
    expect(await clients("/validate/%ff", "chunked", 5)).toEqual({ "400 invalid_url": 5 });
    expect(await clients("/api/mcp%ff", "fetch", 5)).toEqual({ "400 invalid_url": 5 });
    expect(await clients("/validate", "http", 10, { host: "rebind.attacker.example" })).toEqual({ "421 host_not_allowed": 10 });
  });
});

describe("the bounds of reading on", () => {
  it("a client that keeps sending past the byte bound is cut off after its 413", async () => {
    LINGER.bytes = 1024 * 1024;
    for (const path of ["/validate", "/api/mcp"]) {
      const r = await rawClient(path, { keepSending: true });
      expect(r.answer.split("\r\n")[0], path).toBe("HTTP/1.1 413 Payload Too Large");
      expect(r.error, path).toMatch(/EPIPE|ECONNRESET/);
      // Far less than the gigabyte it declared: the bound, plus what the two sockets' buffers held.
      expect(r.sent, path).toBeLessThan(64 * 1024 * 1024);
    }
  });

  it("a client that stops sending is closed once the time bound has passed", async () => {
    LINGER.ms = 400;
    const r = await rawClient("/validate", { declared: MB4, keepSending: false, firstBytes: 1024 * 1024 });
    expect(r.answer.split("\r\n")[0]).toBe("HTTP/1.1 413 Payload Too Large");
    expect(r.answer).toContain('"code":"body_too_large"');
    expect(r.ms).toBeGreaterThanOrEqual(350);
    expect(r.ms).toBeLessThan(5_000);
  });
});
