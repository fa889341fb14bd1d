import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { handleLean } from "@/lib/transports/lean";

/** server.ts's lean path on a random local port; other paths answer 418. */
export async function startLeanServer(): Promise<{ base: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    void handleLean(req, res).then((handled) => {
      if (!handled) res.writeHead(418).end();
    });
  });
  // As server.ts: an idle kept-alive connection outlives a test's pause between calls (with Node's 5 s, a fetch
  // reusing a connection as the server closed it got ECONNRESET on a busy machine).
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(base + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await r.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, headers: r.headers, body: json, text };
}
