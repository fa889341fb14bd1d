import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { z } from "zod";
import { getDb } from "../db.ts";
import { liveSetting } from "../env.ts";
import { AppError, notFound } from "../http/errors.ts";
import { getFromTarget, nonPublicReason } from "../seller-webhooks/target.ts";

/**
 * The seller's own websites that may show our checkout in a frame (the buy button's overlay). An origin is added,
 * then proven: the seller publishes the token we gave at EMBED_VERIFICATION_PATH on that origin and asks us to
 * check; only a verified origin is ever named in a checkout page's `frame-ancestors` (lib/embed/framing.ts). Every
 * lookup is by id AND developer, so another seller's origin is the same 404 as one that does not exist.
 */

/** Where the seller publishes the token: one line, the token alone. */
export const EMBED_VERIFICATION_PATH = "/.well-known/indie-license-market.txt";

/** Origins per seller: a shop, its staging copy, a few landing pages; not a way to hand framing to a list of strangers. */
export const MAX_EMBED_ORIGINS = 20;
/** The check's whole budget, and the most of the file it reads: the file is one short line. */
const VERIFY_TIMEOUT_MS = 5_000;
const VERIFY_MAX_BYTES = 4 * 1024;

/** Why a verification failed, as `lastError` keeps it and the 422 names it. */
const VERIFY_FAILURES = ["not_found", "mismatch", "unreachable", "blocked_address", "too_large"] as const;
export type VerifyFailure = (typeof VERIFY_FAILURES)[number];

const FAILURE_WORDS: Record<VerifyFailure, string> = {
  not_found: `the file ${EMBED_VERIFICATION_PATH} was not found on that origin (or the answer redirected elsewhere)`,
  mismatch: "the file was found, but it does not contain this origin's token",
  unreachable: "the origin did not answer (connection refused, timed out, or a server error)",
  blocked_address: "the origin's host is, or resolves to, an address we do not connect to (private, loopback, link-local, …)",
  too_large: `the file is larger than ${VERIFY_MAX_BYTES} bytes; it should hold the token alone`,
};

const newOriginId = () => `eo_${randomBytes(12).toString("base64url")}`;
const newToken = () => `ilm-verify-${randomBytes(24).toString("base64url")}`;

const allowPrivate = () => liveSetting("WEBHOOK_ALLOW_PRIVATE") === "on";

const invalid = (why: string) => new AppError("embed_origin_invalid", 400, `This origin is refused: ${why}.`);

/** A loopback or private host (localhost, 127.0.0.1, 10.x, [::1], …): the only hosts plain http is accepted for. */
function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  return isIP(host) !== 0 && nonPublicReason(host) !== null;
}

/**
 * An origin as it is stored and compared: `scheme://host[:port]`, lower case, the scheme's default port left out, no
 * path, query, fragment or credentials (a bare trailing slash is accepted and dropped). https only; plain http is
 * accepted for a loopback or private host when the operator set WEBHOOK_ALLOW_PRIVATE=on (a shop being built on the
 * seller's own machine), the same switch that lets webhooks and image fetches reach such hosts. Throws 400
 * `embed_origin_invalid` naming why.
 */
