import type { z } from "zod";
import { AppError } from "../http/errors.ts";
import { CACHE } from "../http/headers.ts";
import { checkJsonContentType, DEFAULT_MAX_BODY_BYTES, parseJsonText, parseWith, queryObject, readBodyText } from "../http/input.ts";
import { jsonResponse, problemResponse, requestIdFrom, toAppError } from "../http/respond.ts";
import { CLIENT_ADDRESS_HEADER, enforce, type RateRule } from "../http/rate-limit.ts";

interface RouteInput<Q, B, P> {
  query: Q;
  body: B;
  params: P;
  request: Request;
  url: URL;
  requestId: string;
  /** The client's address as server.ts saw it. */
  client: string;
}

export interface RouteSpec<Q, B, P> {
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  params?: z.ZodType<P>;
  /** Cache-Control of a successful answer; errors are never cached. */
  cache?: string;
  maxBodyBytes?: number;
  status?: number;
  contentType?: string;
  /** Rate limits to count this request against, checked before the body is read. */
  rateLimit?: (input: { client: string; query: Q; params: P }) => Array<[RateRule, string]>;
  /** May return a Promise; the wrapper awaits whatever it gets. */
  handler: (input: RouteInput<Q, B, P>) => unknown;
}

type NextContext = { params?: Promise<Record<string, string | string[] | undefined>> };

/**
 * The one wrapper around every API route handler: request id, body cap, JSON and zod parsing, error mapping to
 * problem documents, Cache-Control and the Link header. A handler only ever sees valid input.
 */
export function route<Q = undefined, B = undefined, P = undefined>(spec: RouteSpec<Q, B, P>) {
  return async (request: Request, context?: NextContext): Promise<Response> => {
    const requestId = requestIdFrom(request.headers.get("x-request-id"));
    const url = new URL(request.url);
    try {
      const query = spec.query ? parseWith(spec.query, "query", queryObject(url)) : (undefined as Q);
      const params = spec.params ? parseWith(spec.params, "path", (await context?.params) ?? {}) : (undefined as P);
      const client = request.headers.get(CLIENT_ADDRESS_HEADER) ?? "unknown";
      if (spec.rateLimit) enforce(spec.rateLimit({ client, query, params }));
      let body = undefined as B;
      if (spec.body) {
        checkJsonContentType(request.headers.get("content-type"));
        const text = await readBodyText(request, spec.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
        body = parseWith(spec.body, "body", parseJsonText(text));
      }
      const result = await spec.handler({ query, body, params, request, url, requestId, client });
      if (result instanceof Response) return result;
      return jsonResponse(result, requestId, spec.cache ?? CACHE.none, spec.status ?? 200, spec.contentType);
    } catch (error) {
      return problemResponse(toAppError(error, requestId), requestId, url.pathname);
    }
  };
}

type Handler = (request: Request, context?: NextContext) => Promise<Response>;
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];

/**
 * A route file's exports: the handlers it has, and a 405 problem document (with Allow) for every other method, so
 * no method gets Next's empty default answer.
 */
export function methods(handlers: Partial<Record<Method, Handler>>): Record<Method, Handler> {
  const allowed = METHODS.filter((m) => handlers[m]);
  const refuse = route({
    handler: ({ request, url }) => {
      throw new AppError("method_not_allowed", 405, `${url.pathname} does not accept ${request.method}; use ${allowed.join(" or ")}.`, {
        headers: { Allow: allowed.join(", ") },
      });
    },
  });
  return Object.fromEntries(METHODS.map((m) => [m, handlers[m] ?? refuse])) as Record<Method, Handler>;
}
