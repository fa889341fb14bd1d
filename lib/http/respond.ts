import { randomUUID } from "node:crypto";
import { AppError } from "./errors.ts";
import { CACHE, linkHeader } from "./headers.ts";
import { internalError, PROBLEM_CONTENT_TYPE, problemFor, unavailable } from "./problem.ts";

/** Headers every API response carries, whichever server path produced it. */
export function baseHeaders(requestId: string, cacheControl: string): Record<string, string> {
  return {
    "Cache-Control": cacheControl,
    Link: linkHeader(),
    "X-Request-Id": requestId,
    "X-Content-Type-Options": "nosniff",
  };
}

export function requestIdFrom(header: string | null | undefined): string {
  // Accept a caller's id only when it is short and plain, so it cannot inject anything into logs or headers.
  return header && /^[A-Za-z0-9._-]{1,64}$/.test(header) ? header : randomUUID();
}

// Causes that mean "the database is not there right now" (down, restarting, failing over), not a bug.
const UNREACHABLE =
  /P1001|P1017|P2024|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Can't reach database|DatabaseNotReachable|ConnectionClosed|Connection terminated|connection timeout|timeout exceeded when trying to connect|Timed out fetching a new connection|57P01|57P02|57P03|terminating connection due to administrator command|the database system is (shutting down|starting up|in recovery mode)|Client has encountered a connection error|SQLITE_BUSY|database is locked/i;

/** Maps anything thrown to the AppError to answer with; unknown errors are logged and become a bare 500. */
export function toAppError(error: unknown, requestId: string): AppError {
  if (error instanceof AppError) return error;
  const e = (typeof error === "object" && error !== null ? error : {}) as {
    code?: string;
    message?: string;
    cause?: { message?: string; kind?: string; originalCode?: string };
  };
  const text = `${e.code ?? ""} ${e.message ?? ""} ${e.cause?.kind ?? ""} ${e.cause?.message ?? ""} ${e.cause?.originalCode ?? ""}`;
  if (UNREACHABLE.test(text)) {
    console.error(`[${requestId}] database unavailable:`, e.message);
    return unavailable();
  }
  console.error(`[${requestId}] unhandled error:`, error);
  return internalError();
}

export function problemBody(error: AppError, requestId: string, instance?: string): string {
  return JSON.stringify(problemFor(error, requestId, instance));
}

export function problemResponse(error: AppError, requestId: string, instance?: string): Response {
  return new Response(problemBody(error, requestId, instance), {
    status: error.status,
    headers: {
      ...baseHeaders(requestId, CACHE.none),
      ...error.extra.headers,
      "Content-Type": PROBLEM_CONTENT_TYPE,
    },
  });
}

export function jsonResponse(data: unknown, requestId: string, cacheControl: string, status = 200, contentType = "application/json"): Response {
  return new Response(JSON.stringify(data), {
    status,
    headers: { ...baseHeaders(requestId, cacheControl), "Content-Type": `${contentType}; charset=utf-8` },
  });
}
