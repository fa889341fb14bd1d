import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { hasHttp, type HttpOperation, type Redirect } from "../operations/define.ts";
import { execute, parseParts } from "../operations/execute.ts";
import { bodyCapOf } from "../operations/guarantees.ts";
import { success, successBody } from "./rest.ts";
import { operations } from "../operations/index.ts";
import { env } from "../env.ts";
import { AppError } from "../http/errors.ts";
import { CACHE } from "../http/headers.ts";
import { checkJsonContentType, parseJsonText, queryObject, tooLarge, UTF8 } from "../http/input.ts";
import { PROBLEM_CONTENT_TYPE } from "../http/problem.ts";
import { clientAddress } from "../http/rate-limit.ts";
import { addressedOrigin } from "../http/host.ts";
import { dataSecurityHeaders } from "../http/security-headers.ts";
import { baseHeaders, problemBody, requestIdFrom, toAppError } from "../http/respond.ts";

/**
 * The operations declared `lean` (the licensing hot path every licensed app calls at every launch, the health
 * check, and streamed uploads, which Next's proxy would otherwise buffer), answered by server.ts itself without
 * Next's request pipeline. Same conventions as the Next adapter
 * (problem documents, body cap, Link header, request id, the operation's rate limits) with none of its overhead.
 */
let routes: Map<string, HttpOperation> | undefined;
const leanRoutes = () =>
  (routes ??= new Map(
    operations()
      .filter(hasHttp)
      .filter((op) => op.http.lean && !op.http.path.includes("{"))
      .map((op) => [op.http.path, op]),
  ));

/** Lean operations whose paths have parameters (`/a/{id}/b`): matched by a pattern after the exact paths. */
let templates: Array<{ op: HttpOperation; pattern: RegExp; names: string[] }> | undefined;
const leanTemplates = () =>
  (templates ??= operations()
    .filter(hasHttp)
    .filter((op) => op.http.lean && op.http.path.includes("{"))
    .map((op) => {
      const names: string[] = [];
      const source = op.http.path
        .split(/(\{[a-z_]+\})/)
        .map((part) => {
          const m = /^\{([a-z_]+)\}$/.exec(part);
          if (!m?.[1]) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
          names.push(m[1]);
          return "([^/]+)";
        })
        .join("");
      return { op, pattern: new RegExp(`^${source}$`), names };
    }));

