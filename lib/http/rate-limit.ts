import { liveSetting, type SettingName } from "../env.ts";
import { AppError } from "./errors.ts";
import { resolveClient } from "./proxy.ts";

/**
 * Fixed-window rate limits. Each process decides locally (no database round trip on the hot path) and, on
 * PostgreSQL, shares its counts with the other instances every second through the RateLimitBucket table
 * (rate-limit-sync.ts), so the limits hold for the whole deployment within about a second of traffic. Windows are
 * aligned to the clock, so every instance agrees on where a window starts. Limits are per client address and per license key, so one
 * noisy client cannot lock a key out for everyone, and guessing keys is hopeless (80-bit keys at a few hundred
 * tries a minute). Configured through the environment; RATE_LIMIT=off disables them (load benchmarks).
 */
export interface RateRule {
  name: string;
  limit: number;
  windowMs: number;
}

// Read through lib/env.ts on each use; the fallback shown at each rule is the schema's default there.
const num = (name: Extract<SettingName, `RATE_LIMIT_${string}_PER_${"MIN" | "HOUR"}`>, _fallback: number): number => liveSetting(name);

/** The limits, read from the environment on each use so operators and tests can change them without a restart of this module. */
export const RULES = {
  /** POST /validate per client address: an office of many machines behind one address launches apps all day. */
  get validate(): RateRule {
    return { name: "validate", limit: num("RATE_LIMIT_VALIDATE_PER_MIN", 600), windowMs: 60_000 };
  },
  /** POST /activate and /deactivate per client address. */
  get activation(): RateRule {
    return { name: "activation", limit: num("RATE_LIMIT_ACTIVATION_PER_MIN", 60), windowMs: 60_000 };
  },
  /** GET /api/receipt per client address. */
  get receipt(): RateRule {
    return { name: "receipt", limit: num("RATE_LIMIT_RECEIPT_PER_MIN", 120), windowMs: 60_000 };
  },
  /** Checkout sessions and trials started per client address. */
  get checkout(): RateRule {
    return { name: "checkout", limit: num("RATE_LIMIT_CHECKOUT_PER_MIN", 30), windowMs: 60_000 };
  },
  /**
   * Coupon codes tried, each distinct code of a call once, per client address (per agent platform for a keyed agent)
   * and per ACP checkout session, one budget for quote, checkout and ACP (lib/coupons/try-budget.ts).
   */
  get couponTry(): RateRule {
    return { name: "coupon-try", limit: num("RATE_LIMIT_COUPON_TRY_PER_MIN", 30), windowMs: 60_000 };
  },
  /** Trials started per client address per hour (on top of `checkout`): each one mails a key to some address. */
  get trial(): RateRule {
    return { name: "trial", limit: num("RATE_LIMIT_TRIAL_PER_HOUR", 10), windowMs: 3_600_000 };
  },
  /** Seller API calls per seller API token, whatever the transport (REST or MCP). */
  get sellerToken(): RateRule {
    return { name: "seller-token", limit: num("RATE_LIMIT_SELLER_TOKEN_PER_MIN", 300), windowMs: 60_000 };
  },
  /** Licensing calls per license key, whatever the address. */
  get key(): RateRule {
    return { name: "key", limit: num("RATE_LIMIT_PER_KEY_PER_MIN", 120), windowMs: 60_000 };
  },
  /**
   * The default of every operation that declares no limits of its own, per caller and operation: reads (GET, and
   * POSTs that only read)...
   */
  get callerRead(): RateRule {
    return { name: "caller-read", limit: num("RATE_LIMIT_READ_PER_MIN", 600), windowMs: 60_000 };
  },
  /** ...and writes. */
  get callerWrite(): RateRule {
    return { name: "caller-write", limit: num("RATE_LIMIT_WRITE_PER_MIN", 120), windowMs: 60_000 };
  },
  /**
   * Webhook test events and redeliveries per seller, together (dashboard session or token alike): each one is a POST
   * to a URL of the seller's choosing, so the default write limit is far too loose for them.
   */
  get webhookSend(): RateRule {
    return { name: "webhook-send", limit: num("RATE_LIMIT_WEBHOOK_SEND_PER_MIN", 10), windowMs: 60_000 };
  },
  /**
   * User codes of the device flow tried per client address (looking one up, buying or denying with it): a person
   * types a code once or twice, so a tight limit makes guessing one of the few open codes hopeless.
   */
  get deviceCodeTry(): RateRule {
    return { name: "device-code-try", limit: num("RATE_LIMIT_DEVICE_CODE_PER_MIN", 10), windowMs: 60_000 };
  },
  /** Tries of one user code, from any address (twice the per-client rule): guessing from many addresses is limited too. */
  get deviceCode(): RateRule {
    return { name: "device-code", limit: 2 * num("RATE_LIMIT_DEVICE_CODE_PER_MIN", 10), windowMs: 60_000 };
  },
  /** Sign-in links sent to one address: each is an e-mail to a person who may not have asked for it. */
  get signInEmail(): RateRule {
    return { name: "sign-in-email", limit: 5, windowMs: 10 * 60_000 };
  },
};

