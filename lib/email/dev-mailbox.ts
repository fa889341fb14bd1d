import { getDb } from "../db.ts";
import { env, liveSetting } from "../env.ts";
import { AppError } from "../http/errors.ts";
import { isLoopbackHost } from "../http/host.ts";
import { CLIENT_VIA_PROXY_HEADER, isLoopbackAddress } from "../http/proxy.ts";
import { CLIENT_ADDRESS_HEADER } from "../http/rate-limit.ts";
import type { MailboxMessage, MailboxQuery } from "./schemas.ts";

/**
 * The development mailbox: without RESEND_API_KEY nothing is sent, and the operator reads the outbox here instead.
 * It shows license keys and sign-in links, so only to clients on this machine that address it as localhost,
 * 127.0.0.1 or [::1] (or to anyone with DEV_MAILBOX=public, for a shared test deployment), and never once a real
 * mail provider is configured.
 */
interface HeaderReader {
  get(name: string): string | null;
}

export function devMailboxEnabled(): boolean {
  return !env().RESEND_API_KEY;
}

/** How far back the dev mailbox shows messages: a sign-in link or a key lies there readable for an hour at most. */
const DEV_MAILBOX_WINDOW_MS = 3_600_000;

/**
 * Whether the operator's sign-in links are kept out of the dev mailbox: in production without a mail provider, unless
 * the operator said DEV_MAILBOX=local (or public). Anyone on the machine can read the mailbox, and an operator session
 * is the console.
 */
export function withholdOperatorLinks(e = env()): boolean {
  return e.NODE_ENV === "production" && !e.RESEND_API_KEY && e.DEV_MAILBOX === undefined;
}

/** One line for the startup log: where mail goes. */
export function mailSummary(e = env()): string {
  if (e.RESEND_API_KEY) return `mail: Resend, from ${e.MAIL_FROM}`;
  const who = e.DEV_MAILBOX === "public" ? "readable by ANYONE (DEV_MAILBOX=public)" : "readable from this machine only";
  const operator = withholdOperatorLinks(e)
    ? "; the operator's sign-in links are not written there (set RESEND_API_KEY, or DEV_MAILBOX=local to allow it)"
    : "";
  return `mail: LOCAL ONLY (no RESEND_API_KEY): sign-in links and license keys go to the dev mailbox at ${new URL("/dev/mailbox", e.BASE_URL).toString()}, ${who}, for an hour${operator}`;
}

/**
 * Whether the request (its headers, as server.ts stamped them) may read the dev mailbox: a loopback client address
 * (server.ts derives it from the socket, and from X-Forwarded-For only through trusted proxies) and a loopback Host,
 * so that a page on some other name pointed at 127.0.0.1 (DNS rebinding) never gets in, even where the host check
 * in front (lib/http/host.ts) lets that name through (ALLOWED_HOSTS).
 */
export function canReadDevMailbox(headers: HeaderReader): boolean {
  if (!devMailboxEnabled()) return false;
  if (liveSetting("DEV_MAILBOX") === "public") return true;
  if (!isLoopbackAddress(headers.get(CLIENT_ADDRESS_HEADER))) return false;
  // Next sets X-Forwarded-Host to the Host when a request has none; server.ts drops it from anyone but a trusted proxy.
  const forwardedHost = headers.get("x-forwarded-host");
  if (!isLoopbackHost(headers.get("host")) || (forwardedHost !== null && !isLoopbackHost(forwardedHost.split(",")[0]?.trim()))) return false;
  // Read from X-Forwarded-For by way of proxies we trust: that address is the client.
  if (headers.get(CLIENT_VIA_PROXY_HEADER) === "1") return true;
  // Otherwise a reverse proxy on this machine that we were not told about (or do not trust) makes every visitor look
  // local; the addresses it forwards give it away. (Next itself sets X-Forwarded-For to the socket address when it
  // is missing, so the header's presence alone proves nothing.)
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

/** The newest messages of the last hour, optionally only those to one address. */
export async function listDevMailbox(query: MailboxQuery, now = new Date()): Promise<{ messages: MailboxMessage[] }> {
  const since = { createdAt: { gte: new Date(now.getTime() - DEV_MAILBOX_WINDOW_MS) } };
  const rows = await getDb().emailMessage.findMany({
    where: query.to ? { to: query.to, ...since } : since,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit,
  });
  return { messages: rows.map(serialize) };
}

/** One outbox row of the last hour with its delivery state, or null. */
export async function getDevMailboxMessage(id: string, now = new Date()) {
  if (id.length > 64) return null;
  const row = await getDb().emailMessage.findUnique({ where: { id } });
  return row && row.createdAt.getTime() >= now.getTime() - DEV_MAILBOX_WINDOW_MS ? row : null;
}
