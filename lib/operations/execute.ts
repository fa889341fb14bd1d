import { z } from "zod";
import { adminFor } from "../admin/access.ts";
import { originAllowed, readCookie } from "../auth/cookies.ts";
import { SESSION_COOKIE, sessionFromToken } from "../auth/sign-in.ts";
import { getDb } from "../db.ts";
import { AppError } from "../http/errors.ts";
import { invalid, refuseControlCharacters, tooLarge } from "../http/input.ts";
import { runIdempotent } from "../http/idempotency.ts";
import { enforce, rateLimitsEnabled, RULES } from "../http/rate-limit.ts";
import { checkScope, sellerCredentialsMissing, sellerTokenFrom, tokenRateId, verifySellerToken } from "../seller-api/tokens.ts";
import { agentFor } from "../acp/platforms.ts";
import type { CallContext, HandlerContext, Operation, Seller } from "./define.ts";
import { bodyCapOf, callerId, defaultLimit, idempotencyOf, inputBytes, readOnlyOf } from "./guarantees.ts";

/**
 * The seller behind a call: a seller API token when the request carries one (its scopes must cover the operation),
 * otherwise the dashboard's session, whose writes must also come from our own origin (login CSRF, cross-site forms;
 * a token is never sent by a browser on its own, so it needs no such check).
 */
async function sellerFor(op: Operation, ctx: CallContext, write: boolean): Promise<Seller | { email: string; developer: null }> {
  const token = sellerTokenFrom(ctx.headers);
  if (token !== null) {
    // Per token, whatever the transport, counted before the token is looked up (a flood of made-up tokens too).
    enforce([[RULES.sellerToken, tokenRateId(token)]]);
    const verified = await verifySellerToken(token, ctx.client);
    checkScope(verified, op.sellerScope ?? "session", write);
    return {
      email: verified.developer.email,
      developer: verified.developer,
      via: "token",
      token: { id: verified.id, name: verified.name, scopes: verified.scopes },
      actor: `token:${verified.name}`,
    };
  }
  const session = await sessionFromToken(readCookie(ctx.headers.get("cookie"), SESSION_COOKIE.seller), "seller");
  if (!session) throw sellerCredentialsMissing(ctx.headers, op.sellerScope === "session");
  if (write && !originAllowed(ctx.headers, ctx.origin)) throw new AppError("cross_site_request", 403, "Cross-site requests are refused.");
  const developer = await getDb().developer.findUnique({ where: { email: session.email }, select: { id: true, name: true, email: true } });
  if (!developer) {
    if (op.sellerProfile === "optional") return { email: session.email, developer: null };
    throw new AppError("no_developer_profile", 403, "Create your developer profile in the dashboard first.");
  }
  return { email: session.email, developer, via: "session", actor: session.email };
}

type Caller = Pick<HandlerContext, "seller" | "newSeller" | "admin" | "agent" | "buyer">;

/** The buyer behind a `buyer` operation: the My licenses session, whose writes must come from our own origin. */
async function buyerFor(ctx: CallContext, write: boolean): Promise<{ email: string }> {
  const session = await sessionFromToken(readCookie(ctx.headers.get("cookie"), SESSION_COOKIE.buyer), "buyer");
  if (!session) throw new AppError("unauthorized", 401, "Sign in to My licenses first.");
  if (write && !originAllowed(ctx.headers, ctx.origin)) throw new AppError("cross_site_request", 403, "Cross-site requests are refused.");
  return { email: session.email.toLowerCase() };
}
const NOBODY: Caller = Object.freeze({});

/**
 * Who is calling, for operations that are not public. Transports that can, call it before reading a body, so an
 * anonymous caller learns first that it must sign in.
 */
export async function authorize(op: Operation, ctx: CallContext): Promise<Caller> {
  if (op.auth === "admin") return { admin: await adminFor(ctx, op.http?.method !== "GET") };
  if (op.auth === "agent") return { agent: await agentFor(ctx) };
  if (op.auth === "buyer") return { buyer: await buyerFor(ctx, !readOnlyOf(op)) };
  if (op.auth !== "seller") return NOBODY;
  const seller = await sellerFor(op, ctx, !readOnlyOf(op));
  return seller.developer ? { seller } : { newSeller: { email: seller.email } };
}

/**
 * Runs one call of an operation whatever the transport, with what holds for every operation (guarantees.ts): the
 * operation's own rate limits first (they need no database), then who is calling (unless the transport already
 * established it), the default per-caller limit when the operation declares none, the body cap on the parsed input,
 * the idempotency key, then the handler. Input has been parsed by the transport with the operation's schemas.
 */
