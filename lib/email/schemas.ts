import { z } from "zod";

const MAILBOX_LIMIT = { default: 20, max: 50 } as const;

/** GET /api/dev/mailbox. Addresses are stored lower-cased, so the filter is too. */
export const mailboxQuerySchema = z.object({
  to: z
    .string()
    .trim()
    .toLowerCase()
    .max(320)
    .regex(/^[^\s@]+@[^\s@]+$/, "must be an e-mail address")
    .optional()
    .describe("Only messages to this address"),
  limit: z.coerce.number().int().min(1).max(MAILBOX_LIMIT.max).default(MAILBOX_LIMIT.default),
});
export type MailboxQuery = z.infer<typeof mailboxQuerySchema>;

/** One message as GET /api/dev/mailbox returns it (ISO 8601 timestamps). */
export interface MailboxMessage {
  id: string;
  to: string;
  subject: string;
  kind: string;
  status: "pending" | "sent" | "failed";
  attempts: number;
  created_at: string;
  sent_at: string | null;
  text: string;
  html: string;
}
