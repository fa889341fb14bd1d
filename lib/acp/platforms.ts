import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import type { Admin } from "../admin/access.ts";
import { writeAudit } from "../admin/audit.ts";
import { getDb } from "../db.ts";
import { env, liveSetting } from "../env.ts";
import { AppError, notFound } from "../http/errors.ts";
import { CONTROL_CHARACTER_MESSAGE, singleLineText } from "../http/input.ts";
import { checkWebhookTarget } from "../seller-webhooks/target.ts";

/** Agent platform keys: a recognisable prefix, then 32 random bytes. Only the SHA-256 is stored. */
const KEY_PREFIX = "acpk_";
const KEY = /^acpk_[A-Za-z0-9_-]{43}$/;

const hashPlatformKey = (key: string) => createHash("sha256").update(key).digest("hex");

export function newPlatformKey(): { key: string; keyHash: string; keyPrefix: string } {
  const key = `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
  return { key, keyHash: hashPlatformKey(key), keyPrefix: key.slice(0, 12) };
}

/** The webhook signing secret: kept as is (the HMAC needs it), shown to the operator once, never listed. */
const newWebhookSecret = () => `whsec_${randomBytes(32).toString("base64url")}`;

const unauthorized = (detail: string) => new AppError("unauthorized", 401, detail, { headers: { "WWW-Authenticate": 'Bearer realm="acp"' } });

/** The platform behind a call that must be a registered platform (its own settings): an anonymous agent is refused. */
export function ownPlatform(agent: { platformId: string | null }): string {
  if (agent.platformId === null)
    throw unauthorized(
      "Only a registered agent platform has settings: send Authorization: Bearer <agent platform key> (acpk_…, issued by the operator).",
    );
  return agent.platformId;
}

/**
 * The agent platform behind an Agentic Commerce Protocol call: its Bearer key (Authorization header; on MCP, the
 * header of the HTTP request carrying the JSON-RPC message). Without a key, an anonymous agent when ACP_ANONYMOUS is
 * on; a key that is present but unknown or revoked is always refused.
 */
export async function agentFor(ctx: { headers: Headers }): Promise<{ platformId: string | null; name: string }> {
  const header = ctx.headers.get("authorization");
  if (!header) {
    if (env().ACP_ANONYMOUS === "on") return { platformId: null, name: "anonymous agent" };
    throw unauthorized("An agent platform key is required: send Authorization: Bearer <key> (the operator issues keys in /admin).");
  }
  const key = /^Bearer\s+(\S+)$/i.exec(header.trim())?.[1];
  if (key === undefined || !KEY.test(key)) throw unauthorized("Authorization must be Bearer <agent platform key>.");
  const platform = await getDb().agentPlatform.findUnique({
    where: { keyHash: hashPlatformKey(key) },
    select: { id: true, name: true, revokedAt: true },
  });
  if (!platform || platform.revokedAt) throw unauthorized("This agent platform key is unknown or revoked.");
  return { platformId: platform.id, name: platform.name };
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The operator's side: registering platforms, their webhook endpoint and secret, revoking them.                 */

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

const allowPrivate = () => liveSetting("WEBHOOK_ALLOW_PRIVATE") === "on";

/**
 * A receiver on this machine outside production (http or https to localhost, 127.0.0.1, [::1]), for trying one
 * locally: accepted and sent to as it is. Every other platform webhook URL is under the seller webhooks' rules
 * (lib/seller-webhooks/target.ts), checked again and pinned at each delivery (lib/webhooks/deliver.ts).
 */
export function isLocalTrialWebhook(raw: string): boolean {
  if (env().NODE_ENV === "production" || !URL.canParse(raw)) return false;
  const url = new URL(raw);
  return (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * Where order events are POSTed, as the operator sets it: an https URL without credentials in it. Outside production,
 * http to this machine (localhost, 127.0.0.1, [::1]) is allowed too, for trying a receiver locally; with
 * WEBHOOK_ALLOW_PRIVATE=on, http to any host, as for sellers. Whoever set it, each delivery applies the seller
 * webhooks' address rules (a private or loopback address only with WEBHOOK_ALLOW_PRIVATE=on).
 */
export const webhookUrlSchema = z
  .string()
  .trim()
  .max(2000)
  .refine(singleLineText, CONTROL_CHARACTER_MESSAGE)
  .superRefine((raw, ctx) => {
    const problem = webhookUrlProblem(raw);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .describe("The https URL order events are POSTed to (http://localhost or 127.0.0.1 only outside production or with WEBHOOK_ALLOW_PRIVATE=on)");

function webhookUrlProblem(raw: string): string | null {
  if (!URL.canParse(raw)) return "must be an absolute URL";
  const url = new URL(raw);
  if (url.username || url.password) return "must not carry credentials";
  if (url.hash) return "must not have a #fragment";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && allowPrivate()) return null;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) {
    return env().NODE_ENV === "production"
      ? "must use https (http is allowed only for localhost outside production, or with WEBHOOK_ALLOW_PRIVATE=on)"
      : null;
  }
  return "must use https";
}

export const platformNameSchema = z
  .string()
  .trim()
  .min(2, "give a name of at least 2 characters")
  .max(100)
  .refine(singleLineText, CONTROL_CHARACTER_MESSAGE)
  .describe("Who the platform is, as the operator knows it (e.g. the agent's company)");

export interface AdminAgentPlatform {
  id: string;
  name: string;
  /** The key's first characters (acpk_…), to tell keys apart; the key itself is shown only when issued. */
  key_prefix: string;
  webhook_url: string | null;
  created_at: string;
  revoked_at: string | null;
  /** Webhook deliveries to this platform by status, and when one last got through. */
  deliveries: { pending: number; sent: number; failed: number; last_sent_at: string | null };
}

const SELECT = { id: true, name: true, keyPrefix: true, webhookUrl: true, createdAt: true, revokedAt: true } as const;
type Row = { id: string; name: string; keyPrefix: string; webhookUrl: string | null; createdAt: Date; revokedAt: Date | null };

async function withStats(rows: Row[]): Promise<AdminAgentPlatform[]> {
  const groups = rows.length
    ? await getDb().webhookDelivery.groupBy({
        by: ["targetId", "status"],
        where: { kind: "acp_order", targetId: { in: rows.map((r) => r.id) } },
        _count: { _all: true },
        _max: { sentAt: true },
      })
    : [];
  return rows.map((r) => {
    const mine = groups.filter((g) => g.targetId === r.id);
    const count = (status: string) => mine.find((g) => g.status === status)?._count._all ?? 0;
    return {
      id: r.id,
      name: r.name,
      key_prefix: r.keyPrefix,
      webhook_url: r.webhookUrl,
      created_at: r.createdAt.toISOString(),
      revoked_at: r.revokedAt?.toISOString() ?? null,
      deliveries: {
        pending: count("pending"),
        sent: count("sent"),
        failed: count("failed"),
        last_sent_at: mine.find((g) => g.status === "sent")?._max.sentAt?.toISOString() ?? null,
      },
    };
  });
}

/** Every platform, newest first (revoked ones too: their orders and deliveries stay visible). */
export async function listAgentPlatforms(limit = 200): Promise<AdminAgentPlatform[]> {
  const rows = await getDb().agentPlatform.findMany({ orderBy: [{ createdAt: "desc" }, { id: "asc" }], take: limit, select: SELECT });
  return withStats(rows);
}

async function getAgentPlatform(id: string): Promise<AdminAgentPlatform> {
  const row = await getDb().agentPlatform.findUnique({ where: { id }, select: SELECT });
  if (!row) throw notFound("agent_platform");
  const [platform] = await withStats([row]);
  if (!platform) throw notFound("agent_platform");
  return platform;
}

/**
 * Registers a platform: its Bearer key and its webhook secret are returned here and never again (only the key's
 * hash is stored; the secret is stored, for signing, but no listing shows it). The audit entry names the key prefix.
 */
export async function registerAgentPlatform(
  admin: Admin,
  input: { name: string; webhook_url?: string | null },
): Promise<{ platform: AdminAgentPlatform; api_key: string; webhook_secret: string }> {
  const { key, keyHash, keyPrefix } = newPlatformKey();
  const webhookSecret = newWebhookSecret();
  const id = `ap_${randomBytes(12).toString("hex")}`;
  await getDb().$transaction(async (tx) => {
    await tx.agentPlatform.create({ data: { id, name: input.name, keyHash, keyPrefix, webhookUrl: input.webhook_url ?? null, webhookSecret } });
    await writeAudit(tx, admin, {
      action: "agent_platform.register",
      targetType: "agent_platform",
      targetId: id,
      detail: { name: input.name, key_prefix: keyPrefix, webhook_url: input.webhook_url ?? null },
    });
  });
  return { platform: await getAgentPlatform(id), api_key: key, webhook_secret: webhookSecret };
}

const revoked = () => new AppError("agent_platform_revoked", 409, "This agent platform is revoked.");

/** Sets or clears the webhook URL. Deliveries still pending go to the new URL (the sender reads it at send time). */
export async function setAgentPlatformWebhook(admin: Admin, id: string, webhookUrl: string | null): Promise<AdminAgentPlatform> {
  await getDb().$transaction(async (tx) => {
    const before = await tx.agentPlatform.findUnique({ where: { id }, select: { webhookUrl: true, revokedAt: true } });
    if (!before) throw notFound("agent_platform");
    const changed = await tx.agentPlatform.updateMany({ where: { id, revokedAt: null }, data: { webhookUrl } });
    if (changed.count !== 1) throw revoked();
    await writeAudit(tx, admin, {
      action: "agent_platform.update",
      targetType: "agent_platform",
      targetId: id,
      detail: { webhook_url: webhookUrl, previous_webhook_url: before.webhookUrl },
    });
  });
  return getAgentPlatform(id);
}

/**
 * A new webhook secret, returned once. It signs every delivery from now on, retries of older events included (the
 * sender signs at send time), so the platform should accept both secrets while it switches over.
 */
export async function rotateAgentPlatformSecret(admin: Admin, id: string): Promise<{ platform: AdminAgentPlatform; webhook_secret: string }> {
  const webhookSecret = newWebhookSecret();
  await getDb().$transaction(async (tx) => {
    const changed = await tx.agentPlatform.updateMany({ where: { id, revokedAt: null }, data: { webhookSecret } });
    if (changed.count !== 1) {
      if (!(await tx.agentPlatform.findUnique({ where: { id }, select: { id: true } }))) throw notFound("agent_platform");
      throw revoked();
    }
    await writeAudit(tx, admin, { action: "agent_platform.rotate_secret", targetType: "agent_platform", targetId: id, detail: {} });
  });
  return { platform: await getAgentPlatform(id), webhook_secret: webhookSecret };
}

/**
 * Revokes a platform for good: its key is refused from now on (checkout sessions it opened cannot be completed with
 * it), and its pending webhook deliveries are given up. Orders it made stay valid. Conditional, so two operators
 * racing revoke once.
 */
export async function revokeAgentPlatform(admin: Admin, id: string, reason: string, now = new Date()): Promise<AdminAgentPlatform> {
  await getDb().$transaction(async (tx) => {
    const changed = await tx.agentPlatform.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } });
    if (changed.count !== 1) {
      if (!(await tx.agentPlatform.findUnique({ where: { id }, select: { id: true } }))) throw notFound("agent_platform");
      throw new AppError("agent_platform_revoked", 409, "This agent platform is already revoked.");
    }
    const dropped = await tx.webhookDelivery.updateMany({
      where: { kind: "acp_order", targetId: id, status: "pending" },
      data: { status: "failed", lastError: "not sent: the agent platform was revoked", lockedUntil: null },
    });
    await writeAudit(tx, admin, {
      action: "agent_platform.revoke",
      targetType: "agent_platform",
      targetId: id,
      detail: { reason, deliveries_dropped: dropped.count },
    });
  });
  return getAgentPlatform(id);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The platform's own side: its webhook URL and signing secret, with its own key.                                */

/** What a platform reads of its own webhook: never the secret (shown once, by the call that makes it). */
export interface OwnWebhook {
  platform: { id: string; name: string };
  webhook_url: string | null;
  /** The ACP order events sent there. */
  events: Array<"order_create" | "order_update">;
  deliveries: AdminAgentPlatform["deliveries"];
}

async function ownWebhook(platformId: string): Promise<OwnWebhook> {
  const p = await getAgentPlatform(platformId);
  return { platform: { id: p.id, name: p.name }, webhook_url: p.webhook_url, events: ["order_create", "order_update"], deliveries: p.deliveries };
}

/** Audit entries of a platform's own changes name it as the actor, so the operator's log shows who moved its webhook. */
const platformActor = (platformId: string) => ({ email: `agent-platform:${platformId}` });

export const getOwnWebhook = (platformId: string): Promise<OwnWebhook> => ownWebhook(platformId);

/**
 * A URL a platform gives for itself, under the seller webhooks' rules (checkWebhookTarget: https, http only outside
 * production or with WEBHOOK_ALLOW_PRIVATE=on; no credentials; a host that is, or resolves to, a private, loopback or
 * otherwise non-public address only with WEBHOOK_ALLOW_PRIVATE=on), except a receiver on this machine outside
 * production, accepted as the operator's form accepts it. 400 `webhook_target_refused` names why.
 */
async function checkOwnWebhookUrl(raw: string): Promise<string> {
  if (isLocalTrialWebhook(raw)) {
    const problem = webhookUrlProblem(raw);
    if (problem) throw new AppError("webhook_target_refused", 400, `This webhook URL is refused: it ${problem}.`);
    return new URL(raw).toString();
  }
  return checkWebhookTarget(raw);
}

/**
 * Sets or clears the platform's own webhook URL. Deliveries still pending go to the new URL (the sender reads it at
 * send time); with none, new order events are not queued and pending ones fail.
 */
export async function setOwnWebhook(platformId: string, rawUrl: string | null): Promise<OwnWebhook> {
  const webhookUrl = rawUrl === null ? null : await checkOwnWebhookUrl(rawUrl);
  await getDb().$transaction(async (tx) => {
    const before = await tx.agentPlatform.findUnique({ where: { id: platformId }, select: { webhookUrl: true } });
    if (!before) throw notFound("agent_platform");
    const changed = await tx.agentPlatform.updateMany({ where: { id: platformId, revokedAt: null }, data: { webhookUrl } });
    if (changed.count !== 1) throw revoked();
    await writeAudit(tx, platformActor(platformId), {
      action: "agent_platform.update",
      targetType: "agent_platform",
      targetId: platformId,
      detail: { webhook_url: webhookUrl, previous_webhook_url: before.webhookUrl, by: "platform" },
    });
  });
  return ownWebhook(platformId);
}

/**
 * A new signing secret for the platform's own webhook, in this answer only. Every delivery from now on (retries of
 * older events too) is signed with it: accept both secrets while switching over.
 */
export async function rotateOwnWebhookSecret(platformId: string): Promise<OwnWebhook & { webhook_secret: string }> {
  const webhookSecret = newWebhookSecret();
  await getDb().$transaction(async (tx) => {
    const changed = await tx.agentPlatform.updateMany({ where: { id: platformId, revokedAt: null }, data: { webhookSecret } });
    if (changed.count !== 1) throw revoked();
    await writeAudit(tx, platformActor(platformId), {
      action: "agent_platform.rotate_secret",
      targetType: "agent_platform",
      targetId: platformId,
      detail: { by: "platform" },
    });
  });
  return { ...(await ownWebhook(platformId)), webhook_secret: webhookSecret };
}