export function normaliseOrigin(raw: string, opts: { allowPrivate?: boolean } = {}): string {
  const text = raw.trim();
  if (text.length === 0) throw invalid("it is empty");
  if (text.length > 300) throw invalid("it is longer than 300 characters");
  if (!/^https?:\/\//i.test(text)) throw invalid("it must start with https:// (scheme, host and port only, like https://shop.example.com)");
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid("it is not a URL");
  }
  if (url.username || url.password) throw invalid("it must not contain a user name or password");
  if (url.pathname !== "/" || url.search || url.hash || /[?#]/.test(text)) {
    throw invalid("it must be the origin alone (scheme, host and port), without a path, query or #fragment");
  }
  if (!url.hostname) throw invalid("it has no host");
  if (url.protocol === "http:" && !((opts.allowPrivate ?? allowPrivate()) && isPrivateHost(url.hostname))) {
    throw invalid("it must be https (plain http only for a loopback or private host, and only where the operator allows it)");
  }
  return url.origin.toLowerCase();
}

export const embedOriginInputSchema = z.object({
  // Longer than the 300 characters allowed, so an overlong origin gets the stable code, not a schema error.
  origin: z.string().max(2000).describe("Your site's origin: scheme, host and optional port, like https://shop.example.com (no path)"),
});
export const embedOriginParamsSchema = z.object({ id: z.string().regex(/^eo_[A-Za-z0-9_-]{8,40}$/, "must be an embed origin id") });

export const embedOriginSchema = z.object({
  id: z.string(),
  origin: z.string().describe("scheme://host[:port], lower case"),
  status: z.enum(["pending", "verified", "failed"]).describe("Only a verified origin may frame the checkout"),
  token: z.string().describe("What the verification file must contain (one line, the token alone)"),
  verification_url: z.string().describe("Where we fetch the token: <origin>/.well-known/indie-license-market.txt"),
  verified_at: z.iso.datetime().nullable(),
  checked_at: z.iso.datetime().nullable().describe("When the file was last fetched"),
  last_error: z.enum(VERIFY_FAILURES).nullable().describe("Why the last check failed"),
  created_at: z.iso.datetime(),
});
export type EmbedOriginView = z.infer<typeof embedOriginSchema>;

type Row = {
  id: string;
  origin: string;
  token: string;
  status: string;
  verifiedAt: Date | null;
  checkedAt: Date | null;
  lastError: string | null;
  createdAt: Date;
};

const statusOf = (s: string): EmbedOriginView["status"] => (s === "verified" || s === "failed" ? s : "pending");
const failureOf = (s: string | null): VerifyFailure | null =>
  (VERIFY_FAILURES as readonly string[]).includes(s ?? "") ? (s as VerifyFailure) : null;

const view = (r: Row): EmbedOriginView => ({
  id: r.id,
  origin: r.origin,
  status: statusOf(r.status),
  token: r.token,
  verification_url: `${r.origin}${EMBED_VERIFICATION_PATH}`,
  verified_at: r.verifiedAt?.toISOString() ?? null,
  checked_at: r.checkedAt?.toISOString() ?? null,
  last_error: failureOf(r.lastError),
  created_at: r.createdAt.toISOString(),
});

export async function listEmbedOrigins(developerId: string): Promise<EmbedOriginView[]> {
  const rows = await getDb().embedOrigin.findMany({ where: { developerId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  return rows.map(view);
}

/** Adds an origin, pending until verified. The same origin twice is 409 `embed_origin_exists`; more than the limit, 409 `embed_origin_limit`. */
export async function addEmbedOrigin(developerId: string, input: { origin: string }): Promise<EmbedOriginView> {
  const origin = normaliseOrigin(input.origin);
  const db = getDb();
  if ((await db.embedOrigin.count({ where: { developerId } })) >= MAX_EMBED_ORIGINS) {
    throw new AppError("embed_origin_limit", 409, `At most ${MAX_EMBED_ORIGINS} origins: remove one you no longer use first.`);
  }
  const exists = () => new AppError("embed_origin_exists", 409, `${origin} is already on your list.`);
  if (await db.embedOrigin.findUnique({ where: { developerId_origin: { developerId, origin } }, select: { id: true } })) throw exists();
  try {
    return view(await db.embedOrigin.create({ data: { id: newOriginId(), developerId, origin, token: newToken() } }));
  } catch (error) {
    // Two adds of the same origin at once: the unique index lets one through.
    if ((error as { code?: string }).code === "P2002") throw exists();
    throw error;
  }
}

async function ownOrigin(developerId: string, id: string): Promise<Row> {
  const row = await getDb().embedOrigin.findFirst({ where: { id, developerId } });
  if (!row) throw notFound("embed_origin");
  return row;
}

/** Fetches the verification file under the webhook SSRF rules and says whether it holds the token, or why not. */
async function checkVerificationFile(origin: string, token: string): Promise<VerifyFailure | null> {
  const got = await getFromTarget(`${origin}${EMBED_VERIFICATION_PATH}`, {
    timeoutMs: VERIFY_TIMEOUT_MS,
    maxBytes: VERIFY_MAX_BYTES,
    accept: "text/plain",
    what: "origin",
    // The file proves control of this origin only if this origin serves it.
    sameOrigin: true,
  });
  if (got.ok) return new TextDecoder().decode(got.bytes).trim() === token ? null : "mismatch";
  if (got.reason === "refused") return "blocked_address";
  if (got.reason === "too_large") return "too_large";
  if (got.status !== undefined && got.status >= 400 && got.status < 500) return "not_found";
  if (got.status === undefined && got.error.startsWith("redirected")) return "not_found";
  return "unreachable";
}

/**
 * Fetches the origin's verification file and records the outcome: verified, or failed with the reason in
 * `lastError`. A failure (a verified origin that fails again included, which then stops framing the checkout) is
 * recorded and answered as 422 `embed_origin_unverified` naming the reason.
 */
export async function verifyEmbedOrigin(developerId: string, id: string, now = () => new Date()): Promise<EmbedOriginView> {
  const row = await ownOrigin(developerId, id);
  const failure = await checkVerificationFile(row.origin, row.token);
  const at = now();
  const data = failure
    ? { status: "failed", lastError: failure, checkedAt: at }
    : { status: "verified", lastError: null, checkedAt: at, verifiedAt: at };
  // Conditional on the row still being there: an origin removed while it was being checked stays removed.
  const { count } = await getDb().embedOrigin.updateMany({ where: { id, developerId }, data });
  if (count === 0) throw notFound("embed_origin");
  if (failure) {
    throw new AppError("embed_origin_unverified", 422, `${row.origin} could not be verified (${failure}): ${FAILURE_WORDS[failure]}.`);
  }
  return view(await ownOrigin(developerId, id));
}

/** Removes an origin: from the next response on, no checkout page names it in `frame-ancestors`. */
export async function removeEmbedOrigin(developerId: string, id: string): Promise<void> {
  const { count } = await getDb().embedOrigin.deleteMany({ where: { id, developerId } });
  if (count === 0) throw notFound("embed_origin");
}

/** The seller's verified origins, in a stable order (what `frame-ancestors` lists). */
export async function verifiedOrigins(developerId: string): Promise<string[]> {
  const rows = await getDb().embedOrigin.findMany({
    where: { developerId, status: "verified" },
    select: { origin: true },
    orderBy: { origin: "asc" },
  });
  return rows.map((r) => r.origin);
}

/** Words for a stored failure code (the dashboard shows them beside the origin). */
export function verifyFailureWords(code: VerifyFailure): string {
  return FAILURE_WORDS[code];
}
