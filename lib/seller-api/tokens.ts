import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { getDb } from "../db.ts";
import { absoluteUrl } from "../urls.ts";
import { AppError, notFound } from "../http/errors.ts";
import { CONTROL_CHARACTER_MESSAGE, singleLineText } from "../http/input.ts";

/**
 * Seller API tokens: what a seller's CI, scripts and own AI agent authenticate with (`Authorization: Bearer
 * ilmsk_…`) on the seller API (/api/v1) and on MCP, instead of the dashboard's session cookie. A token belongs to
 * one seller, carries scopes, may expire, is shown once at creation and stored as its SHA-256 only.
 */

/**
 * What a token may do. `read` reads everything the seller API shows; each other scope also writes (and reads) its
 * area. Coupons are part of `products` (prices); payouts and token management need the dashboard session.
 */
export const SELLER_SCOPES = ["read", "products", "releases", "licenses", "orders", "webhooks"] as const;
export type SellerScope = (typeof SELLER_SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Record<SellerScope, string> = {
  read: "Read products, releases, licenses, orders, coupons and webhook endpoints",
  products: "Create and edit products and coupons",
  releases: "Create, upload, publish and yank releases",
  licenses: "Issue complimentary licenses, revoke and reinstate licenses, release machines",
  orders: "Refund orders",
  webhooks: "Manage webhook endpoints, redeliver events, send test events",
};

const TOKEN_PREFIX = "ilmsk_";
/** A seller API token: the prefix, then 32 random bytes in base64url. */
const TOKEN = /^ilmsk_[A-Za-z0-9_-]{43}$/;
/** Tokens per seller that are not revoked (expired ones count until revoked): enough for every pipeline, not a leak's worth. */
export const MAX_TOKENS_PER_SELLER = 50;
/** How often "last used" is written per token, at most. */
const LAST_USED_EVERY_MS = 60_000;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** The Bearer credential of a request, when it is shaped like a seller API token (agent platform keys are not). */
export function sellerTokenFrom(headers: Headers): string | null {
  const header = headers.get("authorization");
  if (!header) return null;
  const value = /^Bearer\s+(\S+)$/i.exec(header.trim())?.[1];
  return value !== undefined && value.startsWith(TOKEN_PREFIX) ? value : null;
}

/** The rate-limit identity of a presented token (known or not): its hash's first 24 hex digits, counted before any lookup. */
export const tokenRateId = (token: string): string => hashToken(token).slice(0, 24);

/** Where a client learns how to authenticate (RFC 9728), named in every 401 and 403 of the seller API. */
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

/** The dashboard page where a seller creates and revokes API tokens. */
const TOKENS_PAGE_PATH = "/dashboard/api-tokens";

/** How a client authenticates to the seller API, in the words of the 401s and of /openapi.json. */
export const TOKEN_HELP = `send \`Authorization: Bearer ilmsk_…\`, a seller API token created in the dashboard (API tokens, ${TOKENS_PAGE_PATH}) with the scopes the call needs, or the dashboard's session cookie`;

/**
 * A refusal with its RFC 6750 challenge: `WWW-Authenticate: Bearer realm="seller", [error=…,] resource_metadata=…`.
 * No `error` when the request carried no credentials at all (RFC 6750 §3.1).
 */
function bearerError(
  code: string,
  status: 401 | 403,
  detail: string,
  error: "invalid_token" | "insufficient_scope" | null,
  scope?: string,
): AppError {
  const params = [
    `realm="seller"`,
    ...(error ? [`error="${error}"`] : []),
    ...(scope ? [`scope="${scope}"`] : []),
    `resource_metadata="${absoluteUrl(RESOURCE_METADATA_PATH)}"`,
  ];
  return new AppError(code, status, detail, { headers: { "WWW-Authenticate": `Bearer ${params.join(", ")}` } });
}

const howToGetOne = () => `Create one in the seller dashboard at ${absoluteUrl(TOKENS_PAGE_PATH)}`;

/**
 * The 401 of a seller operation called with neither a seller API token nor a dashboard session: it says how to send
 * a token and where to get one, with the same challenge a bad token gets. An Authorization header that holds no
 * seller API token (another scheme, an agent platform key) is `invalid_token`. A `session` operation (payouts, token
 * management) says that only the dashboard's session reaches it.
 */
export function sellerCredentialsMissing(headers: Headers, sessionOnly: boolean): AppError {
  if (sessionOnly)
    return bearerError(
      "unauthorized",
      401,
      `Sign in to the seller dashboard (${absoluteUrl("/dashboard")}): this operation takes the dashboard's session only, not an API token.`,
      null,
    );
  if (headers.has("authorization"))
    return bearerError(
      "invalid_token",
      401,
      `The Authorization header holds no seller API token: send Authorization: Bearer ilmsk_…. ${howToGetOne()}.`,
      "invalid_token",
    );
  return bearerError(
    "unauthorized",
    401,
    `Authentication required: send Authorization: Bearer ilmsk_… (a seller API token with the scopes this call needs, created in the seller dashboard at ${absoluteUrl(TOKENS_PAGE_PATH)}), or sign in to the seller dashboard.`,
    null,
  );
}

interface VerifiedToken {
  id: string;
  name: string;
  scopes: SellerScope[];
  developer: { id: string; name: string; email: string };
}

/**
 * The seller behind a presented token, or a 401 saying what is wrong with it: malformed (`invalid_token`), unknown
 * (`invalid_token`: a token of a deleted seller is unknown too), revoked (`token_revoked`), expired (`token_expired`).
 * Records "last used" at most once a minute.
 */
export async function verifySellerToken(token: string, client: string, now = new Date()): Promise<VerifiedToken> {
  if (!TOKEN.test(token))
    throw bearerError(
      "invalid_token",
      401,
      `This is not a seller API token: send Authorization: Bearer ilmsk_… exactly as it was shown once at creation. ${howToGetOne()}.`,
      "invalid_token",
    );
  const db = getDb();
  const row = await db.sellerToken.findUnique({
    where: { tokenHash: hashToken(token) },
    select: {
      id: true,
      name: true,
      scopes: true,
      expiresAt: true,
      revokedAt: true,
      lastUsedAt: true,
      developer: { select: { id: true, name: true, email: true } },
    },
  });
  if (!row) throw bearerError("invalid_token", 401, `This seller API token is unknown. ${howToGetOne()}.`, "invalid_token");
  if (row.revokedAt) throw bearerError("token_revoked", 401, `This seller API token was revoked. ${howToGetOne()}.`, "invalid_token");
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime())
    throw bearerError("token_expired", 401, `This seller API token expired at ${row.expiresAt.toISOString()}. ${howToGetOne()}.`, "invalid_token");
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_EVERY_MS) {
    // Conditional, so instances racing on one token write once a minute between them.
    await db.sellerToken.updateMany({
      where: { id: row.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - LAST_USED_EVERY_MS) } }] },
      data: { lastUsedAt: now, lastUsedFrom: client.slice(0, 64) },
    });
  }
  return { id: row.id, name: row.name, scopes: parseScopes(row.scopes), developer: row.developer };
}

