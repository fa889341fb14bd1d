import { AppError } from "../http/errors.ts";
import { enforce, RULES } from "../http/rate-limit.ts";

/**
 * The one budget for trying coupon codes, whatever asks: the quote, the hosted checkout (REST, MCP, the Buy form) and
 * ACP's create and update (REST and MCP). Each distinct code a call carries is one try (ten codes in one ACP update
 * are ten), counted before any code is looked up, against every scope given (RULES.couponTry, 30 a minute by
 * default); once a scope's budget is spent the call is refused with 429 `rate_limited` and Retry-After, and no code
 * is looked up. With the refusals of findUsableCoupon all alike, guessing codes is bounded by this budget alone.
 */
export function spendCouponTries(codes: readonly string[] | undefined, scopes: readonly string[]): void {
  const distinct = new Set((codes ?? []).map((c) => c.trim().toUpperCase()).filter((c) => c.length > 0));
  if (distinct.size === 0) return;
  const rule = RULES.couponTry;
  try {
    enforce(scopes.flatMap((scope) => Array.from(distinct, () => [rule, scope] as [typeof rule, string])));
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== "rate_limited") throw error;
    const retry = error.extra.headers?.["Retry-After"] ?? "60";
    throw new AppError(
      "rate_limited",
      429,
      `Too many coupon codes tried (${rule.limit} a minute from one client, one agent platform or one checkout session); no code was looked up. Retry in ${retry} s.`,
      { headers: { "Retry-After": retry } },
    );
  }
}

/**
 * Whose budget a call spends: the agent platform for a keyed agent, otherwise the client's address (a person's
 * browser, an app, an anonymous agent: one budget per address across quote, checkout and ACP).
 */
export function couponTryScope(caller: { client: string; agent?: { platformId: string | null } | undefined }): string {
  return caller.agent?.platformId ? `agent:${caller.agent.platformId}` : `client:${caller.client}`;
}

/** The budget of one ACP checkout session, on top of its caller's. */
export const acpSessionScope = (checkoutSessionId: string): string => `acp-session:${checkoutSessionId}`;
