import { env } from "../env.ts";
import { blankControlCharacters } from "../http/input.ts";
import { paths } from "../urls.ts";

/**
 * The Buy form's e-mail address after a refusal. /checkout/start sends the buyer back to the product page with a
 * code in the URL; the address they typed must not go there too (URLs end up in history, logs and Referer headers),
 * so it travels in a cookie only that product page receives (path-scoped, HttpOnly, SameSite=Strict) and that
 * expires within a minute. Works without JavaScript: the page reads it server-side only when the URL says the form
 * was refused.
 */
export const BUY_REFILL_COOKIE = "ilm_buy_email";
const MAX_AGE_SECONDS = 60;
const EMAIL_MAX = 254;

/** The Set-Cookie value carrying `email` back to the product's page. */
export function buyRefillCookie(productId: string, email: string): string {
  const secure = env().BASE_URL.startsWith("https://") ? "; Secure" : "";
  const path = paths.product(productId);
  return `${BUY_REFILL_COOKIE}=${encodeURIComponent(email.slice(0, EMAIL_MAX))}; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=${MAX_AGE_SECONDS}${secure}`;
}

/** The address from the cookie's value as plain, bounded text; "" when absent. */
export function readBuyRefill(value: string | undefined): string {
  if (!value) return "";
  // Some cookie readers decode the value already; a second decode of plain text is harmless unless it has a stray "%".
  let text = value;
  try {
    text = decodeURIComponent(value);
  } catch {
    // Already decoded.
  }
  return blankControlCharacters(text).trim().slice(0, EMAIL_MAX);
}