/** The lean operation at a path, with its path parameters (percent-decoded; a malformed escape matches nothing). */
function leanMatch(pathname: string): { op: HttpOperation; params: Record<string, string> } | undefined {
  const exact = leanRoutes().get(pathname);
  if (exact) return { op: exact, params: {} };
  for (const t of leanTemplates()) {
    const m = t.pattern.exec(pathname);
    if (!m) continue;
    try {
      return { op: t.op, params: Object.fromEntries(t.names.map((name, i) => [name, decodeURIComponent(m[i + 1] ?? "")])) };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** A success header block made once: name/value pairs, and where the request id's value goes. */
interface Answer {
  pairs: string[];
  requestIdAt: number;
}

/** Fixed headers as name/value pairs, with where each name (lower case) sits, so an answer's own value replaces it. */
interface Fixed {
  pairs: string[];
  at: Map<string, number>;
}
const fixedOf = (headers: Readonly<Record<string, string>>): Fixed => {
  const pairs = Object.entries(headers).flat();
  return { pairs, at: new Map(Object.keys(headers).map((name, i) => [name.toLowerCase(), 2 * i + 1])) };
};
/**
 * The security headers of data answers, and those after each set of CORS headers (two: the API's and MCP's;
 * lib/transports/cors.ts), made once; made again only if BASE_URL changes (tests). `answers` holds each lean operation's
 * whole success header block per CORS set and kind of result (JSON or text), with a slot for the request id.
 */
let security:
  | {
      base: string;
      headers: Readonly<Record<string, string>>;
      fixed: Fixed;
      withCors: Map<object, Fixed>;
      answers: Map<HttpOperation, Map<object | undefined, Answer[]>>;
    }
  | undefined;

/** The header sets for the current BASE_URL, made again (and every block made from them dropped) when it changes. */
function headerSets(): NonNullable<typeof security> {
  const e = env();
  if (security?.base !== e.BASE_URL) {
    const data = dataSecurityHeaders({ baseUrl: e.BASE_URL, development: e.NODE_ENV === "development" });
    security = { base: e.BASE_URL, headers: data, fixed: fixedOf(data), withCors: new Map(), answers: new Map() };
  }
  return security;
}

/** The fixed headers for a set of CORS headers (or none). */
function fixedFor(cors: Readonly<Record<string, string>> | undefined): Fixed {
  const sets = headerSets();
  if (!cors) return sets.fixed;
  let made = sets.withCors.get(cors);
  if (!made) sets.withCors.set(cors, (made = fixedOf({ ...cors, ...sets.headers })));
  return made;
}

/** The fixed pairs with an answer's own headers after them (an answer's value replaces a fixed one of the same name). */
function pairsWith(fixed: Fixed, headers: Record<string, string>): string[] {
  const pairs = fixed.pairs.slice();
  for (const [name, value] of Object.entries(headers)) {
    const at = fixed.at.get(name.toLowerCase());
    if (at === undefined) pairs.push(name, value);
    else pairs[at] = value;
  }
  return pairs;
}

/**
 * Writes the whole answer with one writeHead of name/value pairs, the fixed ones made once: nothing is set on `res`
 * before it (the front door hands over the CORS headers instead of setting them), so node stores the header block
 * straight from the list rather than merging header by header (measured in docs/benchmarks.md).
 */
function send(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string,
  head: boolean,
  cors: Readonly<Record<string, string>> | undefined,
): void {
  writeAnswer(res, status, pairsWith(fixedFor(cors), headers), body, head);
}

function writeAnswer(res: ServerResponse, status: number, pairs: string[], body: string, head: boolean): void {
  pairs.push("Content-Length", String(Buffer.byteLength(body)));
  res.writeHead(status, pairs);
  res.end(head ? undefined : body);
}

/** Stands for the request id in a success header block made once (a request id is never this: see requestIdFrom). */
const REQUEST_ID_SLOT = "\u0000request-id";

/**
 * A successful answer: its headers are the operation's (`success`, lib/transports/rest.ts) merged with the fixed
 * ones once per operation, CORS set and kind of result; each request copies that block and puts in its request id.
 */
function sendSuccess(
  res: ServerResponse,
  op: HttpOperation,
  result: unknown,
  requestId: string,
  head: boolean,
  cors: Readonly<Record<string, string>> | undefined,
): void {
  const fixed = fixedFor(cors);
  const answers = headerSets().answers;
  let byCors = answers.get(op);
  if (!byCors) answers.set(op, (byCors = new Map<object | undefined, Answer[]>()));
  let made = byCors.get(cors);
  if (!made) byCors.set(cors, (made = []));
  const kind = typeof result === "string" ? 1 : 0;
  let block = made[kind];
  if (!block) {
    const pairs = pairsWith(fixed, success(op, kind ? "" : null, REQUEST_ID_SLOT).headers);
    const requestIdAt = pairs.indexOf(REQUEST_ID_SLOT);
    if (requestIdAt === -1) throw new Error(`operation ${op.id}: its success headers carry no request id`);
    made[kind] = block = { pairs, requestIdAt };
  }
  const pairs = block.pairs.slice();
  pairs[block.requestIdAt] = requestId;
  writeAnswer(res, op.http.status ?? 200, pairs, successBody(op, result), head);
}

/**
 * Reads a request body up to `max` bytes. Past that it stops keeping what arrives and refuses with 413; the answer
 * then reads the rest away (endAfterBody) so that the client can finish sending and read it.
 */
function readBody(req: IncomingMessage, max: number): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? NaN);
  if (Number.isFinite(declared) && declared > max) return Promise.reject(tooLarge(max));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeListener("data", onData);
        req.removeListener("end", onEnd);
        reject(tooLarge(max));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      try {
        resolve(UTF8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
      } catch {
        reject(new AppError("invalid_encoding", 400, "The request body is not valid UTF-8."));
      }
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", reject);
  });
}

/**
 * How much of a request's body is still read after an answer that refused it (bodies over the cap, a refused URL or
 * host, a failed upload), and for how long, before the connection is closed:
 * - bytes: 8 MiB after the answer. Closing a socket with unread bytes in it makes the kernel send a reset, and a
 *   client still writing its body then gets EPIPE or ECONNRESET instead of the answer already sent to it (a Node
 *   client posting 4 MB to /validate lost its 413 on about a third of requests). Reading on lets its write complete
 *   (RFC 9112 §9.6, staged close). 8 MiB is twice the largest body any route here takes (a server action's 4 MB):
 *   a file sent by mistake is read away, a client that keeps sending past that is cut off.
 * - time: 10 s after the answer, so a client that sends slowly (or stalls) cannot hold the connection much beyond
 *   it: 8 MiB fits in 10 s at 0.8 MB/s. Node's requestTimeout (server.ts) still bounds the request as a whole.
 * The bytes are thrown away as they arrive: lingering costs a socket and a timer, no memory. Tests may lower both.
 */
export const LINGER = { bytes: 8 * 1024 * 1024, ms: 10_000 };

/** Whether a request declares a body: a length other than 0, or chunked transfer encoding. */
const declaresBody = (req: IncomingMessage) =>
  req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] !== undefined && req.headers["content-length"] !== "0");

/**
 * Ends an answer whose head (with `Connection: close` and its Content-Length) is written, once the request's body
 * has been read to its end, or LINGER's bounds are reached, or the client goes away: `body` goes out at once, so the
 * client can read it while it is still sending; the connection closes after (server.ts's node:http closes it once
 * the answer is finished, Connection: close). A request whose body is already read, or that has none, ends at once.
 */
