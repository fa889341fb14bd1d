import type { z } from "zod";
import type { RateRule } from "../http/rate-limit.ts";
import type { SellerScope } from "../seller-api/tokens.ts";

/**
 * One operation, declared once: where it lives on HTTP (if it does), who may call it, its input and output schemas,
 * its rate limits, the errors it can answer, its handler, and the MCP tools that expose it. The REST route (a Next
 * route file or server.ts's lean path), the MCP tools, /openapi.json, /api/tools and the discovery documents are all
 * derived from these declarations (lib/operations/index.ts), so no transport can skip a limit or drift in shape.
 */
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Who may call: anyone (`public`), a buyer signed in to My licenses (`buyer`: the buyer's session cookie, whose
 * writes must come from our own origin; only the session's e-mail decides whose licenses a call may touch), a seller (`seller`: the dashboard's session cookie, whose writes must come from
 * our own origin, or a seller API token, `Authorization: Bearer ilmsk_…`, whose scopes must cover `sellerScope`), the operator (`admin`: a session whose address ADMIN_EMAILS lists; anyone else gets a 404,
 * and writes must come from our own origin), or an agent platform (`agent`: the Agentic Commerce Protocol's Bearer
 * key the operator issued; without one, an anonymous agent when ACP_ANONYMOUS is on).
 */
type Auth = "public" | "buyer" | "seller" | "admin" | "agent";

export type Tag =
  | "Marketplace"
  | "Licensing"
  | "Receipts"
  | "Checkout"
  | "Agents"
  | "Service"
  | "Seller"
  | "Payouts"
  | "Coupons"
  | "Orders"
  | "Admin"
  | "Agentic Commerce"
  | "Releases"
  | "Updates"
  | "Licenses"
  | "Webhooks"
  | "API tokens"
  | "Sign-in"
  | "Reviews"
  | "Subscriptions"
  | "Checkout links"
  | "Buy button"
  | "Device authorization"
  | "Upgrades";

/** What the caller is, as the transport established it. */
export interface CallContext {
  transport: "rest" | "lean" | "mcp" | "a2a" | "action";
  /** The client's address (socket peer, or as trusted proxies reported it). */
  client: string;
  requestId: string;
  /** The HTTP request's headers (for MCP, those of the request that carried the JSON-RPC message). */
  headers: Headers;
  /** Our own origin as the request addressed it, for same-origin checks. */
  origin: string;
  /**
   * The caller's idempotency key, as its transport carries it: REST's `Idempotency-Key` header, an MCP tool's
   * `idempotency_key` argument (`meta.idempotency_key` for the ACP tools). Read only by operations that declare
   * `idempotency`.
   */
  idempotencyKey?: string;
  /** Response headers the call adds to a success (an idempotent replay's `Idempotent-Replayed`); REST sends them. */
  responseHeaders?: Record<string, string>;
}

/** The seller behind a `seller` operation: signed in to the dashboard, or calling with one of their API tokens. */
export interface Seller {
  email: string;
  developer: { id: string; name: string; email: string };
  /** How the seller authenticated. */
  via: "session" | "token";
  /** The API token, when `via` is "token". */
  token?: { id: string; name: string; scopes: SellerScope[] };
  /** Who did it, for logs and the license event log: the session's e-mail, or "token:<name>". */
  actor: string;
}

export interface HandlerContext extends CallContext {
  seller?: Seller;
  /**
   * For an operation declaring `sellerProfile: "optional"`: the dashboard session's address when it has no developer
   * profile yet (`seller` is then absent).
   */
  newSeller?: { email: string };
  /** The buyer, for `buyer` operations: the signed-in address (lower case). */
  buyer?: { email: string };
  /** The operator, for `admin` operations. */
  admin?: { email: string };
  /** The agent platform, for `agent` operations: its id, or null for an anonymous agent. */
  agent?: { platformId: string | null; name: string };
  rawBody?: string;
  /** The request body, unread, for operations declaring `http.bodyStream`. */
  bodyStream?: ReadableStream<Uint8Array>;
  /** Its declared length (Content-Length), when the client sent one. */
  contentLength?: number | null;
}