function parseScopes(value: unknown): SellerScope[] {
  return Array.isArray(value) ? value.filter((s): s is SellerScope => (SELLER_SCOPES as readonly unknown[]).includes(s)) : [];
}

/**
 * Refuses a token call the token's scopes do not cover: `session` operations need the dashboard's session whatever
 * the scopes (403 `session_required`); reads need `read` or the area's scope; writes need the area's scope (403
 * `insufficient_scope`).
 */
export function checkScope(token: VerifiedToken, needed: Exclude<SellerScope, "read"> | "session", write: boolean): void {
  if (needed === "session")
    throw new AppError("session_required", 403, "This operation needs the seller dashboard's session; API tokens cannot call it.");
  if (token.scopes.includes(needed) || (!write && token.scopes.includes("read"))) return;
  throw bearerError(
    "insufficient_scope",
    403,
    `This token lacks the "${needed}" scope${write ? "" : ` (or "read")`}; create a token with it in the dashboard.`,
    "insufficient_scope",
    needed,
  );
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The dashboard's side: creating, listing and revoking tokens.                                                  */

const scopeSchema = z.enum(SELLER_SCOPES);

export const createTokenInputSchema = z.object({
  name: z.string().trim().min(1).max(80).refine(singleLineText, CONTROL_CHARACTER_MESSAGE).describe('What the token is for, e.g. "GitHub Actions"'),
  scopes: z
    .array(scopeSchema)
    .min(1)
    .max(SELLER_SCOPES.length)
    .refine((s) => new Set(s).size === s.length, "must not repeat a scope")
    .describe("What the token may do"),
  expires_in_days: z.int().min(1).max(3650).optional().describe("Days until the token stops working; no expiry when left out"),
});

export const tokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The token's first characters, to recognise it. */
  prefix: z.string(),
  scopes: z.array(scopeSchema),
  created_at: z.string(),
  created_by: z.string(),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  last_used_from: z.string().nullable(),
  revoked_at: z.string().nullable(),
  /** "active" | "expired" | "revoked" */
  status: z.enum(["active", "expired", "revoked"]),
});
export type TokenView = z.infer<typeof tokenSchema>;

