import { CACHE } from "../http/headers.ts";
import { checkJsonContentType, parseJsonText, queryObject, readBodyText } from "../http/input.ts";
import { CLIENT_ADDRESS_HEADER } from "../http/rate-limit.ts";
import { acpError } from "../acp/errors.ts";
import { AppError } from "../http/errors.ts";
import { baseHeaders, problemResponse, requestIdFrom, toAppError } from "../http/respond.ts";
import { methods } from "./route.ts";
import type { HttpOperation, Method, Operation, Redirect } from "../operations/define.ts";
import { hasHttp } from "../operations/define.ts";
import { authorize, execute, parseParts } from "../operations/execute.ts";
import { bodyCapOf } from "../operations/guarantees.ts";
import { operationsAt } from "../operations/index.ts";
import { addressedOrigin } from "../http/host.ts";

/** Status, headers and body of a successful call, as every HTTP adapter sends it. */
export function success(op: Operation, result: unknown, requestId: string): { status: number; headers: Record<string, string>; body: string } {
  const http = op.http;
  const textType = typeof result === "string" ? http?.contentType : undefined;
  // Built in place rather than spread together: this runs on every call of the licensing hot path.
  const headers = baseHeaders(requestId, http?.cache ?? CACHE.none);
  if (http?.headers) Object.assign(headers, http.headers);
  headers["Content-Type"] = textType ?? (http?.contentType ? `${http.contentType}; charset=utf-8` : JSON_UTF8);
  return { status: http?.status ?? 200, headers, body: successBody(op, result) };
}

/**
 * The body of a successful call: a text operation's string as it is, anything else as JSON. A frozen result is an
 * answer a handler made once for many callers (validation's valid perpetual license), immutable all the way down; its
 * JSON is made once too.
 */
export function successBody(op: Operation, result: unknown): string {
  if (typeof result === "string" && op.http?.contentType !== undefined) return result;
  if (typeof result !== "object" || result === null || !Object.isFrozen(result)) return JSON.stringify(result);
  let json = madeOnce.get(result);
  if (json === undefined) madeOnce.set(result, (json = JSON.stringify(result)));
  return json;
}
const madeOnce = new WeakMap<object, string>();

const JSON_UTF8 = "application/json; charset=utf-8";

type NextContext = { params?: Promise<Record<string, string | string[] | undefined>> };

function nextHandler(op: HttpOperation) {
  const http = op.http;
  return async (request: Request, context?: NextContext): Promise<Response> => {
    const requestId = requestIdFrom(request.headers.get("x-request-id"));
    const url = new URL(request.url);
    const responseHeaders: Record<string, string> = {};
    // ACP echoes the caller's correlation id on every answer, errors included.
    const correlation = http.errorFormat === "acp" ? request.headers.get("request-id") : null;
    if (correlation && /^[\x21-\x7e]{1,255}$/.test(correlation)) responseHeaders["Request-Id"] = correlation;
    try {
      const idempotencyKey = op.idempotency ? (request.headers.get("idempotency-key") ?? undefined) : undefined;
      const ctx = {
        transport: "rest" as const,
        client: request.headers.get(CLIENT_ADDRESS_HEADER) ?? "unknown",
        requestId,
        headers: request.headers,
        origin: addressedOrigin(request.headers),
        responseHeaders,
        ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      };
      const caller = await authorize(op, ctx);
      let body: unknown;
      let raw: string | undefined;
      if (http.bodyStream) {
        const declared = request.headers.get("content-length");
        const contentLength = declared !== null && /^\d{1,15}$/.test(declared) ? Number(declared) : null;
        const input = parseParts(op, { query: queryObject(url), params: (await context?.params) ?? {} });
        const stream = request.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
        const result = await execute(op, input, ctx, { caller, bodyStream: stream, contentLength });
        const out = success(op, result, requestId);
        return new Response(out.body, { status: out.status, headers: { ...out.headers, ...responseHeaders } });
      }
      if (op.input?.body) {
        if (!http.rawBody) checkJsonContentType(request.headers.get("content-type"));
        raw = await readBodyText(request, bodyCapOf(op));
        if (!http.rawBody) body = parseJsonText(raw);
      }
      const input = parseParts(op, { query: queryObject(url), params: (await context?.params) ?? {}, body });
      const result = await execute(op, input, ctx, {
        caller,
        rawBody: http.rawBody ? raw : undefined,
        ...(op.input?.body ? { bodyCapped: true as const } : {}),
      });
      if (http.redirect) {
        const { location } = result as Redirect;
        return new Response(null, { status: 302, headers: { ...baseHeaders(requestId, CACHE.none), ...responseHeaders, Location: location } });
      }
      const out = success(op, result, requestId);
      return new Response(out.body, { status: out.status, headers: { ...out.headers, ...responseHeaders } });
    } catch (error) {
      const appError = toAppError(error, requestId);
      if (http.errorFormat === "acp") {
        return new Response(JSON.stringify(acpError(appError, op)), {
          status: appError.status,
          headers: {
            ...baseHeaders(requestId, CACHE.none),
            ...appError.extra.headers,
            ...responseHeaders,
            "Content-Type": "application/json; charset=utf-8",
          },
        });
      }
      return problemResponse(appError, requestId, url.pathname);
    }
  };
}

/**
 * A Next route file's exports for the operations declared at `path`, with a 405 problem for other methods:
 *
 *   export const { GET, POST, PUT, PATCH, DELETE } = restRoutes("/api/terms");
 */
export function restRoutes(path: string) {
  const handlers: Partial<Record<Method, ReturnType<typeof nextHandler>>> = {};
  const ops = operationsAt(path).filter(hasHttp);
  for (const op of ops) handlers[op.http.method] = nextHandler(op);
  const routes = methods(handlers);
  if (!ops.some((op) => op.http.errorFormat === "acp")) return routes;
  // An ACP path refuses every method it does not serve as it refuses anything else: an ACP Error of its endpoint's
  // schema (405, with Allow), so a client written to ACP's schemas reads this refusal too.
  const allowed = (["GET", "POST", "PUT", "PATCH", "DELETE"] as const).filter((m) => handlers[m]).join(", ");
  const refuse = (request: Request): Promise<Response> => {
    const requestId = requestIdFrom(request.headers.get("x-request-id"));
    const refusal = new AppError("method_not_allowed", 405, `${new URL(request.url).pathname} does not accept ${request.method}; use ${allowed}.`);
    return Promise.resolve(
      new Response(JSON.stringify(acpError(refusal, ops[0])), {
        status: 405,
        headers: { ...baseHeaders(requestId, CACHE.none), Allow: allowed, "Content-Type": JSON_UTF8 },
      }),
    );
  };
  return Object.fromEntries(Object.entries(routes).map(([m, h]) => [m, m in handlers ? h : refuse])) as typeof routes;
}
