/**
 * The card numbers the built-in test vault (POST /api/acp/agentic_commerce/delegate_payment) accepts, and what paying
 * with each does at complete. They are the well-known test numbers payment processors publish (Stripe's among them),
 * so no real card is ever vaulted here: any other number, even a valid one, is refused with `invalid_card`.
 */
export interface TestCard {
  brand: "visa" | "mastercard" | "amex";
  /** What completing a checkout with a token of this card does. */
  outcome: "succeeds" | "declined";
  /** For a declined card: the reason given with 402 `payment_declined`. */
  declineReason?: string;
}

export const TEST_CARDS: Readonly<Record<string, TestCard>> = {
  "4242424242424242": { brand: "visa", outcome: "succeeds" },
  "4000056655665556": { brand: "visa", outcome: "succeeds" },
  "5555555555554444": { brand: "mastercard", outcome: "succeeds" },
  "378282246310005": { brand: "amex", outcome: "succeeds" },
  "4000000000000002": { brand: "visa", outcome: "declined", declineReason: "the card was declined (generic decline)" },
  "4000000000009995": { brand: "visa", outcome: "declined", declineReason: "the card has insufficient funds" },
};

/** The Luhn (mod 10) check every card number passes; a typo in one digit fails it. */
export function luhnValid(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** One line per accepted number, for the operation's description and the docs. */
export function testCardList(): string {
  return Object.entries(TEST_CARDS)
    .map(([n, c]) => `${n} (${c.brand}): ${c.outcome === "succeeds" ? "pays" : `declined at complete — ${c.declineReason ?? "declined"}`}`)
    .join("; ");
}
