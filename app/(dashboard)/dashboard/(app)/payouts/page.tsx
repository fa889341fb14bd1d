import type { Metadata } from "next";
import Link from "next/link";
import { getPayoutAccount, type PayoutAccountOut, type PayoutStatus } from "@/lib/payouts/payout-account";
import { PRICING } from "@/lib/pricing";
import { Notice } from "@/components/dashboard/notice";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { buttonPrimary, buttonSecondary, card, inputBase, textLink } from "@/components/ui/styles";
import { pageSeller } from "../../../_lib/seller";
import { connectPayoutAction, openPayoutDashboardAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Payouts", robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const STATUS: Record<PayoutStatus, { label: string; tone: string; dot: string }> = {
  ready: { label: "Ready", tone: "bg-emerald-50 text-emerald-800 ring-emerald-600/30", dot: "fill-emerald-600" },
  action_needed: { label: "Action needed", tone: "bg-amber-50 text-amber-900 ring-amber-600/30", dot: "fill-amber-500" },
  in_review: { label: "In review", tone: "bg-indigo-50 text-indigo-800 ring-indigo-600/30", dot: "fill-indigo-600" },
  not_connected: { label: "Not connected", tone: "bg-slate-100 text-slate-700 ring-slate-500/30", dot: "fill-slate-500" },
};

/** Countries Stripe Express onboards most often; anything else: leave it to the platform's default or use the API. */
const COUNTRIES: Array<[string, string]> = [
  ["US", "United States"],
  ["GB", "United Kingdom"],
  ["DE", "Germany"],
  ["FR", "France"],
  ["NL", "Netherlands"],
  ["IE", "Ireland"],
  ["ES", "Spain"],
  ["IT", "Italy"],
  ["SE", "Sweden"],
  ["CA", "Canada"],
  ["AU", "Australia"],
];

function StatusBadge({ status }: { status: PayoutStatus }) {
  const s = STATUS[status];
  return (
    <span
      id="payout-status"
      className={`inline-flex items-center gap-1.5 rounded-full px-2.5 py-1 text-sm font-medium whitespace-nowrap ring-1 ring-inset ${s.tone}`}
    >
      <svg viewBox="0 0 6 6" aria-hidden="true" className={`size-1.5 ${s.dot}`}>
        <circle cx="3" cy="3" r="3" />
      </svg>
      {s.label}
    </span>
  );
}

function summary(a: PayoutAccountOut): string {
  if (a.connect_with === null && a.provider === null) {
    return "Payouts cannot be set up on this deployment: it has no payment provider. The operator enables Stripe Connect by setting STRIPE_SECRET_KEY.";
  }
  switch (a.status) {
    case "ready":
      return a.provider === "test"
        ? "The built-in test payout account is connected. You can publish paid listings; in test mode no money moves."
        : "Your Stripe account can take payments and pays out to your bank. You can publish paid listings.";
    case "in_review":
      return "Stripe has your details and is checking them. Paid listings can be published once it enables payments and payouts.";
    case "action_needed":
      return "Paid listings cannot be published or sold until this is done:";
    default:
      return a.connect_with === "test"
        ? "Connect the test payout account to publish and sell listings."
        : "Connect a Stripe account to publish and sell listings; Stripe pays the money from your sales to your bank.";
  }
}

