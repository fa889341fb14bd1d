/**
 * Marks AppErrors across module copies: server.ts (loaded by tsx) and Next's bundle each evaluate this file, so each
 * has its own class. A registered symbol is the same in both, and `instanceof` checks it, so an error made by one copy
 * (say, a 429 from the shared rate limiter) is recognised by the other instead of becoming a 500.
 */
const BRAND = Symbol.for("indie-license-market.app-error");

/** A failure the caller can act on. `lib/` code throws these; the HTTP layer turns them into problem documents. */
export class AppError extends Error {
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  readonly [BRAND] = true;

  constructor(
    /** Stable, machine-readable, snake_case; never changes once published. */
    readonly code: string,
    readonly status: number,
    readonly detail: string,
    readonly extra: {
      errors?: ProblemFieldError[];
      headers?: Record<string, string>;
      /**
       * Members a protocol adds to the problem document beside ours (RFC 9457 allows extensions): OAuth's `error`
       * and `interval` on the device flow's token answers. They never replace the standard members.
       */
      members?: Record<string, string | number>;
    } = {},
  ) {
    super(detail);
    this.name = "AppError";
  }
}

export interface ProblemFieldError {
  /** Where the problem is: "query", "body", "path" or "header". */
  in: string;
  /** Dotted path of the offending field or parameter, e.g. "limit" or "receipt.product_id". */
  name: string;
  message: string;
}

export const notFound = (what: string, detail?: string) =>
  new AppError(`${what}_not_found`, 404, detail ?? `No ${what.replace(/_/g, " ")} with that identifier.`);
