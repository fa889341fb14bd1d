import type { Metadata } from "next";
import Link from "next/link";
import { currentBuyer } from "@/lib/auth/next-session";
import { transferByToken } from "@/lib/transfers/transfer-license";
import { queryText } from "@/components/licenses/format";
import { BuyerSignInForm } from "@/components/licenses/sign-in-form";
import { buttonPrimary, container, textLink } from "@/components/ui/styles";
import { acceptTransfer } from "../transfer-actions";

export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: "Accept a license",
  description: "Accept a license another buyer transferred to you.",
  robots: { index: false },
};

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** The page an offer's e-mailed link opens: who offers which license, and Accept for the address it names. */
export default async function AcceptTransferPage({ searchParams }: Props) {
  const token = queryText((await searchParams).token, 100);
  const [offer, buyer] = await Promise.all([transferByToken(token), currentBuyer()]);
  // eslint-disable-next-line react-hooks/purity -- a server component renders once per request: this is the request time
  const open = offer !== null && offer.status === "pending" && offer.expiresAt.getTime() > Date.now();
  return (
    <div className={`${container} py-10 sm:py-14`}>
      <div className="mx-auto w-full max-w-2xl">
        <h1 className="text-3xl font-semibold tracking-tight text-balance text-slate-900">Accept a license</h1>
        {!offer || !open ? (
          <p className="mt-4 text-base text-slate-700" role="status">
            This link no longer works: it was accepted, cancelled or has expired. Ask the holder to send a new one.
          </p>
        ) : (
          <>
            <p className="mt-4 text-base leading-7 text-slate-700">
              <span className="font-medium wrap-anywhere text-slate-900">{offer.fromEmail}</span> offers you their license for{" "}
              <span className="font-medium text-slate-900">{offer.productName}</span> by {offer.sellerName}, for{" "}
              <span className="font-medium wrap-anywhere">{offer.toEmail}</span>, until {offer.expiresAt.toISOString().slice(0, 10)}. Accepted, it
              gets a new key that only you hold.
            </p>
            {buyer && buyer.email === offer.toEmail ? (
              <form action={acceptTransfer} className="mt-6">
                <input type="hidden" name="token" value={token} />
                <button type="submit" className={buttonPrimary}>
                  Accept the license
                </button>
              </form>
            ) : (
              <div className="mt-6 space-y-4">
                <p className="text-sm text-slate-700">
                  {buyer ? `You are signed in as ${buyer.email}. ` : ""}Sign in with {offer.toEmail}: the sign-in link we e-mail brings you back here
                  to accept. The offer is also on{" "}
                  <Link href="/licenses" className={textLink}>
                    My licenses
                  </Link>{" "}
                  once you are signed in.
                </p>
                <BuyerSignInForm error={null} next={`/licenses/transfer?token=${encodeURIComponent(token)}`} />
              </div>
            )}
          </>
        )}
      </div>
    </div>
  );
}
