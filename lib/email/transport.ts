import { Resend } from "resend";
import { env, liveSetting } from "../env.ts";

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  /** The outbox row id: a retry of a send that reached the provider is not delivered twice. */
  idempotencyKey: string;
}

/** Something that hands a message to a mail system. Throws when the message was not accepted. */
export interface MailTransport {
  name: string;
  send(msg: OutgoingMail): Promise<{ id: string }>;
}

/** Longest a send may take. Shorter than the outbox lock (60 s), so a stuck request never overlaps a retry. */
const SEND_TIMEOUT_MS = 30_000;

const RESEND_API = "https://api.resend.com";

/**
 * Delivery through Resend's API. The SDK reports API and network errors as `{ error }` instead of throwing; both
 * become an Error here, so the outbox records and retries them. RESEND_BASE_URL, read when the transport is
 * constructed and handed to the SDK (which would otherwise read process.env itself), points it elsewhere (a local
 * stub in tests).
 */
export class ResendTransport implements MailTransport {
  readonly name = "resend";
  private readonly client: Resend;

  constructor(apiKey: string) {
    this.client = new Resend(apiKey, { baseUrl: liveSetting("RESEND_BASE_URL") ?? RESEND_API });
  }

  async send(msg: OutgoingMail): Promise<{ id: string }> {
    const result = await this.client.emails.send(
      { from: msg.from, to: msg.to, subject: msg.subject, html: msg.html, text: msg.text },
      // Resend keeps idempotency keys for 24 hours: a retry after a lost response returns the first result.
      { idempotencyKey: msg.idempotencyKey, signal: AbortSignal.timeout(SEND_TIMEOUT_MS) },
    );
    if (result.error) {
      // The SDK's types promise every field; the API does not always send them.
      const { name, statusCode, message } = result.error as { name?: string; statusCode?: number | null; message?: string };
      throw new Error(`Resend ${name ?? "error"}${statusCode ? ` (HTTP ${statusCode})` : ""}: ${message ?? "no message"}`);
    }
    const data = result.data as { id?: string } | null;
    if (!data?.id) throw new Error("Resend accepted the message but returned no id.");
    return { id: data.id };
  }
}

/**
 * The development mailbox: the outbox table is the mailbox (read at /dev/mailbox and GET /api/dev/mailbox), so
 * "delivering" only marks the message sent. Nothing leaves the machine.
 */
export class DevMailboxTransport implements MailTransport {
  readonly name = "dev-mailbox";

  send(msg: OutgoingMail): Promise<{ id: string }> {
    if (env().NODE_ENV !== "test") {
      console.log(`[dev mailbox] to ${msg.to}: ${msg.subject} — read it at ${env().BASE_URL}/dev/mailbox/${encodeURIComponent(msg.idempotencyKey)}`);
    }
    return Promise.resolve({ id: `dev-${msg.idempotencyKey}` });
  }
}

/** Resend when RESEND_API_KEY is set, the dev mailbox otherwise. */
export function mailTransport(): MailTransport {
  const key = env().RESEND_API_KEY;
  return key ? new ResendTransport(key) : new DevMailboxTransport();
}
