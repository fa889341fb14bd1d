import { formatPrice, minorDigits } from "@/lib/pricing";

/** Why a typed amount was refused; each comes with a message for the person who typed it. */
type MoneyRefusal = "empty" | "not_a_number" | "ambiguous" | "too_many_decimals" | "negative" | "too_large";

export type ParsedMoney = { ok: true; minor: number; understood: string } | { ok: false; code: MoneyRefusal; message: string };

/**
 * Amounts of a billion major units or more are refused. Nothing sold or refunded here comes near it (a price is at
 * most 10,000.00), and even in a 3-decimal currency the largest accepted amount is 10^12 − 1 minor units, three
 * orders of magnitude under Number.MAX_SAFE_INTEGER: every accepted amount, and any sum of a few of them, is an exact
 * integer. It also caps the digits read before any conversion to a number.
 */
const MAX_INTEGER_DIGITS = 9;
/** Longer text is not an amount anyone typed; refused before any pattern runs. */
const MAX_LENGTH = 64;

// After NFKC, no-break and narrow no-break spaces (U+00A0, U+202F) and thin spaces are plain spaces.
const GROUP_ONLY = new Set([" ", "'", "\u2019"]);
const MINUS = /^[-\u2212\u2010\u2012\u2013]$/;
const SHAPE = /^(\D*?)\s*([\d.,' \u2019]*\d[\d.,' \u2019]*)?\s*(\D*?)$/u;

// The locales whose way of writing a currency's sign is accepted next to the amount (with the ISO code).
const SIGN_LOCALES = ["en-US", "en-GB", "en-IN", "en-CA", "en-AU", "de-DE", "de-CH", "fr-FR", "fr-CH", "es-ES", "it-IT", "nl-NL", "ja-JP", "pt-BR"];
const signsByCurrency = new Map<string, ReadonlySet<string>>();

/** Every way the sign of `code` is written by those locales ("€", "EUR"; "$", "US$", "$US", "USD"), lower-case. */
function signsOf(code: string): ReadonlySet<string> {
  let signs = signsByCurrency.get(code);
  if (signs) return signs;
  const found = new Set([code.toLowerCase()]);
  for (const locale of SIGN_LOCALES) {
    for (const currencyDisplay of ["symbol", "narrowSymbol"] as const) {
      const part = new Intl.NumberFormat(locale, { style: "currency", currency: code, currencyDisplay })
        .formatToParts(1)
        .find((p) => p.type === "currency");
      if (part) found.add(part.value.normalize("NFKC").trim().toLowerCase());
    }
  }
  signsByCurrency.set(code, (signs = found));
  return signs;
}

/** The decimal separator a locale writes, or null for a missing or malformed tag. */
function decimalOf(locale: string | undefined): string | null {
  if (!locale) return null;
  try {
    return new Intl.NumberFormat(locale).formatToParts(1.5).find((p) => p.type === "decimal")?.value ?? null;
  } catch {
    return null;
  }
}

