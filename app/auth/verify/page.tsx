import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { linkBoundHere, maskEmail } from "@/lib/auth/link-binding";
import { peekSignIn, SIGN_IN_TTL_MINUTES } from "@/lib/auth/sign-in";
import { CheckoutFrame } from "@/components/checkout/checkout-frame";
import { InfoIcon } from "@/components/checkout/icons";
import { StatusPanel } from "@/components/checkout/status-panel";
import { queryText } from "@/components/licenses/format";
import { buttonPrimary } from "@/components/ui/styles";

export const dynamic = "force-dynamic";
// The URL holds the token: no Referer carries it off this site (the same policy as the Referrer-Policy header that
// lib/http/security-headers.ts gives /auth/*). Not "no-referrer": older browsers would then send `Origin: null` with the
// button's own post, and lack the Fetch Metadata that lets /auth/verify/confirm tell it is ours.
export const metadata: Metadata = { title: "Confirm sign-in", robots: { index: false, follow: false }, referrer: "same-origin" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const WHERE = { seller: "your seller dashboard", buyer: "My licenses" } as const;

/**
 * The link in the sign-in e-mail. Opening it signs no one in (mail scanners and link previews open every link): it
 * names the account, warns when the link was asked for in another browser, and the button POSTs the token to
 * /auth/verify/confirm, which uses it up.
 */
export default async function ConfirmSignInPage({ searchParams }: Props) {
  const token = queryText((await searchParams).token, 100);
  const link = await peekSignIn(token);
  if (!link) redirect("/auth/check-email?invalid=1");
  const bound = linkBoundHere((await headers()).get("cookie"), token);
  const address = maskEmail(link.email);

  return (
    <CheckoutFrame>
      <StatusPanel tone="info" title={`Sign in to ${WHERE[link.kind]}`} testId="sign-in-confirm">
        <p>
          You are about to sign in as{" "}
          <strong data-testid="sign-in-as" className="font-semibold wrap-anywhere text-slate-900">
            {address}
          </strong>
          .
        </p>
        {bound ? null : (
          <div
            role="alert"
            id="sign-in-other-browser"
            className="flex gap-3 rounded-xl border border-amber-300 bg-amber-50 px-4 py-3.5 text-sm leading-6 text-amber-950"
          >
            <InfoIcon className="mt-0.5 size-5 shrink-0 text-amber-700" />
            <div>
              <p className="font-semibold">This link was requested from another browser or device.</p>
              <p>
                Continue only if you asked for it yourself. A link someone else sent you signs you in to their account, and whatever you do there is
                theirs.
              </p>
            </div>
          </div>
        )}
        <form method="post" action="/auth/verify/confirm" className="pt-2">
          <input type="hidden" name="token" value={token} />
          <button type="submit" className={`${buttonPrimary} w-full py-3 text-base sm:w-auto`}>
            Sign in as {address}
          </button>
        </form>
        <p className="text-sm text-slate-600">
          Not you, or did not ask for this? Close this page: nothing happens, and the link expires by itself within {SIGN_IN_TTL_MINUTES} minutes.
        </p>
      </StatusPanel>
    </CheckoutFrame>
  );
}
