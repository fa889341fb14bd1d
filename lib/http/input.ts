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

/**
 * Control characters: C0 (U+0000–U+001F), DEL and C1 (U+0080–U+009F). No field of this API means to hold one, and
 * some break things further down (PostgreSQL refuses NUL in text). Bodies may hold tab, line feed and carriage return
 * (multi-line descriptions); query and path parameters may not.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_IN_BODY = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_IN_PARAMETER = /[\u0000-\u001f\u007f-\u009f]/;

/** True when a string holds a control character (see above) or half a surrogate pair (not text at all). */
export function hasControlCharacter(text: string, multiLine = true): boolean {
  return (multiLine ? CONTROL_IN_BODY : CONTROL_IN_PARAMETER).test(text) || !text.isWellFormed();
}

/** Refinements for string schemas that forms share with the API: one line of text, or text that may span lines. */
export const CONTROL_CHARACTER_MESSAGE = "must not contain control characters";
export const singleLineText = (text: string): boolean => !hasControlCharacter(text, false);
export const multiLineText = (text: string): boolean => !hasControlCharacter(text, true);

/** For lenient readers (storefront URLs): every control character becomes a space, half surrogate pairs U+FFFD. */
export function blankControlCharacters(text: string): string {
  // eslint-disable-next-line no-control-regex -- replacing control characters is the point
  return text.toWellFormed().replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
}

/** The dotted path of the first string (or object key) in a value that holds a control character; null when none does. */
function controlCharacterPath(value: unknown, multiLine = true): string | null {
  // Iterative, like depthExceeds: the value may be hostile.
  const stack: Array<[unknown, string]> = [[value, ""]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [v, path] = item;
    if (typeof v === "string") {
      if (hasControlCharacter(v, multiLine)) return path || "(root)";
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    const entries: Array<[string, unknown]> = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
    for (const [k, child] of entries) {
      const at = path ? `${path}.${k}` : k;
      if (!Array.isArray(v) && hasControlCharacter(k, multiLine)) return at;
      stack.push([child, at]);
    }
  }
  return null;
}

/** Refuses input holding a control character, with the same problem shape as a schema refusal. */
export function refuseControlCharacters(where: "query" | "body" | "path", value: unknown): void {
  // The body parseJsonText just made from text that could not spell a control character needs no walk (once).
  if (where === "body" && value === plainBody && value !== undefined) {
    plainBody = undefined;
    return;
  }
  const name = controlCharacterPath(value, where === "body");
  if (name === null) return;
  const message = where === "body" ? "must not contain control characters (tab and line breaks aside)" : "must not contain control characters";
  const label = where === "query" ? "query parameter" : where === "path" ? "path parameter" : "field";
  throw new AppError(`invalid_${where}`, 400, `Invalid ${label} "${name}": ${message}`, { errors: [{ in: where, name, message }] });
}

export function parseWith<T>(schema: z.ZodType<T>, where: "query" | "body" | "path", value: unknown): T {
  refuseControlCharacters(where, value);
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

/**
 * The last JSON body parsed from text that could not spell a control character: JSON refuses raw C0 characters
 * inside strings, so without a backslash (no escapes), DEL or C1 character, and with no half surrogate pair, none of
 * its strings or keys holds one. refuseControlCharacters skips its walk for it, once (the licensing hot path parses
 * and checks a body with nothing in between; any other body, or this one checked again, is walked).
 */
let plainBody: unknown;

const SHALLOW = 1;
const PLAIN = 2;
/**
 * What a JSON text's characters alone tell, in one pass: SHALLOW when it has no more `{` and `[` than MAX_JSON_DEPTH
 * (so it cannot nest deeper), PLAIN when nothing in it can decode to a control character (above).
 */
function textFacts(text: string): number {
  let openings = 0;
  let plain = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) openings++;
    else if (c === 0x5c || (c >= 0x7f && c <= 0x9f)) plain = false;
  }
  return (openings <= MAX_JSON_DEPTH ? SHALLOW : 0) | (plain && text.isWellFormed() ? PLAIN : 0);
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
  const facts = textFacts(text);
  if (!(facts & SHALLOW) && depthExceeds(value, MAX_JSON_DEPTH)) {
    throw new AppError("body_too_deep", 400, `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  plainBody = facts & PLAIN && typeof value === "object" && value !== null ? value : undefined;
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

/** Strict UTF-8 (a malformed body is refused, not repaired); one decoder serves every request (no streaming state). */
export const UTF8 = new TextDecoder("utf-8", { fatal: true });

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
    return UTF8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  } catch {
    throw new AppError("invalid_encoding", 400, "The request body is not valid UTF-8.");
  }
}