/** The first tag of an Accept-Language header ("de-CH,de;q=0.9,en;q=0.8" → "de-CH"); undefined when there is none. */
export function firstLanguageTag(header: string | null | undefined): string | undefined {
  const tag = header?.split(",")[0]?.split(";")[0]?.trim();
  if (!tag || tag === "*") return undefined;
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

const refuse = (code: MoneyRefusal, message: string): ParsedMoney => ({ ok: false, code, message });

function example(digits: number): string {
  return digits === 0 ? "1234" : `19.${"9".padEnd(digits, "0")}`;
}

/**
 * Reads an amount a person typed, in `currency` (ISO 4217, any case), as integer minor units, exactly: the digits are
 * joined as text and converted once, never multiplied as a float. `understood` is `formatPrice` of the result, for
 * the confirmation to repeat.
 *
 * Accepted: digits with at most one decimal separator (`.` or `,`) and at most as many decimals as the currency has
 * (`minorDigits`: 2 for usd/eur/gbp, 0 for jpy, 3 for kwd/bhd); before it, optional group separators, all the same
 * character, among `.` `,` space (also U+00A0, U+202F) `'` `’`, in groups of three ("1,234,567") or the Indian way
 * ("12,34,567"); a leading decimal separator (".5"); and a sign or ISO code of this currency before or after ("€19,90",
 * "19.90 EUR", "US$5"; the signs Intl writes for it in common locales). Which separator is the decimal one: the last
 * `.` or `,` when both appear; a repeated one is a group separator ("1.234.567"); a single one after spaces or
 * apostrophes is decimal ("1 234,50"); a single one alone is decimal ("19,90", "1.5") except in the shape below.
 *
 * Refused: empty → `empty`; anything else, including malformed groups ("1,23,4", "12,34.56,7") and another
 * currency's sign ("$5" for EUR) → `not_a_number`; a minus sign → `negative`; more decimals than the currency has →
 * `too_many_decimals`; a billion major units or more → `too_large`; and `ambiguous`: exactly one `.` or `,`, between
 * one to three digits not starting with 0 and exactly three digits ("1,234", "999.000"), for a currency with
 * decimals, because it is a group separator to one person and a decimal one to another. For a currency without
 * decimals it can only be grouping ("1,234" JPY is 1234). With three digits and a leading zero ("0,234") or four or
 * more before it ("1234,567") it can only be decimal. In a 2-decimal currency one reading even has too many decimals,
 * but a person who wrote that shape may as well have slipped a digit: refusing costs one retype, guessing wrong
 * moves a thousand times the money. (In a 3-decimal currency the decimal reading is written "01.234".)
 *
 * The locale (the browser's, from `navigator.language` or the first Accept-Language tag) never changes what an input
 * means, and in particular does not resolve "1,234": a browser's language says little about how its user writes
 * numbers (shared machines, English interfaces chosen in Germany, amounts pasted from elsewhere), and a refund cannot
 * be taken back. It is used for one thing only: the rewrite the `ambiguous` message suggests uses the locale's
 * decimal separator ("1234,00" for de-DE, "1234.00" otherwise). Every other message and every result is the same in
 * every locale.
 */
export function parseMoney(text: string, currency: string, options: { locale?: string | undefined } = {}): ParsedMoney {
  const code = currency.toUpperCase();
  if (!/^[A-Z]{3}$/.test(code)) throw new TypeError(`Not an ISO 4217 currency code: ${currency}`);
  const digits = minorDigits(code);
  const s = text.normalize("NFKC").replace(/\s+/gu, " ").trim();
  if (s === "") return refuse("empty", "Enter an amount.");
  const plain = `Enter an amount such as ${example(digits)}${digits > 0 ? ` or ${example(digits).replace(".", ",")}` : ""}.`;
  if (s.length > MAX_LENGTH) return refuse("not_a_number", plain);

  const shape = SHAPE.exec(s);
  if (!shape?.[2]) return refuse("not_a_number", plain);
  // A minus sign at the outer edge of either affix, or right next to the number: "-€5", "€-5", "5 EUR-".
  const before = withoutMinus(shape[1] ?? "");
  const after = withoutMinus(shape[3] ?? "");
  const minuses = before.minuses + after.minuses;
  if (minuses > 1) return refuse("not_a_number", plain);
  const signs = signsOf(code);
  for (const { sign } of [before, after]) {
    if (sign === "" || signs.has(sign.toLowerCase())) continue;
    // Another currency's sign or code: say so, rather than reading dollars as euros.
    if (/\p{Sc}/u.test(sign) || /^[a-z]{3}$/i.test(sign))
      return refuse("not_a_number", `The amount is in ${code}, not ${sign}: enter it in ${code}.`);
    return refuse("not_a_number", plain);
  }

  const read = readNumber(shape[2].trim(), digits);
  if (minuses === 1 && read.kind !== "malformed") return refuse("negative", "Enter the amount without a minus sign.");
  if (read.kind === "malformed") return refuse("not_a_number", plain);
  if (read.kind === "ambiguous") {
    const whole = `${read.integer}${read.fraction}`;
    const big = formatPrice(Number(`${whole}${"0".repeat(digits)}`), code);
    // Written as formatPrice would, with the three decimals the currency may not have.
    const small = `${new Intl.NumberFormat("en-US", { style: "currency", currency: code, minimumFractionDigits: 3 }).format(`${read.integer}.${read.fraction}` as `${number}`)} ${code}`;
    const decimal = decimalOf(options.locale) === "," ? "," : ".";
    const rewrite =
      digits === 3
        ? `Write ${whole} for the first, 0${read.integer}${decimal}${read.fraction} for the second.`
        : `Write ${whole} or ${whole}${decimal}${"0".repeat(digits)}; ${code} has only ${digits} decimals.`;
    return refuse("ambiguous", `Did you mean ${big} or ${small}? ${rewrite}`);
  }
  if (read.fraction.length > digits) {
    return refuse(
      "too_many_decimals",
      digits === 0
        ? `${code} has no decimals: enter a whole amount, such as 1234.`
        : `${code} has ${digits} decimals at most, such as ${example(digits)}.`,
    );
  }
  const integer = read.integer.replace(/^0+(?=\d)/, "");
  if (integer.length > MAX_INTEGER_DIGITS)
    return refuse("too_large", `Enter an amount under ${formatPrice(10 ** MAX_INTEGER_DIGITS * 10 ** digits, code)}.`);
  const minor = Number(`${integer}${read.fraction.padEnd(digits, "0")}`);
  return { ok: true, minor, understood: formatPrice(minor, code) };
}

/** An affix without the minus signs at its ends, and how many there were. */
function withoutMinus(raw: string): { sign: string; minuses: number } {
  let sign = raw.trim();
  let minuses = 0;
  if (MINUS.test(sign.charAt(0))) {
    minuses++;
    sign = sign.slice(1).trim();
  }
  if (MINUS.test(sign.charAt(sign.length - 1))) {
    minuses++;
    sign = sign.slice(0, -1).trim();
  }
  return { sign, minuses };
}

type Read = { kind: "number"; integer: string; fraction: string } | { kind: "ambiguous"; integer: string; fraction: string } | { kind: "malformed" };

const MALFORMED: Read = { kind: "malformed" };

/** The digits of a number without its sign or currency: which separator is decimal, and whether the groups are well formed. */
function readNumber(body: string, digits: number): Read {
  const tokens = body.match(/\d+|\D/g) ?? [];
  if (tokens[0] === "." || tokens[0] === ",") return tokens.length === 2 ? { kind: "number", integer: "0", fraction: tokens[1] ?? "" } : MALFORMED;
  // Digit runs and single separators in turn, first and last a digit run.
  if (tokens.length % 2 === 0 || tokens.some((t, i) => /^\d/.test(t) !== (i % 2 === 0))) return MALFORMED;
  const separators = tokens.filter((_, i) => i % 2 === 1);
  if (separators.some((c) => !GROUP_ONLY.has(c) && c !== "." && c !== ",")) return MALFORMED;
  const dots = separators.filter((c) => c === ".").length;
  const commas = separators.filter((c) => c === ",").length;

  let decimalAt = -1; // where in `tokens` the decimal separator is, if any
  const last = tokens.length - 2;
  if (dots > 0 && commas > 0) {
    const sep = tokens[last];
    if ((sep === "." && dots === 1) || (sep === "," && commas === 1)) decimalAt = last;
    else return MALFORMED;
  } else if (dots + commas === 1) {
    const at = tokens.findIndex((t) => t === "." || t === ",");
    if (at !== last) return MALFORMED;
    const integer = tokens[at - 1] ?? "";
    const fraction = tokens[at + 1] ?? "";
    const couldGroup = separators.length === 1 && fraction.length === 3 && integer.length <= 3 && !integer.startsWith("0");
    if (!couldGroup) decimalAt = at;
    else if (digits > 0) return { kind: "ambiguous", integer, fraction };
  }

  const integerTokens = decimalAt === -1 ? tokens : tokens.slice(0, decimalAt);
  const groups = integerTokens.filter((_, i) => i % 2 === 0);
  if (new Set(integerTokens.filter((_, i) => i % 2 === 1)).size > 1) return MALFORMED;
  if (groups.length > 1 && !wellGrouped(groups)) return MALFORMED;
  return { kind: "number", integer: groups.join(""), fraction: decimalAt === -1 ? "" : (tokens[decimalAt + 1] ?? "") };
}

/** Groups of three ("1,234,567") or the Indian way: three last, twos before ("12,34,567"); the first never starts with 0. */
function wellGrouped(groups: string[]): boolean {
  const [first = "", ...rest] = groups;
  if (first.startsWith("0")) return false;
  const lastGroup = rest[rest.length - 1] ?? "";
  const middle = rest.slice(0, -1);
  const thousands = first.length <= 3 && rest.every((g) => g.length === 3);
  const indian = first.length <= 2 && lastGroup.length === 3 && middle.every((g) => g.length === 2);
  return thousands || indian;
}
