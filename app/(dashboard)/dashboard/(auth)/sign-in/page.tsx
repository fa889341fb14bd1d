import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentSeller } from "@/lib/auth/next-session";
import { PRICING, SELLER_SHARE_PERCENT } from "@/lib/pricing";
import { param } from "@/components/dashboard/format";
import { buttonPrimary, card, container, inputBase } from "@/components/ui/styles";

export const dynamic = "force-dynamic";
export const metadata: Metadata = {
  title: "Sign in to sell",
  description: "Sell your software on Indie License Market: machine-bound license keys, free trials, and buyers who arrive through AI agents.",
  robots: { index: false },
};

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * The sign-in route's refusal (?error=<code>, see app/auth/sign-in/route.ts). Only known codes show a message, and
 * it is ours: a crafted link cannot make this page say anything else (compare components/dashboard/notice.tsx).
 */
const ERRORS: Record<string, string> = {
  "invalid-email": "Please enter a valid e-mail address.",
  "rate-limited": "Too many sign-in links for this address; wait a few minutes.",
};
const errorMessage = (code: string): string | null => (Object.hasOwn(ERRORS, code) ? (ERRORS[code] ?? null) : null);

/** Where to go after signing in: only dashboard paths, or the operator's console (/admin answers 404 to non-operators). */
function nextPath(text: string): string | null {
  return /^\/(?:dashboard|admin)(?:[/?][A-Za-z0-9/_\-.?=&%]*)?$/.test(text) && text.length <= 300 ? text : null;
}

const POINTS = [
  [
    `Receive ${SELLER_SHARE_PERCENT} % of every sale`,
    `A ${PRICING.transaction_fee_percent} % fee on what the buyer pays and nothing else: no monthly plan, no fixed fee per order, and Stripe's processing fee comes out of the platform's share.`,
  ],
  [
    "License keys done properly",
    "Keys bound to machines, seat limits that hold under load, trials, revocation and signed receipts your app can check offline.",
  ],
  ["Buyers fix their own seats", "A new laptop never means a support ticket: buyers release old machines themselves, and you can too."],
  [
    "Sold to people and their agents",
    "Every product is in the store, the catalog API and the MCP tools, so AI agents can find and buy it for their users.",
  ],
] as const;

export default async function SellerSignInPage({ searchParams }: Props) {
  const query = await searchParams;
  const error = errorMessage(param(query.error));
  const next = nextPath(param(query.next));
  const seller = await currentSeller();
  if (seller) redirect(next ?? (seller.developer ? "/dashboard" : "/dashboard/welcome"));

  return (
    // On phones the form follows the heading directly; on wide screens it sits beside the pitch.
    <div className={`${container} grid gap-8 py-10 sm:py-16 lg:grid-cols-[minmax(0,1fr)_26rem] lg:grid-rows-[auto_1fr] lg:gap-x-16 lg:gap-y-8`}>
      <div className="max-w-xl">
        <p className="text-sm font-semibold text-indigo-700">For developers</p>
        <h1 className="mt-2 text-3xl font-semibold tracking-tight text-balance text-slate-900 sm:text-4xl">
          Sell your software. Keep the licensing simple.
        </h1>
        <p className="mt-4 text-lg text-pretty text-slate-600">
          Plugins, desktop apps, game assets and tools, licensed per machine — with a dashboard that tells you what sold and who bought it.
        </p>
      </div>

      <section aria-labelledby="sign-in-heading" className={`${card} p-6 sm:p-8 lg:col-start-2 lg:row-span-2 lg:row-start-1 lg:self-start`}>
        <h2 id="sign-in-heading" className="text-xl font-semibold text-slate-900">
          Sign in or start selling
        </h2>
        <p className="mt-2 text-sm text-slate-600">
          No password. We e-mail you a link that signs you in; it works once, for 15 minutes. New here? The same link sets up your seller account.
        </p>
        {error ? (
          <p id="sign-in-error" role="alert" className="mt-5 rounded-lg border border-red-200 bg-red-50 px-3 py-2.5 text-sm font-medium text-red-900">
            {error}
          </p>
        ) : null}
        <form method="post" action="/auth/sign-in" className="mt-5 space-y-4">
          <input type="hidden" name="purpose" value="seller" />
          {next ? <input type="hidden" name="next" value={next} /> : null}
          <div>
            <label htmlFor="seller-email" className="block text-sm font-medium text-slate-900">
              E-mail address
            </label>
            <input
              id="seller-email"
              name="email"
              type="email"
              required
              autoComplete="email"
              inputMode="email"
              maxLength={254}
              placeholder="you@yourstudio.com"
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? "sign-in-error" : undefined}
              className={`${inputBase} mt-1.5 ${error ? "border-red-600" : ""}`}
            />
          </div>
          <button type="submit" className={`${buttonPrimary} w-full`}>
            E-mail me a sign-in link
          </button>
        </form>
      </section>

      <ul aria-label="Why sell here" className="max-w-xl space-y-5">
        {POINTS.map(([title, text]) => (
          <li key={title} className="flex gap-3">
            <svg viewBox="0 0 20 20" aria-hidden="true" className="mt-0.5 size-5 shrink-0 fill-indigo-600">
              <path
                fillRule="evenodd"
                d="M10 18a8 8 0 1 0 0-16 8 8 0 0 0 0 16Zm3.86-9.86a.75.75 0 0 0-1.22-.88l-3.48 4.83-1.88-1.88a.75.75 0 1 0-1.06 1.06l2.5 2.5a.75.75 0 0 0 1.14-.09l4-5.54Z"
                clipRule="evenodd"
              />
            </svg>
            <div>
              <p className="font-semibold text-slate-900">{title}</p>
              <p className="mt-0.5 text-sm leading-6 text-slate-600">{text}</p>
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}
