import type { IncomingMessage, ServerResponse } from "node:http";
import { hasHttp } from "../operations/define.ts";
import { operations } from "../operations/index.ts";

/**
 * Cross-origin access, decided in one place for every request server.ts sees (lib/transports/front.ts calls `applyCors`
 * before the lean path and before Next, and hands the headers it returns to whichever answers).
 *
 * Which paths allow any origin:
 * - every operation declared `auth: "public"` or `auth: "agent"` (lib/operations/*; agent platforms authenticate
 *   with a Bearer key, never a cookie), for the methods declared at its path;
 * - the documents below that are not operations (discovery documents, /openapi.json, /llms.txt, /oacs), MCP and A2A.
 * Everything else (operations with auth "seller" or "admin", pages, /auth, /dashboard, /licenses, /admin, server
 * actions, /api/dev/mailbox) gets no CORS header at all, and its preflight goes on to Next as before, which does not
 * approve it (no Access-Control-Allow-Origin), so a browser on another origin never sends the request.
 *
 * The answer is `Access-Control-Allow-Origin: *` and never `Access-Control-Allow-Credentials`: browsers then send no
 * cookies cross-origin, so a public route cannot act as the signed-in user even if it read a cookie. Because the
 * value is the same for every origin, responses carry no `Vary: Origin`: a cache may keep one copy for all origins.
 */

/** Documents served by Next routes that are not operations: read-only, the same for everyone. */
const PUBLIC_DOCUMENTS = ["/.well-known/*", "/openapi.json", "/llms.txt", "/llms-full.txt", "/oacs"] as const;

/** The MCP endpoint (streamable HTTP): GET opens the event stream, POST sends messages, DELETE ends a session. */
const MCP_PATH = "/api/mcp";
/** The A2A endpoint (JSON-RPC, POST only; lib/transports/a2a/endpoint.ts). */
const A2A_PATH = "/api/a2a";

const BASE_REQUEST_HEADERS = [
  "content-type",
  "authorization",
  "idempotency-key",
  "api-version",
  "x-request-id",
  "request-id",
  "accept-language",
  "signature",
  "timestamp",
];
const MCP_REQUEST_HEADERS = ["mcp-session-id", "mcp-protocol-version", "last-event-id"];
/** A2A's service parameters travel as headers: the protocol version and the extensions asked for (0.3's name too). */
const A2A_REQUEST_HEADERS = ["a2a-version", "a2a-extensions", "x-a2a-extensions"];
const EXPOSED = ["Link", "Retry-After", "X-Request-Id", "Location", "Idempotency-Key", "Idempotent-Replayed", "Request-Id"];
const CORS_MAX_AGE = 86_400;

export interface CorsRule {
  /** Methods a cross-origin caller may use (without OPTIONS, which is always answered). */
  methods: readonly string[];
  mcp: boolean;
  a2a?: boolean;
}

interface Entry {
  match: (pathname: string) => boolean;
  rule: CorsRule;
}

const withHead = (methods: Iterable<string>): string[] => {
  const set = new Set(methods);
  if (set.has("GET")) set.add("HEAD");
  return [...set];
};

function templateMatcher(template: string): (pathname: string) => boolean {
  const pattern = template
    .split("/")
    .map((part) => (/^\{[^/]+\}$/.test(part) ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  const re = new RegExp(`^${pattern}/?$`);
  return (pathname) => re.test(pathname);
}

let table: Entry[] | undefined;

function entries(): Entry[] {
  if (table) return table;
  const byPath = new Map<string, Set<string>>();
  for (const op of operations().filter(hasHttp)) {
    if (op.auth !== "public" && op.auth !== "agent") continue;
    const set = byPath.get(op.http.path) ?? new Set<string>();
    set.add(op.http.method);
    byPath.set(op.http.path, set);
  }
  const list: Entry[] = [...byPath].map(([path, methods]) => ({ match: templateMatcher(path), rule: { methods: withHead(methods), mcp: false } }));
  list.push({ match: (p) => p === MCP_PATH, rule: { methods: ["GET", "POST", "DELETE"], mcp: true } });
  list.push({ match: (p) => p === A2A_PATH, rule: { methods: ["POST"], mcp: false, a2a: true } });
  for (const doc of PUBLIC_DOCUMENTS) {
    const match = doc.endsWith("/*") ? (p: string) => p.startsWith(doc.slice(0, -1)) : (p: string) => p === doc;
    list.push({ match, rule: { methods: ["GET", "HEAD"], mcp: false } });
  }
  table = list;
  return list;
}

/** The cross-origin rule for a path, or null when the path stays same-origin. */
export function corsRule(pathname: string): CorsRule | null {
  return entries().find((e) => e.match(pathname))?.rule ?? null;
}

/** Headers every answer on a public path carries (successes and problem documents alike): two sets, made once. */
const RESPONSE_HEADERS = {
  api: { "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": EXPOSED.join(", ") },
  // MCP clients in a browser read WWW-Authenticate on a 401 (a bad seller token) to find the resource metadata.
  mcp: { "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": [...EXPOSED, "Mcp-Session-Id", "WWW-Authenticate"].join(", ") },
} as const;
const corsResponseHeaders = (rule: CorsRule): Readonly<Record<string, string>> => (rule.mcp ? RESPONSE_HEADERS.mcp : RESPONSE_HEADERS.api);

/** The approval of a preflight. */
function corsPreflightHeaders(rule: CorsRule): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": [...rule.methods, "OPTIONS"].join(", "),
    "Access-Control-Allow-Headers": [
      ...BASE_REQUEST_HEADERS,
      ...(rule.mcp ? MCP_REQUEST_HEADERS : []),
      ...(rule.a2a ? A2A_REQUEST_HEADERS : []),
    ].join(", "),
    "Access-Control-Max-Age": String(CORS_MAX_AGE),
  };
}

/**
 * For server.ts's listener: answers OPTIONS on a public path itself (204 with the approval; returns true), or returns
 * the CORS headers whatever answers next must send (the lean path puts them in its one header block; for Next and MCP
 * the front door sets them on `res`), success or problem document alike. A method the path does not serve publicly
 * gets nothing (undefined), so a seller operation sharing a path with a public one stays same-origin.
 */
export function applyCors(req: IncomingMessage, res: ServerResponse): true | Readonly<Record<string, string>> | undefined {
  const pathname = (req.url ?? "/").replace(/[?#].*$/s, "");
  const rule = corsRule(pathname);
  if (!rule) return undefined;
  const method = (req.method ?? "GET").toUpperCase();
  if (method === "OPTIONS") {
    // Any OPTIONS here is answered, a preflight or not; a preflight for a method not listed is refused by the browser.
    const allow = [...rule.methods, "OPTIONS"].join(", ");
    res.writeHead(204, { ...corsPreflightHeaders(rule), Allow: allow, "Cache-Control": `public, max-age=${CORS_MAX_AGE}` });
    res.end();
    return true;
  }
  if (!rule.methods.includes(method)) return undefined;
  return corsResponseHeaders(rule);
}
