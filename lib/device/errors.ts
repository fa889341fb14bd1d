import { AppError } from "../http/errors.ts";

/**
 * The token endpoint's refusals, as RFC 8628 names them (section 3.5): HTTP 400 problem documents whose `code` and
 * OAuth's own `error` member carry the same name, so an OAuth client and one of ours read the same answer.
 */
export type DeviceGrantError = "authorization_pending" | "slow_down" | "access_denied" | "expired_token" | "invalid_grant";

export function grantError(error: DeviceGrantError, detail: string, members: Record<string, string | number> = {}): AppError {
  return new AppError(error, 400, detail, { members: { error, ...members } });
}

/** The verification page's refusals for a request that can no longer be approved, bought for or denied. */
export const requestExpired = () => new AppError("device_code_expired", 410, "This code has expired. Start again from the app: it shows a new code.");
export const requestDenied = () => new AppError("device_request_denied", 409, "This request was denied; the app was told. Start again from the app.");
export const requestCompleted = () =>
  new AppError("device_request_completed", 409, "This request is already complete: the app has received its license.");
export const userCodeNotFound = () =>
  new AppError("device_code_not_found", 404, "No request has this code. Check the code the app shows (letters only, like WDJB-MJHT).");
