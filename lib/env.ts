import { z } from "zod";

/**
 * The environment, parsed once. Every setting is optional on the embedded default (SQLite, test-mode payments, dev
 * mailbox), and every setting the code reads is here: nothing else reads process.env. A blank value (`KEY=` as in
 * .env.example, or Compose's `${KEY:-}`) counts as unset.
 */
const perMinute = (fallback: number) => z.coerce.number().int().min(1).max(100_000_000).default(fallback);
const millis = (fallback: number, min: number) => z.coerce.number().int().min(min).max(86_400_000).default(fallback);

const fields = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /** Interface to listen on; 127.0.0.1 when TRUST_PROXY is set (the proxy is then the only way in), else 0.0.0.0. */
  HOST: z.string().min(1).optional(),
  /** Public origin of this deployment; every absolute URL in every document derives from it. */
  BASE_URL: z.url().optional(),
  /** Further host names (comma-separated) this deployment answers to besides BASE_URL's; any other Host is refused. */
  ALLOWED_HOSTS: z.string().optional(),
  DATABASE_URL: z.string().min(1).default("file:./data/marketplace.db"),
  /** Connections per instance in the PostgreSQL pool. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1_000).default(10),
  /**
   * The database client emits an event per SQL statement, which lib/db.ts's captureQueries() collects (the query-plan
   * test). Off: no query events, so production pays nothing for them.
   */
  DATABASE_QUERY_EVENTS: z.enum(["on", "off"]).default("off"),
  /** Skip seeding the demo catalogue into an empty database. */
  SEED_DEMO: z.enum(["on", "off"]).default("on"),
  /**
   * Who takes payments: stripe, or the built-in test mode (a Pay button, no money). Unset: Stripe when
   * STRIPE_SECRET_KEY is set, else test mode outside production; in production test mode needs this explicit opt-in,
   * otherwise paid checkout is refused.
   */
  PAYMENTS: z.enum(["stripe", "test"]).optional(),
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** The signing secret of the Connect webhook endpoint (connected accounts' events: account.updated, payout.paid). */
  STRIPE_CONNECT_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Another Stripe API host (a proxy, or a local stand-in in tests). */
  STRIPE_API_BASE: z.url({ protocol: /^https?$/ }).optional(),
  /** Stripe Tax: checkout sessions calculate and collect tax (automatic_tax) once the operator has set Stripe Tax up. */
  STRIPE_TAX: z.enum(["on", "off"]).default("off"),
  /** The operator: addresses (comma-separated) that may use /admin after signing in with the usual sign-in link. */
  ADMIN_EMAILS: z.string().optional(),
  /** The operator's public contact address, on the Contact page and in the terms; unset: the page says there is none. */
  SUPPORT_EMAIL: z.email().optional(),
  /**
   * Agentic Commerce Protocol: whether agents without an agent platform key (issued in /admin) may open and complete
   * checkout sessions for listed products. On by default, as anyone may buy on the storefront; off makes a key required.
   */
  ACP_ANONYMOUS: z.enum(["on", "off"]).default("on"),
  RESEND_API_KEY: z.string().min(1).optional(),
  /** Another Resend API host (a proxy, or a local stand-in in tests). */
  RESEND_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  MAIL_FROM: z.string().min(3).default("Indie License Market <licenses@localhost>"),
  /**
   * Who may read the development mailbox: this machine only, or (a shared test deployment) everyone. Unset means this
   * machine only, except that in production the operator's (ADMIN_EMAILS) sign-in links are not written to it: the
   * operator signs in through a real mail provider, or says DEV_MAILBOX=local.
   */
  DEV_MAILBOX: z.enum(["local", "public"]).optional(),
  RECEIPT_SECRET: z.string().min(32).optional(),
  SIGNING_KEY: z.string().min(1).optional(),
  RATE_LIMIT: z.enum(["on", "off"]).default("on"),
  RATE_LIMIT_VALIDATE_PER_MIN: perMinute(600),
  RATE_LIMIT_ACTIVATION_PER_MIN: perMinute(60),
  RATE_LIMIT_RECEIPT_PER_MIN: perMinute(120),
  RATE_LIMIT_CHECKOUT_PER_MIN: perMinute(30),
  /**
   * Coupon codes tried per minute (quote, checkout and ACP together, each distinct code once) per client address, agent
   * platform and ACP session.
   */
  RATE_LIMIT_COUPON_TRY_PER_MIN: perMinute(30),
  RATE_LIMIT_PER_KEY_PER_MIN: perMinute(120),
  /** Seller API calls (REST and MCP) per seller API token per minute. */
  RATE_LIMIT_SELLER_TOKEN_PER_MIN: perMinute(300),
  /**
   * The default limit of every operation that declares none, per caller (client address, seller, agent platform or
   * operator) and operation, per minute: reads (GET, and POSTs that only read) and writes.
   */
  RATE_LIMIT_READ_PER_MIN: perMinute(600),
  RATE_LIMIT_WRITE_PER_MIN: perMinute(120),
  /**
   * Test events and redeliveries a seller may send to their webhook endpoints per minute (together): each is a POST to
   * a URL the seller chose, so this one is tight.
   */
  RATE_LIMIT_WEBHOOK_SEND_PER_MIN: perMinute(10),
  /**
   * User codes of the device flow (an app's "buy and activate" code) tried per client address per minute, looking one
   * up, buying or denying with it; one code may be tried twice as often in all, from any address.
   */
  RATE_LIMIT_DEVICE_CODE_PER_MIN: perMinute(10),
  /**
   * Sellers' webhook endpoints on private, loopback, link-local or otherwise non-public addresses (checked when an
   * endpoint is saved and again at every delivery, after DNS): refused unless this is on (a receiver on the same
   * private network as the service; the tests). The same holds for product images given by URL, which the server
   * fetches once and stores (lib/selling/uploads.ts): on, they may be fetched from such addresses too.
   */
  WEBHOOK_ALLOW_PRIVATE: z.enum(["on", "off"]).default("off"),
  /** Trials started per client address per hour. */
  RATE_LIMIT_TRIAL_PER_HOUR: z.coerce.number().int().min(1).max(100_000_000).default(10),
  /** Reverse proxies in front of the service; the client address is then read from X-Forwarded-For. */
  TRUST_PROXY: z.coerce.number().int().min(0).max(16).default(0),
  /** Addresses or CIDR ranges (comma-separated) of those proxies; X-Forwarded-For is read only from these peers. */
  TRUST_PROXY_FROM: z.string().min(1).default("127.0.0.1,::1"),
  /** How long an instance serves a cached license answer after another instance changed that license (0: no cache). */
  LICENSE_CACHE_TTL_MS: millis(10_000, 0),
  /** Licenses kept in that cache per instance. */
  LICENSE_CACHE_SIZE: z.coerce.number().int().min(1).max(10_000_000).default(100_000),
  /** How long marketplace reads (listings, catalog pages) are cached per instance (0: no cache). */
  LISTING_CACHE_TTL_MS: millis(5_000, 0),
  /**
   * Memory for storefront pages and the catalog served from cache in front of Next (lib/transports/page-cache.ts), in
   * megabytes (0: no page cache). Entries are valid while the content version is unchanged, checked per request.
   */
  PAGE_CACHE_MB: z.coerce.number().int().min(0).max(4_096).default(32),
  /** How often "last validated" times are written to the database. */
  VALIDATION_FLUSH_MS: millis(5_000, 10),
  /** Where uploaded files (product images, release artifacts) are stored with the local storage driver. */
  UPLOAD_DIR: z.string().min(1).default("./data/uploads"),
  /**
   * Where uploaded files live: on this machine's disk under UPLOAD_DIR (one instance, or instances sharing that
   * directory), or in an S3-compatible bucket (AWS S3, Cloudflare R2, MinIO) that every instance shares.
   */
  STORAGE_DRIVER: z.enum(["local", "s3"]).default("local"),
  S3_BUCKET: z.string().min(1).optional(),
  /** The bucket's region ("auto" for Cloudflare R2). */
  S3_REGION: z.string().min(1).default("us-east-1"),
  /** The S3 API endpoint for a service other than AWS (R2: https://<account>.r2.cloudflarestorage.com; MinIO). */
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  /** Path-style bucket addressing (MinIO and most self-hosted servers need it). */
  S3_FORCE_PATH_STYLE: z.enum(["on", "off"]).default("off"),
  /** Credentials; when unset, the AWS SDK's default chain (environment, instance role) is used. */
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** A key prefix inside the bucket, for a bucket shared with other data (e.g. "ilm/"). */
  S3_PREFIX: z.string().max(200).default(""),
  /** Lifetime of a signed download URL, in seconds. */
  DOWNLOAD_URL_TTL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(300),
  /** Largest release artifact a seller may upload, in megabytes (refused while it streams in). */
  ARTIFACT_MAX_MB: z.coerce.number().int().min(1).max(2_000).default(512),
  /**
   * Release artifact storage per seller, in megabytes: the sizes of the files of all their releases (drafts, published
   * and yanked). An upload that would pass it is refused before its body is read when its Content-Length says so,
   * while it streams in otherwise, and again when its row is written (racing uploads).
   */
  ARTIFACT_QUOTA_MB: z.coerce.number().int().min(1).max(100_000_000).default(5_120),
  /** Uploaded image storage per seller, in megabytes. */
  UPLOAD_QUOTA_MB: z.coerce.number().int().min(1).max(1_000_000).default(100),
  /** Complimentary licenses a seller may send per day, and while the seller is new (first 7 days, no paid sale). */
  COMPLIMENTARY_PER_DAY: z.coerce.number().int().min(0).max(100_000).default(50),
  COMPLIMENTARY_NEW_SELLER_PER_DAY: z.coerce.number().int().min(0).max(100_000).default(5),
});

