import type { AppError } from "@/lib/http/errors";

/**
 * The verification page's refusals, as codes in its URL and its own words for each: a crafted link can only pick one
 * of these sentences, never put text on the page.
 */
export const DEVICE_ERRORS = {
  not_found: "No request has this code. Check the code the app shows: eight letters, like WDJB-MJHT.",
  invalid_code: "That does not look like a code from the app: eight letters, like WDJB-MJHT.",
  expired: "This code has expired. Start again from the app: it shows a new code.",
  denied: "This request was denied, and the app was told. Start again from the app if that was a mistake.",
  completed: "This request is already complete: the app has received its license.",
  rate_limited: "Too many codes were tried from here. Wait a minute, then try again.",
  too_many_machines: "That license is already active on as many machines as it allows. Release one in My licenses, or pick another license.",
  license_unusable: "That license cannot be activated (it is revoked, refunded or expired). Pick another license, or buy one.",
  license_not_found: "That license is not one of yours for this product.",
  invalid_email: "Enter a valid e-mail address: the license key and the receipt go there.",
  not_signed_in: "Sign in again to use a license you have.",
  checkout_unavailable: "The checkout cannot be opened right now. Please try again in a moment.",
  failed: "That did not work. Please try again.",
} as const;
export type DeviceErrorCode = keyof typeof DEVICE_ERRORS;

export function deviceErrorText(code: string | undefined): string | null {
  return code && Object.hasOwn(DEVICE_ERRORS, code) ? DEVICE_ERRORS[code as DeviceErrorCode] : null;
}

/** The code the page shows for an operation's refusal. */
export function deviceRefusal(problem: AppError): DeviceErrorCode {
  switch (problem.code) {
    case "device_code_not_found":
      return "not_found";
    case "device_code_expired":
      return "expired";
    case "device_request_denied":
      return "denied";
    case "device_request_completed":
      return "completed";
    case "rate_limited":
      return "rate_limited";
    case "license_not_found":
      return "license_not_found";
    case "unauthorized":
      return "not_signed_in";
    case "activation_refused":
      return problem.extra.members?.activation_code === "TOO_MANY_MACHINES" ? "too_many_machines" : "license_unusable";
    case "checkout_not_configured":
    case "payment_provider_unavailable":
      return "checkout_unavailable";
    default:
      if (problem.status === 400 && problem.extra.errors?.some((e) => e.name === "buyer_email")) return "invalid_email";
      if (problem.status === 400 && problem.extra.errors?.some((e) => e.name === "user_code")) return "invalid_code";
      return "failed";
  }
}

/** The page for a code, with an outcome to show. */
export function devicePagePath(userCode: string, outcome: { error?: DeviceErrorCode; done?: "approved" | "denied" } = {}): string {
  const q = new URLSearchParams();
  // Only a code-shaped value goes back into the URL.
  if (/^[A-Za-z]{4}[-\s]?[A-Za-z]{4}$/.test(userCode.trim())) q.set("user_code", userCode.trim().toUpperCase());
  if (outcome.error) q.set("error", outcome.error);
  if (outcome.done) q.set("done", outcome.done);
  const query = q.toString();
  return query ? `/device?${query}` : "/device";
}