type TokenRow = {
  id: string;
  name: string;
  prefix: string;
  scopes: unknown;
  createdAt: Date;
  createdBy: string;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  lastUsedFrom: string | null;
  revokedAt: Date | null;
};

function view(row: TokenRow, now = Date.now()): TokenView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: parseScopes(row.scopes),
    created_at: row.createdAt.toISOString(),
    created_by: row.createdBy,
    expires_at: row.expiresAt?.toISOString() ?? null,
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    last_used_from: row.lastUsedFrom,
    revoked_at: row.revokedAt?.toISOString() ?? null,
    status: row.revokedAt ? "revoked" : row.expiresAt && row.expiresAt.getTime() <= now ? "expired" : "active",
  };
}

const tokenSelect = {
  id: true,
  name: true,
  prefix: true,
  scopes: true,
  createdAt: true,
  createdBy: true,
  expiresAt: true,
  lastUsedAt: true,
  lastUsedFrom: true,
  revokedAt: true,
} as const;

/** Creates a token; the token itself is in this answer and nowhere else, ever. */
export async function createSellerToken(
  developerId: string,
  createdBy: string,
  input: z.infer<typeof createTokenInputSchema>,
  now = new Date(),
): Promise<TokenView & { token: string }> {
  const db = getDb();
  const live = await db.sellerToken.count({ where: { developerId, revokedAt: null } });
  if (live >= MAX_TOKENS_PER_SELLER)
    throw new AppError("too_many_tokens", 409, `A seller may hold ${MAX_TOKENS_PER_SELLER} tokens; revoke one you no longer use first.`);
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const scopes = SELLER_SCOPES.filter((s) => input.scopes.includes(s));
  const row = await db.sellerToken.create({
    data: {
      developerId,
      name: input.name,
      tokenHash: hashToken(token),
      prefix: token.slice(0, TOKEN_PREFIX.length + 6),
      scopes,
      createdBy,
      expiresAt: input.expires_in_days ? new Date(now.getTime() + input.expires_in_days * 86_400_000) : null,
    },
    select: tokenSelect,
  });
  return { ...view(row, now.getTime()), token };
}

/** The seller's tokens, newest first (revoked ones too, so the history stays readable). */
export async function listSellerTokens(developerId: string): Promise<TokenView[]> {
  const rows = await getDb().sellerToken.findMany({ where: { developerId }, orderBy: { createdAt: "desc" }, take: 200, select: tokenSelect });
  return rows.map((r) => view(r));
}

/** Revokes one of the seller's tokens at once, on every instance (each call looks the token up). Idempotent. */
export async function revokeSellerToken(developerId: string, tokenId: string, now = new Date()): Promise<TokenView> {
  const db = getDb();
  const row = await db.sellerToken.findFirst({ where: { id: tokenId, developerId }, select: { id: true } });
  if (!row) throw notFound("token", "You have no API token with this id.");
  await db.sellerToken.updateMany({ where: { id: tokenId, revokedAt: null }, data: { revokedAt: now } });
  return view(await db.sellerToken.findUniqueOrThrow({ where: { id: tokenId }, select: tokenSelect }));
}