interface Window {
  /** Hits counted by this process in the window. */
  count: number;
  /** Of those, not yet shared with the other instances. */
  pending: number;
  /** Hits the other instances counted, as of the last sync. */
  remote: number;
  resetAt: number;
}

export interface SharedCount {
  key: string;
  increment: number;
  resetAt: number;
}

export class RateLimiter {
  private windows = new Map<string, Window>();
  private nextSweep = 0;

  /** Counts a hit; throws a 429 problem with Retry-After when the window is full. */
  hit(rule: RateRule, id: string, now = Date.now()): void {
    if (now >= this.nextSweep) this.sweep(now);
    const start = Math.floor(now / rule.windowMs) * rule.windowMs;
    const key = `${rule.name}:${start}:${id}`;
    let w = this.windows.get(key);
    if (!w) {
      w = { count: 0, pending: 0, remote: 0, resetAt: start + rule.windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    w.pending++;
    if (w.count + w.remote > rule.limit) {
      const retryAfter = Math.max(1, Math.ceil((w.resetAt - now) / 1000));
      throw new AppError(
        "rate_limited",
        429,
        `Too many requests (${rule.limit} per ${rule.windowMs / 1000} s for ${rule.name}). Retry in ${retryAfter} s.`,
        {
          headers: { "Retry-After": String(retryAfter) },
        },
      );
    }
  }

  /**
   * Shares the pending counts through `store`, which adds each increment to the deployment-wide total of its key and
   * returns the new totals; what the others counted becomes part of this process's decisions.
   */
  async sync(store: (counts: SharedCount[]) => Promise<Map<string, number>>): Promise<number> {
    const batch: Array<{ key: string; w: Window; sent: number; counted: number }> = [];
    const now = Date.now();
    for (const [key, w] of this.windows) {
      // Open windows with nothing new are sent too (an increment of 0), to learn what the others counted.
      if (w.resetAt <= now) continue;
      batch.push({ key, w, sent: w.pending, counted: w.count });
      w.pending = 0;
    }
    if (!batch.length) return 0;
    try {
      const totals = await store(batch.map((b) => ({ key: b.key, increment: b.sent, resetAt: b.w.resetAt })));
      for (const b of batch) {
        const total = totals.get(b.key);
        if (total !== undefined) b.w.remote = Math.max(0, total - b.counted);
      }
    } catch (error) {
      for (const b of batch) b.w.pending += b.sent; // try again next time
      throw error;
    }
    return batch.length;
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    this.nextSweep = now + 10_000;
  }

  reset(): void {
    this.windows.clear();
  }
}

const KEY = Symbol.for("indie-license-market.rate-limiter");
const g = globalThis as unknown as Record<symbol, RateLimiter | undefined>;
export const rateLimiter = (): RateLimiter => (g[KEY] ??= new RateLimiter());

export function rateLimitsEnabled(): boolean {
  return liveSetting("RATE_LIMIT") !== "off";
}

/** Applies each (rule, id) pair; the first full window answers 429. */
export function enforce(pairs: Array<[RateRule, string]>): void {
  if (!rateLimitsEnabled()) return;
  const limiter = rateLimiter();
  for (const [rule, id] of pairs) limiter.hit(rule, id);
}

/** The header server.ts stamps with the client address before handing a request to Next (any incoming copy is replaced). */
export const CLIENT_ADDRESS_HEADER = "x-ilm-client-address";

/**
 * The client's address: the socket peer, or with TRUST_PROXY=<n> and the peer a trusted proxy (TRUST_PROXY_FROM) the
 * address X-Forwarded-For names behind at most n trusted proxies (lib/http/proxy.ts).
 */
export function clientAddress(socketAddress: string | undefined, forwardedFor: string | string[] | undefined): string {
  return resolveClient(socketAddress, forwardedFor).address;
}