/** What a `redirect` operation's handler returns. */
export interface Redirect {
  location: string;
}

type AnyObject = z.ZodObject;

export interface ToolSpec<I, O> {
  name: string;
  title: string;
  /**
   * The capability layer the discovery documents group tools by (see LAYERS in lib/agents/tools.ts); 6 is the seller's
   * own tools (`seller` operations), offered on MCP only to a request carrying a seller API token.
   */
  layer: 1 | 2 | 3 | 4 | 5 | 6;
  /** Written for a model: what the tool does and when to use it. */
  description: string;
  /** The tool's own arguments when they differ from the operation's input (names fixed by the interface). */
  args?: AnyObject;
  toInput?: (args: Record<string, unknown>) => I;
  /** Where the arguments carry the idempotency key (default: an `idempotency_key` argument, if the tool takes one). */
  idempotencyKey?: (args: Record<string, unknown>) => string | undefined;
  /**
   * Why this tool may be called without an idempotency key although its operation requires one over REST (the ACP MCP
   * binding makes `meta.idempotency_key` optional): the call is then not replay-protected, and what keeps a retry
   * harmless instead. A key, when given, is honoured as ever.
   */
  idempotencyKeyOptional?: string;
  /** What the model reads; the structured result is the operation's output. Whether it is read-only is the operation's. */
  text: (output: O) => string;
}

export interface OperationSpec<I, O> {
  /** The OpenAPI operationId; unique. */
  id: string;
  summary: string;
  description?: string;
  tag: Tag;
  auth: Auth;
  /**
   * For `seller` operations (required there): the API token scope that covers the call. Reads (GET, and tools marked
   * read-only) also pass with the `read` scope. `session`: the dashboard's session only (payouts, token management).
   */
  sellerScope?: Exclude<SellerScope, "read"> | "session";
  /**
   * For `seller` operations: "optional" also admits a dashboard session that has no developer profile yet (as
   * `newSeller`), which every other seller operation refuses (403 `no_developer_profile`). Creating the profile.
   */
  sellerProfile?: "optional";
  /** Where REST callers reach it; an operation without one is offered as an MCP tool only. */
  http?: {
    method: Method;
    path: string;
    /** Answered by server.ts's node:http path, without Next's request pipeline (the licensing hot path). */
    lean?: boolean;
    /** Cache-Control of a success; errors are never cached. */
    cache?: string;
    status?: number;
    /** A non-JSON success body: the handler returns the text. */
    contentType?: string;
    headers?: Record<string, string>;
    maxBodyBytes?: number;
    /** The handler gets the body's exact bytes as `rawBody` (signed webhooks); `input.body` then only documents it. */
    rawBody?: boolean;
    /**
     * The body is not read: the handler gets it as a stream (`bodyStream`, with `contentLength`), for uploads larger
     * than any buffer should hold (release artifacts). `maxBodyBytes` does not apply; the handler enforces its own
     * limit while reading. Documented as application/octet-stream; such operations have no MCP tool.
     */
    bodyStream?: boolean;
    /** The handler returns `{ location }` and the answer is a 302 redirect there (downloads through signed URLs). */
    redirect?: boolean;
    /**
     * How errors are written: RFC 9457 problem documents (the default), or the Agentic Commerce Protocol's `Error`
     * object (`{type, code, message, param}`), which its endpoints must answer with.
     */
    errorFormat?: "problem" | "acp";
  };
  input?: { query?: AnyObject; params?: AnyObject; body?: z.ZodType };
  output: z.ZodType<O>;
  /**
   * Only reads. Derived from the method when left out (GET reads; POST, PUT, PATCH and DELETE write); declared for a
   * POST that only reads (validation, a quote) and for an operation without HTTP (an MCP-only tool), which must say.
   * It decides the default rate limit, the default idempotency, the seller token scope a call needs and what MCP
   * announces (`readOnlyHint`).
   */
  readOnly?: boolean;
  /**
   * Rate limits every transport counts a call against, from the parsed input and the client, counted before the
   * caller is looked up. An operation that declares none gets the default: one rule per caller and operation
   * (RULES.callerRead or RULES.callerWrite; lib/operations/guarantees.ts).
   */
  limits?: (input: I, ctx: CallContext) => Array<[RateRule, string]>;
  /**
   * Rate limits keyed by the caller (a seller, a buyer, an agent platform), counted once execute() has established
   * it, on top of `limits` or the default: for a write that needs a tighter rule per caller (a webhook test event is a
   * POST to a URL the seller chose).
   */
  callerLimits?: (input: I, ctx: HandlerContext) => Array<[RateRule, string]>;
  /** HTTP statuses it can answer besides 400 (bad input), 413/415 (bodies), 500 and 503. */
  errors?: number[];
  /**
   * Creates or pays: a retry carrying the same idempotency key and the same input gets the first answer again
   * (stored in the database for 24 h, so across instances and restarts); the key with another input is 422
   * `idempotency_conflict`; while the first call runs, 409 `idempotency_in_flight`. `required` refuses a call without
   * a key (400 `idempotency_key_required`), as the ACP endpoints must.
   */
  idempotency?: "optional" | "required";
  /**
   * Why a POST that writes does not take an idempotency key (every other one does, "optional" by default): the reason
   * a retry is harmless anyway, or why a key cannot apply (a signed webhook deduplicated by its event id).
   */
  idempotencyExempt?: string;
  handler: (input: I, ctx: HandlerContext) => Promise<O> | O;
  tools?: Array<ToolSpec<I, O>>;
}

