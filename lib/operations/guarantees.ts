import { DEFAULT_MAX_BODY_BYTES } from "../http/input.ts";
import { RULES, type RateRule } from "../http/rate-limit.ts";
import type { CallContext, HandlerContext, Operation } from "./define.ts";

/**
 * What holds for every operation unless it declares something stricter, derived here once from its declaration, for
 * every transport (REST, lean, MCP, A2A, server actions) and every document (OpenAPI, the tool manifest):
 *
 * - whether it only reads: GET reads, any other method writes, unless declared (`readOnly`);
 * - idempotency: every POST that writes honours `Idempotency-Key` ("optional") unless it declares "required" or says
 *   why a key does not apply (`idempotencyExempt`);
 * - the body cap: `http.maxBodyBytes`, else 64 KiB, checked by execute() on the parsed input whatever read it;
 * - rate limits: the operation's own, else one rule per caller and operation (reads and writes apart).
 *
 * tests/unit/registry-guarantees.test.ts walks the registry and fails for an operation that escapes any of them.
 */

/** Whether the operation only reads. An operation without HTTP must declare it (operations() refuses it otherwise). */
export function readOnlyOf(op: Operation): boolean {
  if (op.readOnly !== undefined) return op.readOnly;
  if (!op.http) throw new Error(`operation ${op.id}: an operation without HTTP must declare readOnly`);
  return op.http.method === "GET";
}

/** How the operation takes an idempotency key: as declared, else "optional" for a POST that writes. */
export function idempotencyOf(op: Operation): "optional" | "required" | undefined {
  if (op.idempotency) return op.idempotency;
  if (op.idempotencyExempt !== undefined) return undefined;
  return op.http?.method === "POST" && !readOnlyOf(op) ? "optional" : undefined;
}

/** The most a call's body may weigh, in bytes (a streamed upload enforces its own limit while reading). */
export function bodyCapOf(op: Operation): number {
  return op.http?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
}

type Caller = Pick<HandlerContext, "seller" | "admin" | "agent" | "buyer" | "newSeller">;

/**
 * Whom a call counts against, and whose idempotency keys it shares: the operator, the seller (session or token
 * alike), the buyer, the agent platform, or, for anonymous callers (the public and anonymous agents), the client's address, so
 * strangers never meet in one scope.
 */
export function callerId(caller: Caller, ctx: Pick<CallContext, "client">): string {
  if (caller.admin) return `admin:${caller.admin.email}`;
  if (caller.seller) return `seller:${caller.seller.developer.id}`;
  if (caller.buyer) return `buyer:${caller.buyer.email}`;
  if (caller.newSeller) return `new-seller:${caller.newSeller.email}`;
  if (caller.agent?.platformId) return `agent:${caller.agent.platformId}`;
  return caller.agent ? `agent-anonymous:${ctx.client}` : `client:${ctx.client}`;
}

/** The default limit of an operation that declares none: per caller and operation, reads and writes apart. */
export function defaultLimit(op: Operation, caller: Caller, ctx: Pick<CallContext, "client">): [RateRule, string] {
  return [readOnlyOf(op) ? RULES.callerRead : RULES.callerWrite, `${op.id}|${callerId(caller, ctx)}`];
}

/**
 * The size of a call's input as a body would carry it: the UTF-8 length of its JSON. Measured on the parsed input so
 * that every transport is held to the same cap, however it read the request (MCP and A2A read one JSON-RPC message
 * of up to 64 KiB that may hold a tool call's arguments; a server action gets a form).
 */
export function inputBytes(input: Record<string, unknown>): number {
  return Buffer.byteLength(JSON.stringify(input));
}

/**
 * Completes each declaration with what is derived from it, once, when the registry is built: transports and documents
 * then read `readOnly` and `idempotency` as they are. Refuses declarations that contradict the defaults.
 */
export function withDefaults(op: Operation): Operation {
  if (!op.http && op.readOnly === undefined) throw new Error(`operation registry: ${op.id} has no HTTP route; declare readOnly`);
  if (op.idempotencyExempt !== undefined && op.idempotency)
    throw new Error(`operation registry: ${op.id} declares idempotency and an exemption from it`);
  if (op.idempotencyExempt !== undefined && !op.idempotencyExempt.trim()) throw new Error(`operation registry: ${op.id}: say why it is exempt`);
  op.readOnly = readOnlyOf(op);
  const idempotency = idempotencyOf(op);
  if (idempotency) op.idempotency = idempotency;
  if (op.http?.lean && op.idempotency) throw new Error(`operation registry: ${op.id} is served by the lean path, which reads no Idempotency-Key`);
  return op;
}
