/**
 * What "My licenses" says after a redirect (?notice=<code>, ?error=<code>). The URL carries only a code and the
 * words are ours: a crafted link cannot make this page say anything we did not write.
 */
const NOTICES = {
  released: { tone: "success", text: "Machine released. Its seat is free; activate the app on your new computer." },
  release_not_found: { tone: "error", text: "That machine is not on any of your licenses any more — it may have been released already." },
  /** Set by the review form (./review-actions.ts). */
  review_posted: { tone: "success", text: "Thank you: your review is on the product page, marked as a verified purchase." },
  review_saved: { tone: "success", text: "Your review is updated on the product page." },
  /** Set by the subscription forms (./actions.ts). */
  subscription_canceled: {
    tone: "success",
    text: "Subscription canceled: nothing more will be charged, and the license works until the end of the period you paid for.",
  },
  subscription_resumed: { tone: "success", text: "Subscription kept: it renews at the end of the period as before." },
  subscription_card_changed: { tone: "success", text: "Card changed. A failed renewal is charged again at once." },
  subscription_unchanged: { tone: "error", text: "That subscription could not be changed: it may have ended or changed meanwhile." },
  plan_changed: { tone: "success", text: "Plan changed. The receipt is in your inbox." },
  plan_unchanged: { tone: "error", text: "That is the plan you are on already." },
  plan_invalid: { tone: "error", text: "Choose a monthly or yearly plan and a number of seats from 1 to 100." },
  plan_amount_changed: { tone: "error", text: "The amount changed since you looked (time passed, or the plan changed): look at it again." },
  plan_payment_declined: { tone: "error", text: "The card was declined, so the plan is unchanged. Change the card and try again." },
  /** Set by the invoice and transfer forms (./transfer-actions.ts). */
  billing_saved: { tone: "success", text: "Billing details saved. The invoice shows them now; its number is unchanged." },
  transfer_sent: { tone: "success", text: "Transfer offered: we e-mailed the link to accept it. It works for 7 days, until accepted or cancelled." },
  transfer_cancelled: { tone: "success", text: "Transfer cancelled: the link no longer works." },
  transfer_accepted: { tone: "success", text: "The license is yours now, with a new key. Activate it on your machines." },
} as const;
export type NoticeCode = keyof typeof NOTICES;
export type Notice = (typeof NOTICES)[NoticeCode];

const ERRORS = {
  /** Set by the release action (./actions.ts). */
  session_ended: "Your session has ended. Sign in again to release a machine.",
  /** Set by the release action when the buyer's limit was reached. */
  too_many_attempts: "Too many attempts in a short time. Wait a minute and try again.",
  /** Set by the buyer sign-in form's route (/auth/sign-in, as invalid-email and rate-limited). */
  invalid_email: "Please enter a valid e-mail address.",
  rate_limited: "Too many sign-in links for this address; wait a few minutes.",
  /** Set by the upgrade form (./upgrade-actions.ts). */
  upgrade_amount_changed: "The price of that upgrade changed since you looked; check the new amount before paying.",
  upgrade_unavailable: "That upgrade can no longer be bought for this license (it may have been upgraded already, or the offer ended).",
  /** Set by the invoice and transfer forms (./transfer-actions.ts). */
  form_invalid: "Check the form: a field is missing or not valid.",
  transfer_not_allowed: "The seller does not allow transfers of this product's licenses.",
  transfer_license_ended: "This license cannot be transferred: it was refunded, disputed, revoked or has expired.",
  transfer_license_kind: "Trials and licenses that follow a subscription or an updates plan cannot be transferred.",
  transfer_to_self: "The license is already yours: enter another address.",
  transfer_other_recipient: "This transfer is offered to another address. Sign in with the address the e-mail was sent to.",
  transfer_gone: "This transfer link no longer works: it was accepted, cancelled or has expired.",
} as const;
export type ErrorCode = keyof typeof ERRORS;

/** Anything else in ?error=: something went wrong, in our words. */
const GENERIC_ERROR = "That did not work. Please try again.";

const own = <T extends object>(table: T, key: string): key is Extract<keyof T, string> => Object.hasOwn(table, key);

/** ?notice=: a known code's message, else nothing. */
export function noticeFor(code: string): Notice | null {
  return own(NOTICES, code) ? NOTICES[code] : null;
}

/** ?error=: a known code's message (kebab-case accepted), nothing when absent, the generic message otherwise. */
export function errorFor(code: string): string | null {
  if (!code) return null;
  const key = code.replace(/-/g, "_");
  return own(ERRORS, key) ? ERRORS[key] : GENERIC_ERROR;
}
