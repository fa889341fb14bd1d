import type { z } from "zod";
import { AppError, type ProblemFieldError } from "@/lib/http/errors";

/**
 * What a dashboard form's server action hands back when it does not redirect: a message for the whole form, the
 * problems per field (keyed by the form field's name) and the submitted values, so nothing typed is lost.
 */
export interface FormState {
  message: string | null;
  errors: Record<string, string[]>;
  values: Record<string, string | string[]>;
  /** Where the seller fixes what the message names, when that is another page (e.g. the profile). */
  link?: { href: string; label: string };
}

export const EMPTY_FORM: FormState = { message: null, errors: {}, values: {} };

/** A hidden field the dashboard's forms set to "1" when sent from a browser that keeps chosen files after a refusal. */
export const FILES_KEPT_FIELD = "files_kept";
/**
 * Set in a refusal's values when the chosen files were already stored (a later check refused the form) and their
 * paths are in the values: the browser must not send them again.
 */
export const FILES_STORED_VALUE = "files_stored";

/** Text of one form field ("" when missing or a file). */
export function formText(fd: FormData, name: string): string {
  const v = fd.get(name);
  return typeof v === "string" ? v : "";
}

/** The submitted text fields, echoed back into the form after a refusal. */
export function formValues(fd: FormData, names: readonly string[], multi: readonly string[] = []): FormState["values"] {
  const out: FormState["values"] = {};
  for (const n of names) out[n] = formText(fd, n);
  for (const n of multi) out[n] = fd.getAll(n).filter((v): v is string => typeof v === "string");
  return out;
}

export function addError(errors: FormState["errors"], field: string, message: string): void {
  const list = (errors[field] ??= []);
  if (!list.includes(message)) list.push(message);
}

/** Form fields whose value may be the path of a file uploaded with the form. */
const UPLOAD_FIELDS: ReadonlySet<string> = new Set(["icon_url", "images"]);

const ZOD_DEFAULT = /^(Invalid|Too (small|big)|Expected)/;

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * What issueMessage reads of an issue: a zod issue, or one rebuilt from a problem document's field error (see
 * problemFieldErrors), whose `input` is what the form sent for the field.
 */
type Issue = Pick<z.core.$ZodIssue, "path" | "message"> & {
  code: string;
  input?: unknown;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  format?: string;
};

/** One zod issue in words a seller understands. Messages written in the schema are kept; zod's defaults are rephrased. */
function issueMessage(issue: Issue, numeric: ReadonlySet<string> = new Set()): string {
  const field = String(issue.path[0] ?? "");
  // Parsed with { reportInput: true }: an empty field gets one plain message, not every rule it breaks.
  if ("input" in issue && (issue.input === "" || (issue.input === undefined && !numeric.has(field)))) return "This field is required.";
  if (!ZOD_DEFAULT.test(issue.message)) return capitalise(issue.message).replace(/\.?$/, ".");
  switch (issue.code) {
    case "invalid_type":
      return numeric.has(field) ? "Enter a whole number." : "This field is required.";
    case "too_small": {
      const min = Number(issue.minimum);
      if (issue.origin === "string") return min <= 1 ? "This field is required." : `Use at least ${min} characters.`;
      if (issue.origin === "array" || issue.origin === "set") return `Choose at least ${min}.`;
      return `Must be at least ${min}.`;
    }
    case "too_big": {
      const max = Number(issue.maximum);
      if (issue.origin === "string") return `Use at most ${max} characters.`;
      if (issue.origin === "array" || issue.origin === "set") return `At most ${max} items.`;
      return `Must be at most ${max}.`;
    }
    case "invalid_format":
      if (issue.format === "url") return "Enter a full address starting with https://.";
      if (issue.format === "email") return "Enter a valid e-mail address.";
      return "This value is not in the expected format.";
    case "invalid_value":
      return "Choose one of the options.";
    case "invalid_union":
      // Only the image fields take an uploaded file's path; no other field has an upload to point to.
      return UPLOAD_FIELDS.has(field)
        ? "Enter a full address starting with https:// or upload a file."
        : "Enter a full address starting with https://.";
    default:
      return "This value is not valid.";
  }
}

/**
 * zod's default messages (English), as a problem document's field errors carry them, read back into the issue they
 * were written from: issueMessage then words them as it words the issue itself.
 */
const DEFAULT_MESSAGES: Array<[RegExp, (m: RegExpExecArray) => Omit<Issue, "path" | "message">]> = [
  [/^Invalid input: expected \w+, received \w+$/, () => ({ code: "invalid_type" })],
  [/^Invalid (?:option: expected one of |input: expected )/, () => ({ code: "invalid_value" })],
  [
    /^Too (small|big): expected (\w+) to (?:have|be) (?:exactly |[<>]=?)(-?[\d.]+)/,
    (m) => (m[1] === "small" ? { code: "too_small", origin: m[2], minimum: Number(m[3]) } : { code: "too_big", origin: m[2], maximum: Number(m[3]) }),
  ],
  [/^Invalid URL$/, () => ({ code: "invalid_format", format: "url" })],
  [/^Invalid email address$/, () => ({ code: "invalid_format", format: "email" })],
  [/^Invalid (?:string: must |[A-Za-z0-9 -]+$)/, () => ({ code: "invalid_format", format: "regex" })],
];