/** The erased form the adapters work with. */
export type Operation = OperationSpec<Record<string, unknown>, unknown>;

/** An operation that REST callers reach. */
export type HttpOperation = Operation & { http: NonNullable<Operation["http"]> };
export const hasHttp = (op: Operation): op is HttpOperation => op.http !== undefined;

type InputOf<S> = (S extends { query: infer Q extends z.ZodType } ? z.output<Q> : unknown) &
  (S extends { params: infer P extends z.ZodType } ? z.output<P> : unknown) &
  (S extends { body: infer B extends z.ZodType } ? z.output<B> : unknown);

/**
 * What execute() has established about the caller before a handler runs, by the operation's auth: a `seller`
 * operation's handler has `ctx.seller`, an `admin` one `ctx.admin`, and so on, without checking again. (A seller
 * operation that admits a session without a profile, `sellerProfile: "optional"`, reads `newSeller` instead.)
 */
export type CallerOf<A extends Auth> = A extends "seller"
  ? { seller: Seller }
  : A extends "admin"
    ? { admin: { email: string } }
    : A extends "agent"
      ? { agent: { platformId: string | null; name: string } }
      : A extends "buyer"
        ? { buyer: { email: string } }
        : object;

/**
 * Declares an operation; the handler's input type is inferred from the input schemas (query, path and body merged),
 * and its context carries the caller its auth guarantees (CallerOf).
 */
export function operation<const S extends NonNullable<OperationSpec<unknown, unknown>["input"]>, O, const A extends Auth>(
  spec: Omit<OperationSpec<InputOf<S>, O>, "input" | "auth" | "handler" | "callerLimits"> & {
    input?: S;
    auth: A;
    callerLimits?: (input: InputOf<S>, ctx: HandlerContext & CallerOf<A>) => Array<[RateRule, string]>;
    handler: (input: InputOf<S>, ctx: HandlerContext & CallerOf<A>) => Promise<O> | O;
  },
): Operation {
  return spec as unknown as Operation;
}
