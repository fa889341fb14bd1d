import { param } from "./format";

/** Messages after a redirect (?notice=…, ?error=…). Only known codes are shown, so a crafted link cannot put words in our mouth. */
const NOTICES: Record<string, string> = {
  welcome: "Your developer profile is ready. Add your first product to start selling.",
  "product-created": "Product created as a draft: buyers cannot see it yet. Preview it, then publish it when it is ready.",
  "product-published": "Product published. Buyers and agents can find it.",
  "product-saved": "Changes saved.",
  "product-unlisted": "Product unlisted. It is hidden from the store, the API and agents; existing licenses keep working.",
  "product-relisted": "Product listed again. Buyers and agents can find it.",
  "profile-saved": "Profile saved.",
  "sale-emails-saved": "Sale e-mails saved.",
  "release-created": "Draft release created. Upload its files, then publish it.",
  "release-saved": "Release saved.",
  "release-published": "Release published: it is on the product page, and license holders entitled to it can download it and update to it.",
  "release-yanked": "Release yanked: it is no longer offered for download or as an update; licenses keep working.",
  "release-deleted": "Draft release deleted with its files.",
  "artifact-deleted": "File deleted from the draft.",
  "license-issued": "Complimentary license issued and e-mailed to the recipient.",
  "license-revoked": "License revoked. Apps using it will be refused at their next check.",
  "license-reinstated": "License reinstated. It works again on its machines.",
  "machine-released": "Machine released; the seat is free again.",
  "payout-connected": "Test payout account connected. You can publish paid listings; in test mode no money moves.",
  "payout-updated": "Payout account status read from Stripe.",
};

const ERRORS: Record<string, string> = {
  "not-activated": "That machine was already released.",
  "rate-limited": "Too many attempts in a short time. Wait a minute and try again.",
  failed: "That did not work. Please try again.",
  "payout-account-required": "A paid listing needs a ready payout account: connect one under Payouts first.",
  "seller-profile-incomplete": "A paid listing needs your refund policy and a support e-mail address or web page: add them under Profile first.",
  "product-not-ready": "This product is not ready to publish yet: what it still needs is listed on its page.",
  "seller-suspended": "Your seller account is suspended by the operator: you cannot publish listings.",
  "payout-unavailable": "Stripe could not be reached; nothing changed. Try again in a moment.",
  "payout-refused": "Stripe refused that request. Try again; if it keeps failing, contact the marketplace's operator.",
  "payouts-not-configured": "Payouts cannot be set up on this deployment: it has no payment provider.",
  "payout-onboarding-incomplete": "Finish Stripe's onboarding first; the Express dashboard opens once your details are in.",
};

export function Notice({ searchParams }: { searchParams: Record<string, string | string[] | undefined> }) {
  const notice = NOTICES[param(searchParams.notice)];
  const error = ERRORS[param(searchParams.error)];
  if (!notice && !error) return null;
  return (
    <div className="mb-6 space-y-3">
      {notice ? (
        <div
          role="status"
          id="dashboard-notice"
          className="flex items-start gap-3 rounded-xl border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm font-medium text-emerald-900"
        >
          <svg viewBox="0 0 20 20" aria-hidden="true" className="mt-0.5 size-4 shrink-0 fill-emerald-600">
            <path
              fillRule="evenodd"
              d="M10 18a8 8 0 1 0 0-16 8 8 0 0 0 0 16Zm3.86-9.86a.75.75 0 0 0-1.22-.88l-3.48 4.83-1.88-1.88a.75.75 0 1 0-1.06 1.06l2.5 2.5a.75.75 0 0 0 1.14-.09l4-5.54Z"
              clipRule="evenodd"
            />
          </svg>
          <p>{notice}</p>
        </div>
      ) : null}
      {error ? (
        <div role="alert" id="dashboard-error" className="rounded-xl border border-red-200 bg-red-50 px-4 py-3 text-sm font-medium text-red-900">
          {error}
        </div>
      ) : null}
    </div>
  );
}
