import { z } from "zod";
import { consumeSignIn, endSession, requestSignIn, SESSION_KINDS, signInRequestSchema } from "../auth/sign-in.ts";
import { RULES } from "../http/rate-limit.ts";
import { operation, type Operation } from "./define.ts";

const tokenSchema = z.string().max(100).describe("The token of a sign-in link or a session cookie");

/**
 * Signing in and out of the dashboard and My licenses: the pages' forms post to routes of their own (app/auth/…),
 * which set or clear the cookie and redirect; the writes are these operations, through execute() like every other
 * write. No REST route and no tool: a session is a browser's, and an API caller uses a token instead.
 */
export const SESSIONS: Operation[] = [
  operation({
    id: "requestSignIn",
    summary: "E-mail a sign-in link",
    description:
      "Mails a single-use sign-in link (15 minutes) to the address, saying nothing about whether it is known. Returns the address as understood and the link's digest, for the browser-binding cookie.",
    tag: "Sign-in",
    auth: "public",
    readOnly: false,
    idempotencyExempt: "each request mails a new link on purpose; the per-address and per-client limits bound the mail",
    input: { body: signInRequestSchema },
    output: z.object({ email: z.string(), digest: z.string() }),
    limits: (b, c) => [
      [RULES.checkout, c.client],
      [RULES.signInEmail, b.email],
    ],
    errors: [400, 429],
    handler: async (b) => ({ email: b.email, digest: (await requestSignIn(b)).digest }),
  }),
  operation({
    id: "confirmSignIn",
    summary: "Use a sign-in link",
    description: "Exchanges a sign-in link's token for a session, once: an expired, used or unknown token is 400 `sign_in_link_invalid`.",
    tag: "Sign-in",
    auth: "public",
    readOnly: false,
    idempotencyExempt: "a sign-in link is single-use: its own state refuses a second use",
    input: { body: z.object({ token: tokenSchema }) },
    output: z.object({
      cookie_name: z.string(),
      cookie_value: z.string(),
      max_age_seconds: z.int(),
      kind: z.enum(SESSION_KINDS),
      email: z.string(),
      next: z.string(),
    }),
    limits: (_b, c) => [[RULES.checkout, c.client]],
    errors: [400, 429],
    handler: async (b) => {
      const s = await consumeSignIn(b.token);
      return { cookie_name: s.cookieName, cookie_value: s.cookieValue, max_age_seconds: s.maxAgeSeconds, kind: s.kind, email: s.email, next: s.next };
    },
  }),
  operation({
    id: "endSession",
    summary: "Sign out",
    description: "Ends the session the cookie names (nothing when it names none).",
    tag: "Sign-in",
    auth: "public",
    readOnly: false,
    idempotencyExempt: "ending a session that has ended changes nothing",
    input: { body: z.object({ session: tokenSchema.optional() }) },
    output: z.object({ ended: z.literal(true) }),
    errors: [429],
    handler: async (b) => {
      await endSession(b.session);
      return { ended: true as const };
    },
  }),
];