export default async function PayoutsPage({ searchParams }: Props) {
  const { developer } = await pageSeller();
  const account = await getPayoutAccount(developer.id);
  const fee = PRICING.transaction_fee_percent;
  const stripe = account.connect_with === "stripe";
  const canConnect = stripe
    ? account.status !== "ready" || account.provider !== "stripe"
    : account.connect_with === "test" && account.provider === null;
  const newStripeAccount = stripe && account.provider !== "stripe";
  const connectLabel = !stripe ? "Connect the test payout account" : newStripeAccount ? "Connect with Stripe" : "Continue onboarding with Stripe";

  return (
    <>
      <Notice searchParams={await searchParams} />
      <PageHeader title="Payouts" description="Where the money from your sales goes, and whether your account is ready to take it." />

      <div className="mt-8 grid gap-8 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)] lg:items-start">
        <Section id="payout-account-heading" title="Your payout account" className={`${card} p-5 sm:p-6`}>
          <div className="flex flex-wrap items-center gap-3">
            <StatusBadge status={account.status} />
            {account.provider ? (
              <span className="text-sm text-slate-600">
                {account.provider === "stripe" ? "Stripe Express account" : "Built-in test payout account"}{" "}
                <span className="font-mono text-xs text-slate-500">{account.account_id}</span>
              </span>
            ) : null}
          </div>
          <p className="mt-4 text-sm text-slate-700">{summary(account)}</p>
          {account.requirements_due_text.length > 0 ? (
            <ul aria-label="Still needed" id="payout-requirements" className="mt-3 list-disc space-y-1 pl-5 text-sm text-slate-800">
              {account.requirements_due_text.map((r) => (
                <li key={r}>{r}</li>
              ))}
            </ul>
          ) : null}
          {account.provider === "stripe" ? (
            <dl className="mt-5 grid grid-cols-3 gap-3 text-center text-sm">
              {(
                [
                  ["Payments", account.charges_enabled],
                  ["Payouts", account.payouts_enabled],
                  ["Details", account.details_submitted],
                ] as const
              ).map(([label, on]) => (
                <div key={label} className="rounded-xl bg-slate-50 p-3">
                  <dt className="text-xs font-medium text-slate-600">{label}</dt>
                  <dd className={`mt-1 font-semibold ${on ? "text-emerald-700" : "text-slate-700"}`}>
                    {label === "Details" ? (on ? "Submitted" : "Not yet") : on ? "Enabled" : "Not yet"}
                  </dd>
                </div>
              ))}
            </dl>
          ) : null}

          <div className="mt-6 flex flex-wrap items-end gap-3">
            {canConnect ? (
              <form action={connectPayoutAction} className="flex flex-wrap items-end gap-3">
                {newStripeAccount ? (
                  <div>
                    <label htmlFor="payout-country" className="block text-sm font-medium text-slate-800">
                      Country of your business
                    </label>
                    <select id="payout-country" name="country" defaultValue="" className={`${inputBase} mt-1 w-56`}>
                      <option value="">The platform&apos;s country</option>
                      {COUNTRIES.map(([code, name]) => (
                        <option key={code} value={code}>
                          {name}
                        </option>
                      ))}
                    </select>
                  </div>
                ) : null}
                <button type="submit" className={buttonPrimary}>
                  {connectLabel}
                </button>
              </form>
            ) : null}
            {stripe && account.provider === "stripe" && account.details_submitted ? (
              <form action={openPayoutDashboardAction}>
                <button type="submit" className={buttonSecondary}>
                  Open Stripe Express dashboard
                </button>
              </form>
            ) : null}
          </div>
          {stripe && canConnect ? (
            <p className="mt-3 text-xs text-slate-600">
              You give your identity and bank details to Stripe on Stripe&apos;s own pages; this marketplace never sees them.
            </p>
          ) : null}
        </Section>

        <Section id="money-flow-heading" title="Where the money goes" className={`${card} p-5 sm:p-6`}>
          {account.connect_with === "test" ? (
            <p className="text-sm text-slate-700">
              This deployment runs in <strong>test mode</strong>: buyers press a Pay button and no money moves. The test payout account stands in for
              Stripe so you can publish and sell end to end.
            </p>
          ) : null}
          {!stripe ? <p className="mt-3 text-sm text-slate-700">Where the operator enables Stripe Connect, a sale works like this:</p> : null}
          <ol className="mt-3 space-y-2 text-sm text-slate-700">
            <li>
              <span className="font-semibold text-slate-900">1. The buyer pays</span> on Stripe&apos;s checkout page, in your listing&apos;s currency.
            </li>
            <li>
              <span className="font-semibold text-slate-900">2. Stripe sends the payment to your Stripe account</span> (a destination charge), less
              the platform&apos;s {fee} % fee, which the platform keeps. Stripe&apos;s own processing fees are charged to the platform, not to you.
            </li>
            <li>
              <span className="font-semibold text-slate-900">3. Stripe pays out to your bank</span> on your payout schedule; the Express dashboard
              shows each payout, and your{" "}
              <Link href="/dashboard/sales" className={textLink}>
                sales ledger
              </Link>{" "}
              records them as Stripe reports them.
            </li>
          </ol>
          <p className="mt-4 text-sm text-slate-600">
            A refund is taken back from your Stripe account (the transfer is reversed) and the platform returns its fee on the refunded part. A
            chargeback counts against your earnings in the ledger unless it is won.
          </p>
        </Section>
      </div>
    </>
  );
}
