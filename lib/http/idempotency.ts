import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { getDb } from "../db.ts";
import { AppError } from "./errors.ts";

/** How long a key's first answer is kept: a retry within this window gets it again; after it, the key is free. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
/** A "pending" row older than this belongs to a request that died mid-way (its instance stopped): a retry may take over. */
const STALE_PENDING_MS = 60_000;
/** What a racing retry is told to wait, in seconds. */
const RETRY_AFTER_S = 1;

const KEY = /^[\x21-\x7e]{1,255}$/;

/** Canonical JSON (object keys sorted), so the same input in another key order hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * A stored answer can hold what is shown once (a new API token, a webhook's signing secret, an agent platform's key),
 * so it is kept sealed (AES-256-GCM) under a key derived from the Idempotency-Key, which is never stored (the row's id
 * is a hash of it): only the caller that holds the key can have the answer back; the database, a backup or a log of
 * it cannot read it.
 */
const SEALED = "v1:";
function answerKey(idempotencyKey: string, id: string): Buffer {
  return Buffer.from(hkdfSync("sha256", idempotencyKey, id, "idempotent answer", 32));
}
function seal(answer: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(answer, "utf8"), cipher.final()]);
  return `${SEALED}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
}
function unseal(stored: string, key: Buffer): string {
  if (!stored.startsWith(SEALED)) return stored; // kept before answers were sealed (gone within 24 h)
  const raw = Buffer.from(stored.slice(SEALED.length), "base64");
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
}

function checkIdempotencyKey(key: string): string {
  if (!KEY.test(key))
    throw new AppError("invalid_idempotency_key", 400, "Idempotency-Key must be 1 to 255 printable ASCII characters without spaces.", {
      errors: [{ in: "header", name: "Idempotency-Key", message: "must be 1 to 255 printable ASCII characters without spaces" }],
    });
  return key;
}

const isUniqueViolation = (error: unknown) => typeof error === "object" && error !== null && (error as { code?: string }).code === "P2002";

/**
 * Runs `run` at most once per (operation, caller, key) within 24 h. The first call claims the key with a "pending"
 * row (a unique insert, so of racing calls exactly one wins), runs, and stores its output; a retry with the same input
 * gets that output (`replayed`), one with another input 422 `idempotency_conflict`, one while the first still runs 409
 * `idempotency_in_flight` with Retry-After. A call that fails removes its claim: nothing happened, so a retry runs
 * afresh. The stored output is sealed under the key (see `seal`).
 */
export async function runIdempotent<T>(
  scope: { operationId: string; caller: string; key: string },
  input: unknown,
  run: () => Promise<T>,
  now = new Date(),
): Promise<{ output: T; replayed: boolean }> {
  const db = getDb();
  const id = sha256(`${scope.operationId}\n${scope.caller}\n${checkIdempotencyKey(scope.key)}`);
  const sealing = answerKey(scope.key, id);
  const requestHash = sha256(canonical(input));
  const claim = () =>
    db.idempotencyRecord.create({
      data: { id, operationId: scope.operationId, requestHash, state: "pending", expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS) },
    });

  let claimed = false;
  for (let attempt = 0; attempt < 3 && !claimed; attempt++) {
    try {
      await claim();
      claimed = true;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const existing = await db.idempotencyRecord.findUnique({ where: { id } });
      if (!existing) continue; // removed meanwhile (its call failed): claim again
      const stale = existing.state === "pending" && now.getTime() - existing.createdAt.getTime() > STALE_PENDING_MS;
      if (existing.expiresAt <= now || stale) {
        // Expired, or abandoned: free the key (only if it is still that row) and claim again.
        await db.idempotencyRecord.deleteMany({ where: { id, createdAt: existing.createdAt } });
        continue;
      }
      if (existing.requestHash !== requestHash)
        throw new AppError(
          "idempotency_conflict",
          422,
          "This Idempotency-Key was already used with a different request; use a new key for a new request.",
          {
            errors: [{ in: "header", name: "Idempotency-Key", message: "was already used with a different request" }],
          },
        );
      if (existing.state !== "done" || existing.response === null)
        throw new AppError("idempotency_in_flight", 409, "A request with this Idempotency-Key is still being processed; retry shortly.", {
          headers: { "Retry-After": String(RETRY_AFTER_S) },
        });
      return { output: JSON.parse(unseal(existing.response, sealing)) as T, replayed: true };
    }
  }
  if (!claimed)
    throw new AppError("idempotency_in_flight", 409, "A request with this Idempotency-Key is being processed; retry shortly.", {
      headers: { "Retry-After": String(RETRY_AFTER_S) },
    });

  let output: T;
  try {
    output = await run();
  } catch (error) {
    await db.idempotencyRecord.deleteMany({ where: { id, state: "pending" } }).catch(() => undefined);
    throw error;
  }
  await db.idempotencyRecord.update({ where: { id }, data: { state: "done", response: seal(JSON.stringify(output ?? null), sealing) } });
  return { output, replayed: false };
}

/**
 * Forgets answers older than 24 h, and delegated payment tokens that expired unused (a token's allowance ends within
 * 24 h; spent ones stay, as the record of what paid an order). Run with the other periodic sweeps.
 */
export async function sweepIdempotencyRecords(now = new Date()): Promise<number> {
  const db = getDb();
  const { count } = await db.idempotencyRecord.deleteMany({ where: { expiresAt: { lt: now } } });
  await db.delegatedPayment.deleteMany({ where: { usedAt: null, expiresAt: { lt: now } } });
  return count;
}
