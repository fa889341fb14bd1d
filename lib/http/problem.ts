import { AppError, type ProblemFieldError } from "./errors.ts";

/** RFC 9457 problem document, with our stable `code` and the request id for support. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  request_id?: string;
  errors?: ProblemFieldError[];
}

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  411: "Length Required",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  421: "Misdirected Request",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export function problemFor(error: AppError, requestId?: string, instance?: string): Problem {
  return {
    ...error.extra.members,
    // The stable `code` tells problems apart; `type` stays the RFC 9457 default until codes get their own pages.
    type: "about:blank",
    title: TITLES[error.status] ?? "Error",
    status: error.status,
    detail: error.detail,
    code: error.code,
    ...(instance ? { instance } : {}),
    ...(requestId ? { request_id: requestId } : {}),
    ...(error.extra.errors?.length ? { errors: error.extra.errors } : {}),
  };
}

export const internalError = () => new AppError("internal_error", 500, "Something went wrong on our side. It has been logged; please retry later.");

export const unavailable = () =>
  new AppError("service_unavailable", 503, "The database is not reachable right now. Please retry shortly.", {
    headers: { "Retry-After": "5" },
  });
