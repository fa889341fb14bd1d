import { isIP } from "node:net";
import { getDb } from "../db.ts";
import { env, liveSetting } from "../env.ts";
import { AppError } from "../http/errors.ts";
import { CLIENT_ADDRESS_HEADER } from "../http/rate-limit.ts";
import type { MailboxMessage, MailboxQuery } from "./schemas.ts";

/**
 * The development mailbox: without RESEND_API_KEY nothing is sent, and the operator reads the outbox here instead.
 * It shows license keys and sign-in links, so only to clients on this machine (or to anyone with
 * DEV_MAILBOX=public, for a shared test deployment), and never once a real mail provider is configured.
 */
interface HeaderReader {
  get(name: string): string | null;
}

/** 127.0.0.0/8, ::1 and IPv4-mapped 127.x (how a dual-stack socket reports an IPv4 loopback peer), in any spelling. */
function isLoopbackAddress(address: string | null | undefined): boolean {
  const a = (address ?? "").trim().toLowerCase();
  if (isIP(a) === 4) return a.startsWith("127.");
  if (isIP(a) !== 6 || a.includes("%")) return false; // a zone id ("fe80::1%eth0") is never loopback
  // The URL parser writes every IPv6 spelling in one canonical form ("::ffff:127.0.0.1" becomes "::ffff:7f00:1").
  const v6 = new URL(`http://[${a}]/`).hostname.slice(1, -1);
  if (v6 === "::1") return true;
  const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(v6);
  const high = mapped?.[1];
  return high !== undefined && parseInt(high, 16) >> 8 === 127;
}

export function devMailboxEnabled(): boolean {
  return !env().RESEND_API_KEY;
}

/** Whether the request (its headers, as server.ts stamped them) may read the dev mailbox. */
export function canReadDevMailbox(headers: HeaderReader): boolean {
  if (!devMailboxEnabled()) return false;
  if (liveSetting("DEV_MAILBOX") === "public") return true;
  if (!isLoopbackAddress(headers.get(CLIENT_ADDRESS_HEADER))) return false;
  // A reverse proxy on this machine that we were not told about (TRUST_PROXY unset) makes every visitor look local;
  // the addresses it forwards give it away. (Next itself sets X-Forwarded-For to the socket address when it is
  // missing, so the header's presence alone proves nothing.)
  if (liveSetting("TRUST_PROXY") > 0) return true;
  return forwardedAddresses(headers).every(isLoopbackAddress);
}

/** Every client address a proxy may have added: X-Forwarded-For, X-Real-IP and the for= of Forwarded (RFC 7239). */
function forwardedAddresses(headers: HeaderReader): string[] {
  const out: string[] = [];
  for (const name of ["x-forwarded-for", "x-real-ip"]) {
    const value = headers.get(name);
    if (value)
      out.push(
        ...value
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      );
  }
  const forwarded = headers.get("forwarded");
  if (forwarded) {
    for (const m of forwarded.matchAll(/for\s*=\s*("?)([^";,]*)\1/gi)) {
      // for="[::1]:4711" → ::1; for=127.0.0.1 stays; an obfuscated or unknown node does not count as local.
      out.push((m[2] ?? "").replace(/^\[([^\]]*)\](?::\d+)?$/, "$1"));
    }
  }
  return out;
}

/** For route handlers: a 404 problem, the same answer as for a path that does not exist. */
export function assertDevMailbox(headers: HeaderReader): void {
  if (!canReadDevMailbox(headers)) throw new AppError("not_found", 404, "There is nothing at this address.");
}

type Row = {
  id: string;
  to: string;
  subject: string;
  kind: string;
  status: string;
  attempts: number;
  createdAt: Date;
  sentAt: Date | null;
  text: string;
  html: string;
};

function serialize(m: Row): MailboxMessage {
  return {
    id: m.id,
    to: m.to,
    subject: m.subject,
    kind: m.kind,
    status: m.status as MailboxMessage["status"],
    attempts: m.attempts,
    created_at: m.createdAt.toISOString(),
    sent_at: m.sentAt?.toISOString() ?? null,
    text: m.text,
    html: m.html,
  };
}

/** The newest messages, optionally only those to one address. */
export async function listDevMailbox(query: MailboxQuery): Promise<{ messages: MailboxMessage[] }> {
  const rows = await getDb().emailMessage.findMany({
    where: query.to ? { to: query.to } : {},
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit,
  });
  return { messages: rows.map(serialize) };
}

/** One outbox row with its delivery state, or null. */
export async function getDevMailboxMessage(id: string) {
  if (id.length > 64) return null;
  return getDb().emailMessage.findUnique({ where: { id } });
}
