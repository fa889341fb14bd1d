import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import { AppError } from "./errors.ts";
import { CACHE } from "./headers.ts";
import { checkJsonContentType, DEFAULT_MAX_BODY_BYTES, parseJsonText, parseWith, tooLarge } from "./input.ts";
import { PROBLEM_CONTENT_TYPE } from "./problem.ts";
import { clientAddress, enforce, RULES, type RateRule } from "./rate-limit.ts";
import { baseHeaders, problemBody, requestIdFrom, toAppError } from "./respond.ts";
import { VERSIONS } from "../versions.ts";
import { activateMachine } from "../licensing/activate-machine.ts";
import { deactivateMachine } from "../licensing/deactivate-machine.ts";
import { validateLicense } from "../licensing/validate-license.ts";
import { activateRequestSchema, deactivateRequestSchema, validateRequestSchema } from "../licensing/schemas.ts";

/**
 * The paths server.ts answers itself, without Next's request pipeline: the licensing hot path that every licensed
 * app calls at every launch, and the health check. Same conventions as the route wrapper (problem documents, body
 * cap, Link header, request id) with none of its per-request overhead. Everything else goes to Next.
 */
interface LeanRoute<B> {
  method: "GET" | "POST";
  body?: z.ZodType<B>;
  limits?: (client: string, body: B) => Array<[RateRule, string]>;
  handle: (body: B) => Promise<unknown>;
}

const route = <B>(r: LeanRoute<B>) => r as LeanRoute<unknown>;

const routes: Record<string, LeanRoute<unknown>> = {
  "/health": route({ method: "GET", handle: async () => ({ status: "ok", version: VERSIONS.server }) }),
  "/validate": route({
    method: "POST",
    body: validateRequestSchema,
    limits: (client, b) => [[RULES.validate, client], [RULES.key, b.license_key]],
    handle: (b) => validateLicense(b),
  }),
  "/activate": route({
    method: "POST",
    body: activateRequestSchema,
    limits: (client, b) => [[RULES.activation, client], [RULES.key, b.license_key]],
    handle: (b) => activateMachine(b),
  }),
  "/deactivate": route({
    method: "POST",
    body: deactivateRequestSchema,
    limits: (client, b) => [[RULES.activation, client], [RULES.key, b.license_key]],
    handle: (b) => deactivateMachine(b),
  }),
};

export function isLeanPath(pathname: string): boolean {
  return Object.hasOwn(routes, pathname);
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string, head: boolean): void {
  res.writeHead(status, { ...headers, "Content-Length": Buffer.byteLength(body) });
  res.end(head ? undefined : body);
}

/** Reads a request body up to `max` bytes; past that it answers 413 without reading the rest. */
function readBody(req: IncomingMessage, max: number): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? NaN);
  if (Number.isFinite(declared) && declared > max) return Promise.reject(tooLarge(max));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners("data");
        req.resume();
        reject(tooLarge(max));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      try {
        resolve(new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks)));
      } catch {
        reject(new AppError("invalid_encoding", 400, "The request body is not valid UTF-8."));
      }
    });
    req.on("error", reject);
  });
}

/** Answers a request on a lean path. Returns false when the path is not one of ours. */
export async function handleLean(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const q = req.url?.indexOf("?") ?? -1;
  const pathname = q === -1 ? (req.url ?? "/") : req.url!.slice(0, q);
  if (!Object.hasOwn(routes, pathname)) return false;
  const r = routes[pathname]!;
  const requestId = requestIdFrom(req.headers["x-request-id"] as string | undefined);
  const head = req.method === "HEAD" && r.method === "GET";
  try {
    if (req.method !== r.method && !head) {
      const allow = r.method === "GET" ? "GET, HEAD" : r.method;
      throw new AppError("method_not_allowed", 405, `${pathname} accepts ${allow}.`, { headers: { Allow: allow } });
    }
    let body: unknown;
    if (r.body) {
      checkJsonContentType(req.headers["content-type"]);
      body = parseWith(r.body, "body", parseJsonText(await readBody(req, DEFAULT_MAX_BODY_BYTES)));
      if (r.limits) enforce(r.limits(clientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"]), body));
    }
    const out = await r.handle(body);
    send(res, 200, { ...baseHeaders(requestId, CACHE.none), "Content-Type": "application/json; charset=utf-8" }, JSON.stringify(out), head);
  } catch (error) {
    const appError = toAppError(error, requestId);
    // A body we stopped reading must not be taken for the next request on this connection.
    if (appError.status === 413) res.setHeader("Connection", "close");
    send(
      res,
      appError.status,
      { ...baseHeaders(requestId, CACHE.none), ...appError.extra.headers, "Content-Type": PROBLEM_CONTENT_TYPE },
      problemBody(appError, requestId, pathname),
      head,
    );
  }
  return true;
}