/** Blank and whitespace-only values are unset, whatever the key. */
const unsetIfBlank = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);

const schema = z.preprocess(
  (raw) => (raw && typeof raw === "object" ? Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, unsetIfBlank(v)])) : raw),
  fields,
);

export type Settings = z.infer<typeof fields>;
export type Env = Settings & { BASE_URL: string; HOST: string };
export type SettingName = keyof Settings;

/** The names of every setting, for documentation checks. */
export const SETTING_NAMES = Object.keys(fields.shape) as SettingName[];

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
}

/** Parses an environment (process.env, or a file's assignments) without touching the cached one. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const parsed = schema.safeParse(source);
  if (!parsed.success) throw new Error(`Invalid environment: ${describe(parsed.error)}`);
  const e = parsed.data;
  return {
    ...e,
    BASE_URL: (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    HOST: e.HOST ?? (e.TRUST_PROXY > 0 ? "127.0.0.1" : "0.0.0.0"),
  };
}

let cached: Env | undefined;

export function env(): Env {
  return (cached ??= parseEnv(process.env));
}

/** server.ts, at start: its environment does not change while it runs, so live settings are read once each. */
export function freezeLiveSettings(): void {
  frozen = true;
}

/** For tests that change the environment between cases. */
export function resetEnv(): void {
  cached = undefined;
}

const live = new Map<SettingName, { raw: string | undefined; value: unknown }>();
let frozen = false;

/**
 * One setting read afresh from process.env on each call, through the same schema field (blank is unset, same
 * default and bounds). For the few settings that tests, and the rate limiter's contract, change at runtime
 * without resetEnv(); a value is parsed once per distinct raw string. In the server process (after
 * freezeLiveSettings) each is read once: reading process.env goes through libc on every access, and the licensing
 * hot path asks for two or three of these per request.
 */
export function liveSetting<K extends SettingName>(name: K): Settings[K] {
  const hit = live.get(name);
  if (frozen && hit) return hit.value as Settings[K];
  const raw = process.env[name];
  if (hit && hit.raw === raw) return hit.value as Settings[K];
  const parsed = fields.shape[name].safeParse(unsetIfBlank(raw));
  if (!parsed.success) throw new Error(`Invalid environment: ${name}: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  live.set(name, { raw, value: parsed.data });
  return parsed.data as Settings[K];
}
