import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { env } from "../env.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../http/input.ts";
import { securityHeaders } from "../http/security-headers.ts";

/**
 * Serves a fetch-style handler (`(Request) => Promise<Response>`) from server.ts without Next's request pipeline: the
 * node request becomes a Web Request (its body streamed, not buffered), and the Response is written back, streamed
 * with backpressure, with the security headers proxy.ts gives the same path under Next. HEAD is answered as GET
 * without a body, as Next does for route handlers. The caller has already checked the Host and stamped the client;
 * a caller that has read the body already (MCP's direct path) hands it over as `preread`.
 */
export async function serveFetch(
  handler: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  res: ServerResponse,
  preread?: Uint8Array<ArrayBuffer>,
): Promise<void> {
  const e = env();
  const base = new URL(e.BASE_URL);
  const url = new URL(req.url ?? "/", `${base.protocol}//${req.headers.host ?? base.host}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const head = req.method === "HEAD";
  const method = head ? "GET" : (req.method ?? "GET");
  const aborted = new AbortController();
  res.once("close", () => aborted.abort());
  let body: RequestInit["body"] | undefined;
  if (method !== "GET" && method !== "DELETE") {
    // A declared length within the cap is read whole (a JSON-RPC message is small, and a Web stream over the node
    // stream costs more than the call); anything else is streamed, and the handler enforces its own cap.
    const declared = Number(req.headers["content-length"] ?? NaN);
    body =
      preread ??
      (Number.isInteger(declared) && declared <= DEFAULT_MAX_BODY_BYTES ? await readWhole(req) : (Readable.toWeb(req) as ReadableStream<Uint8Array>));
  }
  const request = new Request(url, {
    method,
    headers,
    signal: aborted.signal,
    ...(body === undefined ? {} : { body, duplex: "half" }),
  });
  const response = await handler(request);

  const out: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    out[name] = name === "set-cookie" ? response.headers.getSetCookie() : value;
  });
  Object.assign(out, securityHeaders(url.pathname, { baseUrl: e.BASE_URL, development: e.NODE_ENV === "development" }));
  res.writeHead(response.status, out);
  if (head || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    res.end();
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await new Promise<void>((resolve) => res.once("drain", resolve).once("close", resolve));
    }
  } finally {
    if (res.destroyed) await reader.cancel().catch(() => undefined);
    res.end();
  }
}

/** The whole body of a request whose declared length is small (the parser stops at the declared length). */
export function readWhole(req: IncomingMessage): Promise<Uint8Array<ArrayBuffer>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))));
    req.on("error", reject);
  });
}
