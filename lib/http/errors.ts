/** A failure the caller can act on. `lib/` code throws these; the HTTP layer turns them into problem documents. */
export class AppError extends Error {
  constructor(
    /** Stable, machine-readable, snake_case; never changes once published. */
    readonly code: string,
    readonly status: number,
    readonly detail: string,
    readonly extra: { errors?: ProblemFieldError[]; headers?: Record<string, string> } = {},
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
