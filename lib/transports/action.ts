import { headers } from "next/headers";
import { env } from "../env.ts";
import type { AppError } from "../http/errors.ts";
import { CLIENT_ADDRESS_HEADER } from "../http/rate-limit.ts";
import { requestIdFrom, toAppError } from "../http/respond.ts";
import { badArguments } from "./action-request.ts";
import type { CallContext } from "../operations/define.ts";

export { badArguments } from "./action-request.ts";
import { execute, parseParts } from "../operations/execute.ts";
import { operationById, type OperationId } from "../operations/index.ts";

/**
 * The fifth transport, beside REST, the lean path, MCP and A2A: a server action (a dashboard, admin or My licenses
 * form) runs its write as an operation through execute(), with the operation's limits, auth (the session cookie, and
 * same-origin for writes), idempotency, body cap and handler, exactly as the REST route would. An action only
 * translates: its form into the operation's input, the outcome into the page's state.
 */

/** A call's parts, as a form or a bound argument gives them; parsed with the operation's schemas, as REST parses. */
export interface ActionCall {
  params?: Record<string, unknown>;
  query?: Record<string, string>;
  body?: unknown;
  /**
   * The form's idempotency key (a hidden `idempotency_key` field made when the page was drawn): a second submission
   * of the same form, by a double click or a retry after a lost answer, gets the first answer instead of a second
   * effect.
   */
  idempotencyKey?: string;
}

export type ActionOutcome<O> = { ok: true; output: O } | { ok: false; problem: AppError };

/** Runs one operation for a server action; a refusal comes back as a problem the page words, never as a thrown 500. */
export async function runOperation<O = unknown>(id: OperationId, call: ActionCall = {}): Promise<ActionOutcome<O>> {
  return runWith(await headers(), id, call);
}

/**
 * The same for a form a page posts to a route of its own (sign-in, the Buy button, test mode's Pay and Cancel): the
 * route reads the form and answers with a redirect; the write is the operation's, through execute().
 */
export function runOperationFor<O = unknown>(request: Request, id: OperationId, call: ActionCall = {}): Promise<ActionOutcome<O>> {
  return runWith(request.headers, id, call);
}

async function runWith<O>(h: Headers | Awaited<ReturnType<typeof headers>>, id: OperationId, call: ActionCall): Promise<ActionOutcome<O>> {
  const op = operationById(id);
  const requestId = requestIdFrom(h.get("x-request-id"));
  const ctx: CallContext = {
    transport: "action",
    client: h.get(CLIENT_ADDRESS_HEADER) ?? "unknown",
    requestId,
    headers: new Headers(h),
    // Compared with the browser's Origin for writes: the public origin, never the address Next listens on.
    origin: new URL(env().BASE_URL).origin,
    ...(call.idempotencyKey ? { idempotencyKey: call.idempotencyKey } : {}),
  };
  try {
    const input = parseParts(op, { query: call.query ?? {}, params: call.params ?? {}, body: call.body ?? {} });
    return { ok: true, output: (await execute(op, input, ctx)) as O };
  } catch (error) {
    return { ok: false, problem: toAppError(error, requestId) };
  }
}

/** A server action's form, or a 400 when it was called without one. */
export function formOf(value: unknown): FormData {
  if (!(value instanceof FormData)) badArguments("This action takes the form it belongs to.");
  return value;
}

/** A bound argument that names something (an id): a short string, or a 400. */
export function idOf(value: unknown, max = 200): string {
  if (typeof value !== "string" || value.length === 0 || value.length > max)
    badArguments("This action was called with an argument it does not take.");
  return value;
}

/** Text of one form field ("" when missing or a file). */
export function textOf(fd: FormData, name: string): string {
  const v = fd.get(name);
  return typeof v === "string" ? v : "";
}

/** The form's idempotency key, when it carries one (see ActionCall.idempotencyKey). */
export function idempotencyKeyOf(fd: FormData): string | undefined {
  return textOf(fd, "idempotency_key") || undefined;
}
