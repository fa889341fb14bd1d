import { z } from "zod";

/** The environment, parsed once. Every setting is optional on the embedded default (SQLite, test-mode payments, dev mailbox). */
const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().default("0.0.0.0"),
  /** Public origin of this deployment; every absolute URL in every document derives from it. */
  BASE_URL: z.url().optional(),
  DATABASE_URL: z.string().min(1).default("file:./data/marketplace.db"),
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  RESEND_API_KEY: z.string().min(1).optional(),
  MAIL_FROM: z.string().min(3).default("Indie License Market <licenses@localhost>"),
  RECEIPT_SECRET: z.string().min(32).optional(),
  SIGNING_KEY: z.string().min(1).optional(),
  RATE_LIMIT: z.enum(["on", "off"]).default("on"),
  /** Skip seeding the demo catalogue into an empty database. */
  SEED_DEMO: z.enum(["on", "off"]).default("on"),
});

export type Env = z.infer<typeof schema> & { BASE_URL: string };

let cached: Env | undefined;

export function env(): Env {
  if (cached) return cached;
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid environment: ${issues}`);
  }
  const e = parsed.data;
  cached = { ...e, BASE_URL: (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "") };
  return cached;
}

/** For tests that change the environment between cases. */
export function resetEnv(): void {
  cached = undefined;
}