/**
 * The issue a problem document's field error was written from, with what the form sent for that field when the
 * problem is the input's own (a 400: an empty field is then a missing one); a later refusal (a 409 naming fields the
 * profile must keep, say) is worded as it is.
 */
function issueOf(error: ProblemFieldError, sent: Record<string, unknown> | undefined): Issue {
  const path = error.name === "(root)" ? [] : error.name.split(".").map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  let input: unknown = sent;
  for (const part of path) input = input !== null && typeof input === "object" ? (input as Record<PropertyKey, unknown>)[part] : undefined;
  // An empty field, or one of spaces (the schemas trim), is a missing one.
  if (typeof input === "string" && input.trim() === "") input = "";
  const sentInput = sent ? { input } : {};
  // "Invalid input" is what a union (an address or an uploaded file's path) says when neither fits.
  const found = error.message === "Invalid input" ? { code: "invalid_union" } : undefined;
  for (const [re, read] of found ? [] : DEFAULT_MESSAGES) {
    const m = re.exec(error.message);
    if (m) return { ...read(m), path, message: error.message, ...sentInput };
  }
  return { code: found?.code ?? "custom", path, message: error.message, ...sentInput };
}

export interface ProblemWording {
  /** What the form sent (the operation's input before parsing), to tell an empty field from a wrong one. */
  sent?: Record<string, unknown>;
  /** The form field that shows an input field's problems, when named otherwise (price_cents → price). */
  rename?: Readonly<Record<string, string>>;
  /** Input fields that take numbers. */
  numeric?: ReadonlySet<string>;
  /** Input fields whose problems the form has already reported in its own words (one it could not translate). */
  skip?: ReadonlySet<string>;
  /** The form's own wording for one problem: given the issue and issueMessage's words, the words to show. */
  word?: (issue: Issue & { field: string }, message: string) => string;
}

/**
 * A refused operation's field problems (a problem document's `errors`, `{ in, name, message }` each) next to the form
 * fields that show them, worded as issueMessage words a zod issue: the same messages a form gets that checks its
 * fields itself. Problems about anything but the body (a path parameter, a header) are no field's and are left out.
 */
export function problemFieldErrors(problem: AppError, wording: ProblemWording = {}, into: FormState["errors"] = {}): FormState["errors"] {
  for (const error of problem.extra.errors ?? []) {
    if (error.in !== "body" && error.in !== "query") continue;
    const issue = issueOf(error, problem.status === 400 ? (wording.sent ?? {}) : undefined);
    const field = String(issue.path[0] ?? "_form");
    if (wording.skip?.has(field)) continue;
    const message = issueMessage(issue, wording.numeric);
    addError(into, wording.rename?.[field] ?? field, wording.word ? wording.word({ ...issue, field }, message) : message);
  }
  return into;
}

/**
 * A refused operation as the form shows it: its field problems under their fields (problemFieldErrors) with the
 * problem's own words on top unless it is only about the fields (a 400), and anything else as the form's message.
 * `fields`: the form's fields; a problem about another goes to the message, where the seller sees it.
 */
export function problemRefusal(
  problem: AppError,
  values: FormState["values"],
  wording: ProblemWording & { fields?: readonly string[] } = {},
  errors: FormState["errors"] = {},
): FormState {
  const found = problemFieldErrors(problem, wording, { ...errors });
  const stray = wording.fields ? Object.keys(found).filter((f) => !wording.fields?.includes(f)) : [];
  for (const f of stray) Reflect.deleteProperty(found, f);
  if (Object.keys(found).length === 0) return refused(values, {}, appErrorMessage(problem));
  return refused(values, found, problem.status === 400 && stray.length === 0 ? undefined : appErrorMessage(problem));
}

/** A 404 from a lib function called with an id the seller does not own. */
export function isNotFound(error: unknown): boolean {
  return error instanceof AppError && error.status === 404;
}

/** The words to show for an AppError; anything else is not ours to explain and is rethrown by the caller. */
export function appErrorMessage(error: AppError): string {
  // A quota says what the limit is; a rate limit only that there were too many attempts.
  if (error.status === 429 && error.code !== "complimentary_quota_exceeded") return "Too many attempts in a short time. Wait a minute and try again.";
  return error.detail;
}

export function refused(values: FormState["values"], errors: FormState["errors"], message?: string): FormState {
  const count = Object.values(errors).reduce((n, list) => n + list.length, 0);
  return {
    message: message ?? (count === 1 ? "Please fix the problem marked below." : `Please fix the ${count} problems marked below.`),
    errors,
    values,
  };
}
