import { z } from "zod";

export const MAILBOX_LIMIT = { default: 20, max: 50 } as const;

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

export const mailboxMessageSchema = z.object({
  id: z.string(),
  to: z.string(),
  subject: z.string(),
  kind: z.string(),
  status: z.enum(["pending", "sent", "failed"]),
  attempts: z.int(),
  created_at: z.iso.datetime(),
  sent_at: z.iso.datetime().nullable(),
  text: z.string(),
  html: z.string(),
});
export type MailboxMessage = z.infer<typeof mailboxMessageSchema>;

export const mailboxResponseSchema = z.object({ messages: z.array(mailboxMessageSchema) });
