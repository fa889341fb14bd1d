import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError } from "./errors.ts";
import { CACHE } from "./headers.ts";
import { PROBLEM_CONTENT_TYPE } from "./problem.ts";
import { baseHeaders, problemBody, requestIdFrom, toAppError } from "./respond.ts";
import { VERSIONS } from "../versions.ts";

/**
 * The paths server.ts answers itself, without Next's request pipeline: the licensing hot path that every licensed
 * app calls at every launch, and the health check. Everything else goes to Next.
 */
type LeanHandler = (req: IncomingMessage, requestId: string) => Promise<{ status?: number; body: unknown; cache?: string }>;

const handlers: Record<string, { methods: string[]; handle: LeanHandler }> = {
  "/health": {
    methods: ["GET", "HEAD"],
    handle: async () => ({ body: { status: "ok", version: VERSIONS.server }, cache: CACHE.none }),
  },
};

export function isLeanPath(pathname: string): boolean {
  return Object.hasOwn(handlers, pathname);
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string, head: boolean): void {
  res.writeHead(status, { ...headers, "Content-Length": Buffer.byteLength(body) });
  res.end(head ? undefined : body);
}

/** Answers a request on a lean path. Returns false when the path is not one of ours. */
export async function handleLean(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const q = req.url?.indexOf("?") ?? -1;
  const pathname = q === -1 ? (req.url ?? "/") : req.url!.slice(0, q);
  const entry = handlers[pathname];
  if (!entry || !Object.hasOwn(handlers, pathname)) return false;
  const requestId = requestIdFrom(req.headers["x-request-id"] as string | undefined);
  const head = req.method === "HEAD";
  try {
    if (!entry.methods.includes(req.method ?? "")) {
      throw new AppError("method_not_allowed", 405, `${pathname} accepts ${entry.methods.join(", ")}.`, {
        headers: { Allow: entry.methods.join(", ") },
      });
    }
    const out = await entry.handle(req, requestId);
    send(
      res,
      out.status ?? 200,
      { ...baseHeaders(requestId, out.cache ?? CACHE.none), "Content-Type": "application/json; charset=utf-8" },
      JSON.stringify(out.body),
      head,
    );
  } catch (error) {
    const appError = toAppError(error, requestId);
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
