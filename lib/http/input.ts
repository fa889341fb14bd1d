import type { z } from "zod";
import { AppError, type ProblemFieldError } from "./errors.ts";

/** Default cap on request bodies. Every JSON body this API takes fits in a few kilobytes. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
/** Deeper JSON than this is refused before validation: no legitimate request nests so far. */
export const MAX_JSON_DEPTH = 32;

function zodErrors(where: string, error: z.ZodError): ProblemFieldError[] {
  return error.issues.map((issue) => ({
    in: where,
    name: issue.path.map(String).join(".") || "(root)",
    message: issue.message,
  }));
}

export function invalid(where: "query" | "body" | "path", error: z.ZodError): AppError {
  const errors = zodErrors(where, error);
  const first = errors[0] ?? { in: where, name: "(root)", message: "is invalid" };
  const label = where === "query" ? "query parameter" : where === "path" ? "path parameter" : "field";
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  return new AppError(`invalid_${where}`, 400, `Invalid ${label} "${first.name}": ${first.message}${more}`, { errors });
}

/** Query parameters as a plain object; the first value wins when a name repeats. */
export function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (!(k in out)) out[k] = v;
  return out;
}

export function parseWith<T>(schema: z.ZodType<T>, where: "query" | "body" | "path", value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(where, result.error);
  return result.data;
}

function depthExceeds(value: unknown, max: number): boolean {
  // Iterative, so hostile nesting cannot exhaust the stack.
  const stack: Array<[unknown, number]> = [[value, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [v, d] = item;
    if (v === null || typeof v !== "object") continue;
    if (d > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return false;
}

/** Parses a JSON body text with the checks every endpoint shares. */
export function parseJsonText(text: string): unknown {
  if (text.trim() === "") throw new AppError("body_required", 400, "A JSON request body is required.");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError("invalid_json", 400, "The request body is not valid JSON.");
  }
  if (depthExceeds(value, MAX_JSON_DEPTH)) {
    throw new AppError("body_too_deep", 400, `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  return value;
}

export function checkJsonContentType(contentType: string | null | undefined): void {
  const type = (contentType ?? "").replace(/;.*$/s, "").trim().toLowerCase();
  if (type !== "application/json" && !/^application\/[a-z0-9.+-]*\+json$/.test(type)) {
    throw new AppError("unsupported_media_type", 415, `Send the body as JSON with "Content-Type: application/json"${type ? `, not "${type}"` : ""}.`);
  }
}

export function tooLarge(max: number): AppError {
  return new AppError("body_too_large", 413, `The request body is larger than the ${max}-byte limit.`);
}

/** Reads a Fetch API body, stopping as soon as it passes `max` bytes (chunked bodies included). */
export async function readBodyText(request: Request, max = DEFAULT_MAX_BODY_BYTES): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > max) throw tooLarge(max);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(max);
    }
    chunks.push(value);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new AppError("invalid_encoding", 400, "The request body is not valid UTF-8.");
  }
}
