import { createHash, randomBytes } from "node:crypto";
import { getDb } from "../db.ts";
import { env } from "../env.ts";
import { AppError } from "../http/errors.ts";
import type { CallContext } from "../operations/define.ts";

/** Agent platform keys: a recognisable prefix, then 32 random bytes. Only the SHA-256 is stored. */
const KEY_PREFIX = "acpk_";
const KEY = /^acpk_[A-Za-z0-9_-]{43}$/;

export const hashPlatformKey = (key: string) => createHash("sha256").update(key).digest("hex");

export function newPlatformKey(): { key: string; keyHash: string; keyPrefix: string } {
  const key = `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
  return { key, keyHash: hashPlatformKey(key), keyPrefix: key.slice(0, 12) };
}

const unauthorized = (detail: string) => new AppError("unauthorized", 401, detail, { headers: { "WWW-Authenticate": 'Bearer realm="acp"' } });

/**
 * The agent platform behind an Agentic Commerce Protocol call: its Bearer key (Authorization header; on MCP, the
 * header of the HTTP request carrying the JSON-RPC message). Without a key, an anonymous agent when ACP_ANONYMOUS is
 * on; a key that is present but unknown or revoked is always refused.
 */
export async function agentFor(ctx: Pick<CallContext, "headers">): Promise<{ platformId: string | null; name: string }> {
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