export async function execute(
  op: Operation,
  input: Record<string, unknown>,
  ctx: CallContext,
  extra: {
    rawBody?: string;
    caller?: Caller;
    bodyStream?: ReadableStream<Uint8Array>;
    contentLength?: number | null;
    /**
     * The transport read the body's bytes under this operation's own cap (bodyCapOf): REST and the lean path do, so
     * the input is not serialised again to be measured (that cost the lean /validate path 7 % of its throughput).
     */
    bodyCapped?: true;
    /** The tool lets the caller leave the key out though the operation requires one (ToolSpec.idempotencyKeyOptional). */
    keyOptional?: true;
  } = {},
): Promise<unknown> {
  const limited = rateLimitsEnabled();
  if (op.limits && limited) enforce(op.limits(input, ctx));
  // A public operation has no caller to establish: not awaited (the licensing hot path).
  const caller = extra.caller ?? (op.auth === "public" ? NOBODY : await authorize(op, ctx));
  if (!op.limits && limited) enforce([defaultLimit(op, caller, ctx)]);
  if (op.callerLimits && limited)
    enforce(op.callerLimits(input, Object.assign(Object.defineProperties({}, Object.getOwnPropertyDescriptors(ctx)), caller) as HandlerContext));
  if (op.input?.body && !extra.bodyCapped && extra.rawBody === undefined && extra.bodyStream === undefined && inputBytes(input) > bodyCapOf(op))
    throw tooLarge(bodyCapOf(op));
  // The handler sees the transport's context plus the caller (and a raw body or stream). Nothing to add (a public
  // operation's JSON call: the licensing hot path) hands it the context as it is; otherwise its properties are copied
  // with their descriptors, not spread: a transport may give a lazy getter (the lean path builds `headers` only when
  // read), and spreading would call it on every request.
  const plain = extra.rawBody === undefined && extra.bodyStream === undefined && (caller === NOBODY || Object.keys(caller).length === 0);
  const handlerCtx = (
    plain
      ? ctx
      : Object.assign(
          Object.defineProperties({}, Object.getOwnPropertyDescriptors(ctx)),
          caller,
          extra.rawBody !== undefined ? { rawBody: extra.rawBody } : {},
          extra.bodyStream !== undefined ? { bodyStream: extra.bodyStream, contentLength: extra.contentLength ?? null } : {},
        )
  ) as HandlerContext;
  const idempotency = idempotencyOf(op);
  if (!idempotency) return op.handler(input, handlerCtx);
  const run = async () => await op.handler(input, handlerCtx);
  const key = ctx.idempotencyKey;
  if (key === undefined) {
    if (idempotency === "required" && !extra.keyOptional)
      throw new AppError(
        "idempotency_key_required",
        400,
        "This request needs an Idempotency-Key (a fresh UUID per new request; the same one when retrying).",
        {
          errors: [{ in: "header", name: "Idempotency-Key", message: "is required" }],
        },
      );
    return run();
  }
  const { output, replayed } = await runIdempotent({ operationId: op.id, caller: callerId(caller, ctx), key }, input, run);
  if (ctx.responseHeaders) {
    ctx.responseHeaders["Idempotency-Key"] = key;
    if (replayed) ctx.responseHeaders["Idempotent-Replayed"] = "true";
  }
  return output;
}

/** Parses each part of an HTTP request with its schema and merges them into the operation's input. */
export function parseParts(
  op: Operation,
  parts: { query?: Record<string, string>; params?: Record<string, unknown>; body?: unknown },
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const part = (schema: z.ZodType | undefined, where: "query" | "path" | "body", value: unknown) => {
    if (!schema) return;
    refuseControlCharacters(where, value);
    const result = schema.safeParse(value);
    if (!result.success) throw invalid(where, result.error);
    Object.assign(out, result.data);
  };
  part(op.input?.query, "query", parts.query ?? {});
  part(op.input?.params, "path", parts.params ?? {});
  if (!op.http?.rawBody && !op.http?.bodyStream) part(op.input?.body, "body", parts.body);
  return out;
}

/** The arguments an MCP tool takes by default: the operation's input fields, merged into one object. */
export function mergedInputSchema(op: Operation): z.ZodObject {
  const shapes: z.ZodRawShape[] = [];
  for (const s of [op.input?.query, op.input?.params, op.input?.body]) {
    if (!s) continue;
    if (!(s instanceof z.ZodObject)) throw new Error(`operation ${op.id}: give its tools their own args (the body is not an object schema)`);
    shapes.push(s.shape);
  }
  return z.object(Object.assign({}, ...shapes) as z.ZodRawShape);
}