export function endAfterBody(req: IncomingMessage, res: ServerResponse, body: string | undefined): void {
  if (req.complete || req.readableEnded || req.destroyed || !declaresBody(req)) {
    res.end(body);
    return;
  }
  if (body !== undefined) res.write(body);
  let left = LINGER.bytes;
  let timer: NodeJS.Timeout | undefined;
  const done = () => {
    if (timer === undefined) return;
    clearTimeout(timer);
    timer = undefined;
    req.removeListener("data", discard);
    req.removeListener("end", done);
    req.removeListener("close", done);
    res.removeListener("close", done);
    // Past a bound, the client may still be sending: closing the socket now cuts it off (a reset), as intended.
    if (!res.destroyed) res.end();
  };
  const discard = (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) done();
  };
  timer = setTimeout(done, LINGER.ms);
  // Whoever read the body before (the JSON reader, an upload's stream) gets nothing more: the rest is thrown away.
  req.removeAllListeners("data");
  req.on("data", discard);
  req.once("end", done);
  req.once("close", done);
  res.once("close", done);
  req.resume();
}

/**
 * Answers a request on a lean path. Returns false when the path is not one of ours. `cors` are the headers the front
 * door's CORS rule gives this request (lib/transports/cors.ts), sent with the answer.
 */
export async function handleLean(req: IncomingMessage, res: ServerResponse, cors?: Readonly<Record<string, string>>): Promise<boolean> {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const pathname = q === -1 ? url : url.slice(0, q);
  const match = leanMatch(pathname);
  if (!match) return false;
  const { op, params } = match;
  const method = op.http.method;
  const requestId = requestIdFrom(req.headers["x-request-id"] as string | undefined);
  const head = req.method === "HEAD" && method === "GET";
  try {
    if (req.method !== method && !head) {
      const allow = method === "GET" ? "GET, HEAD" : method;
      throw new AppError("method_not_allowed", 405, `${pathname} accepts ${allow}.`, { headers: { Allow: allow } });
    }
    let body: unknown;
    if (op.input?.body && !op.http.bodyStream) {
      checkJsonContentType(req.headers["content-type"]);
      body = parseJsonText(await readBody(req, bodyCapOf(op)));
    }
    const query = q === -1 ? {} : queryObject(new URL(url, "http://lean.invalid"));
    const input = parseParts(op, { query, params, body });
    let headers: Headers | undefined;
    const ctx = {
      transport: "lean" as const,
      client: clientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"]),
      requestId,
      // Built only when read: the licensing operations do not need them, and the hot path should not pay for them.
      get headers() {
        return (headers ??= toHeaders(req));
      },
      // Our own origin as this request addressed it (the Host was checked by the front door), for same-origin checks:
      // the same rule as every other transport's (lib/http/host.ts).
      get origin() {
        return addressedOrigin({ get: (name: string) => (req.headers[name] as string | undefined) ?? null });
      },
    };
    // The body was read under the operation's cap above: execute() need not measure the input again.
    let extra: Parameters<typeof execute>[3] = op.input?.body && !op.http.bodyStream ? { bodyCapped: true } : {};
    if (op.http.bodyStream) {
      const declared = req.headers["content-length"];
      const contentLength = declared !== undefined && /^\d{1,15}$/.test(declared) ? Number(declared) : null;
      extra = { bodyStream: Readable.toWeb(req) as ReadableStream<Uint8Array>, contentLength };
    }
    const result = await execute(op, input, ctx, extra);
    if (op.http.redirect) {
      send(res, 302, { ...baseHeaders(requestId, CACHE.none), Location: (result as Redirect).location }, "", head, cors);
      return true;
    }
    sendSuccess(res, op, result, requestId, head, cors);
  } catch (error) {
    const appError = toAppError(error, requestId);
    const headers = { ...baseHeaders(requestId, CACHE.none), ...appError.extra.headers, "Content-Type": PROBLEM_CONTENT_TYPE };
    const body = problemBody(appError, requestId, pathname);
    // A body we stopped reading must not be taken for the next request on this connection: the answer closes it,
    // after reading the rest away (bounded), so that the client can finish sending and read this answer.
    if (appError.status === 413 || (op.http.bodyStream && !req.readableEnded)) {
      const pairs = pairsWith(fixedFor(cors), { ...headers, Connection: "close" });
      pairs.push("Content-Length", String(Buffer.byteLength(body)));
      res.writeHead(appError.status, pairs);
      endAfterBody(req, res, head ? undefined : body);
    } else {
      send(res, appError.status, headers, body, head, cors);
    }
  }
  return true;
}

function toHeaders(req: IncomingMessage): Headers {
  const out = new Headers();
  for (const [k, v] of Object.entries(req.headers)) for (const value of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.append(k, value);
  return out;
}
