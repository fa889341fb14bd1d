import type { Metadata } from "next";
import Link from "next/link";
import { currentBuyer } from "@/lib/auth/next-session";
import { buyerLicenses } from "@/lib/buyer/licenses";
import { downloadsForLicense, productsWithReleases } from "@/lib/marketplace/license-downloads";
import { queryText } from "@/components/licenses/format";
import { LicenseCard } from "@/components/licenses/license-card";
import { Message } from "@/components/licenses/message";
import { BuyerSignInForm } from "@/components/licenses/sign-in-form";
import { plural } from "@/components/store/labels";
import { buttonPrimary, buttonSecondary, container, inputBase, textLink } from "@/components/ui/styles";
import { UndoProvider } from "@/components/licenses/confirm-undo";
import {
  cancelSubscription,
  changePlan,
  openBillingPortal,
  previewPlanChange,
  releaseMachine,
  releaseMachineNow,
  resumeSubscription,
  restoreMachineNow,
  setTestCard,
} from "./actions";
import { planChangeSchema, previewPlanChange as quotePlanChange, type PlanChangeQuote } from "@/lib/subscriptions/change-plan";
import { SubscriptionPanel } from "@/components/licenses/subscription-panel";
import { listSubscriptions, type SubscriptionView } from "@/lib/subscriptions/manage";
import { listInvoices } from "@/lib/receipts/invoices";
import { buyerReviewStates } from "@/lib/reviews/buyer";
import { LicenseReview } from "@/components/licenses/license-review";
import { saveReview } from "./review-actions";
import { upgradesForBuyer } from "@/lib/upgrades/offers-for-buyers";
import { LicenseUpgrades } from "@/components/upgrades/license-upgrades";
import { buyUpgrade } from "./upgrade-actions";
import { errorFor, noticeFor, type Notice } from "./messages";
import { buyerTransfers, licenseExtras } from "@/lib/transfers/transfer-license";
import { LicenseExtras, TransferOffers } from "@/components/licenses/license-extras";
import { acceptTransfer, cancelTransfer, saveBillingDetails, startTransfer } from "./transfer-actions";

export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: "My licenses",
  description:
    "Your license keys, downloads and receipts — and the machines each key is activated on, which you can release yourself after a reinstall.",
  robots: { index: false },
};

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function MyLicensesPage({ searchParams }: Props) {
  const query = await searchParams;
  const buyer = await currentBuyer();
  // Codes only, in our words (./messages.ts): a crafted link cannot put text on this page.
  const error = errorFor(queryText(query.error, 100));
  const notice = noticeFor(queryText(query.notice, 40));

  return (
    <div className={`${container} py-10 sm:py-14`}>
      <div className="mx-auto w-full max-w-4xl">
        <p className="text-sm font-medium text-indigo-700">Your purchases</p>
        <h1 className="mt-2 text-3xl font-semibold tracking-tight text-balance text-slate-900 sm:text-4xl">My licenses</h1>
        {buyer ? (
          <SignedIn email={buyer.email} error={error} notice={notice} plan={planQuery(query)} search={queryText(query.q, 100)} />
        ) : (
          <SignedOut error={error} />
        )}
      </div>
    </div>
  );
}

function SignedOut({ error }: { error: string | null }) {
  return (
    <div className="mt-8 grid gap-8 md:grid-cols-[minmax(0,1fr)_minmax(0,0.9fr)] md:items-start">
      <BuyerSignInForm error={error} />
      <section aria-labelledby="why-heading" className="text-sm leading-6 text-slate-700">
        <h2 id="why-heading" className="text-base font-semibold text-slate-900">
          What you can do here
        </h2>
        <ul className="mt-3 list-disc space-y-2 pl-5 marker:text-slate-400">
          <li>See every license key bought with your address, copy it, and download the app again.</li>
          <li>
            <strong className="font-semibold text-slate-900">Release a machine yourself</strong> after a reinstall or a new computer — the seat is
            free at once, no support e-mail needed.
          </li>
          <li>Open the signed receipt of each license.</li>
        </ul>
      </section>
    </div>
  );
}

/** ?plan=<subscription>&interval=&quantity=: a plan change the buyer previewed, parsed like the operation's input. */
function planQuery(query: Record<string, string | string[] | undefined>) {
  const id = queryText(query.plan, 64);
  if (!id) return null;
  const quantity = queryText(query.quantity, 3);
  const parsed = planChangeSchema.safeParse({
    ...(queryText(query.interval, 5) ? { interval: queryText(query.interval, 5) } : {}),
    ...(quantity ? { quantity: Number(quantity) } : {}),
  });
  return parsed.success ? { id, change: parsed.data } : null;
}

async function SignedIn({
  email,
  error,
  notice,
  plan,
  search,
}: {
  email: string;
  error: string | null;
  notice: Notice | null;
  plan: ReturnType<typeof planQuery>;
  search: string;
}) {
  const all = await buyerLicenses(email);
  // The search: product name, seller, or the end of the key (case-insensitive).
  const needle = search.trim().toLowerCase();
  const licenses = needle
    ? all.filter(
        (l) =>
          l.product.name.toLowerCase().includes(needle) ||
          l.product.developer.name.toLowerCase().includes(needle) ||
          l.key.toLowerCase().endsWith(needle.replace(/^-+/, "")),
      )
    : all;
  const extras = await licenseExtras(
    email,
    licenses.map((l) => l.id),
  );
  const transfers = await buyerTransfers(email);
  // Products with releases list the files each license is entitled to; the others keep their single download link.
  const withReleases = await productsWithReleases(licenses.map((l) => l.product.id));
  const downloads = await Promise.all(licenses.map((l) => downloadsForLicense({ id: l.id, productId: l.product.id }, withReleases)));
  const reviews = await buyerReviewStates(email);
  const subscriptions = new Map<string, SubscriptionView>();
  for (const s of await listSubscriptions({ buyerEmail: email }, { limit: 200 })) if (s.license_id) subscriptions.set(s.license_id, s);
  // The previewed change, priced again now: the buyer confirms the amount as it stands.
  let pending: PlanChangeQuote | null = null;
  if (plan) pending = await quotePlanChange({ buyerEmail: email }, plan.id, plan.change).catch(() => null);
  const invoices = await listInvoices(email);
  // The upgrades each license may buy now, priced for it.
  const upgrades = await upgradesForBuyer(email);
  const panelFor = (licenseId: string) => {
    const s = subscriptions.get(licenseId);
    return s ? (
      <SubscriptionPanel
        subscription={s}
        cancel={cancelSubscription}
        resume={resumeSubscription}
        setCard={setTestCard}
        previewPlan={previewPlanChange}
        changePlan={changePlan}
        openPortal={openBillingPortal}
        pending={pending && pending.subscription_id === s.id ? pending : null}
        invoices={invoices.filter((i) => i.subscriptionId === s.id)}
      />
    ) : null;
  };
  // eslint-disable-next-line react-hooks/purity -- a server component renders once per request: this is the request time
  const now = Date.now();
  const licenseEntry = (license: (typeof licenses)[number], i: number) => {
    return (
      <>
        <LicenseCard
          license={license}
          releaseAction={releaseMachine}
          releaseNow={releaseMachineNow}
          restoreNow={restoreMachineNow}
          now={now}
          downloads={downloads[i] ?? null}
          subscription={panelFor(license.id)}
          review={<LicenseReview state={reviews.get(license.id)} licenseId={license.id} productName={license.product.name} action={saveReview} />}
        />
        <LicenseUpgrades licenseId={license.id} productName={license.product.name} upgrades={upgrades.get(license.id)} action={buyUpgrade} />
        <LicenseExtras
          licenseId={license.id}
          productName={license.product.name}
          extras={extras.get(license.id)}
          saveBilling={saveBillingDetails}
          startTransfer={startTransfer}
          cancelTransfer={cancelTransfer}
        />
      </>
    );
  };
  return (
    <UndoProvider>
      <div className="mt-4 flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <p className="min-w-0 text-base text-slate-700">
          Signed in as{" "}
          <span className="font-semibold wrap-anywhere text-slate-900" data-testid="buyer-email">
            {email}
          </span>
        </p>
        <form method="post" action="/auth/sign-out" className="shrink-0">
          <input type="hidden" name="kind" value="buyer" />
          <button type="submit" className={`${buttonSecondary} py-2`}>
            Sign out
          </button>
        </form>
      </div>

      {notice || error ? (
        <div className="mt-6 space-y-3">
          {notice ? (
            <Message id={notice.tone === "success" ? "licenses-notice" : "licenses-error"} tone={notice.tone}>
              {notice.text}
            </Message>
          ) : null}
          {error && !notice ? (
            <Message id="licenses-error" tone="error">
              {error}
            </Message>
          ) : null}
        </div>
      ) : null}

      <TransferOffers offers={transfers.incoming} accept={acceptTransfer} />

      {all.length > 0 ? (
        <form method="get" action="/licenses" role="search" className="mt-8 flex flex-col gap-2 sm:flex-row sm:items-end">
          <div className="min-w-0 flex-1">
            <label htmlFor="licenses-search" className="block text-sm font-medium text-slate-800">
              Search your licenses
            </label>
            <input
              id="licenses-search"
              name="q"
              type="search"
              maxLength={100}
              defaultValue={search}
              placeholder="Product, seller or the end of the key"
              className={`${inputBase} mt-1.5`}
            />
          </div>
          <button type="submit" className={`${buttonSecondary} py-2`}>
            Search
          </button>
        </form>
      ) : null}

      {all.length > 0 && licenses.length === 0 ? (
        <p className="mt-6 text-sm text-slate-700" role="status">
          No license matches &ldquo;{search}&rdquo;.{" "}
          <Link href="/licenses" className={textLink}>
            Show all
          </Link>
        </p>
      ) : licenses.length === 0 ? (
        <section aria-labelledby="empty-heading" className="mt-8 rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-14 text-center">
          <h2 id="empty-heading" className="text-base font-semibold text-slate-900">
            No licenses for this address yet
          </h2>
          <p className="mx-auto mt-2 max-w-md text-sm leading-6 text-pretty text-slate-600">
            Licenses show up here when they were bought (or a trial was started) with <span className="font-medium wrap-anywhere">{email}</span>.
            Bought with another address? Sign out and sign in with that one.
          </p>
          <Link href="/" className={`${buttonPrimary} mt-6`}>
            Browse the store
          </Link>
        </section>
      ) : (
        <>
          <p className="mt-8 text-sm text-slate-600">
            {plural(licenses.length, "license")}
            {licenses.length > 1 ? ", newest first" : ""}
          </p>
          <ul className="mt-3 space-y-6">
            {byBundle(licenses).flatMap((group) =>
              group.bundle
                ? [
                    <li key={group.bundle.orderId}>
                      <section
                        aria-labelledby={`bundle-${group.bundle.orderId}`}
                        className="rounded-2xl border border-slate-200 bg-slate-50 p-3 sm:p-4"
                      >
                        <h2 id={`bundle-${group.bundle.orderId}`} className="px-1 text-sm font-semibold text-slate-900">
                          {group.bundle.name} <span className="font-normal text-slate-600">(bundle, {plural(group.items.length, "license")})</span>
                        </h2>
                        <ul className="mt-3 space-y-4">
                          {group.items.map(({ license, index }) => (
                            <li key={license.id}>{licenseEntry(license, index)}</li>
                          ))}
                        </ul>
                      </section>
                    </li>,
                  ]
                : group.items.map(({ license, index }) => <li key={license.id}>{licenseEntry(license, index)}</li>),
            )}
          </ul>
        </>
      )}
    </UndoProvider>
  );
}

/**
 * The licenses in their order, those a bundle's order issued gathered under the bundle where its first one comes;
 * each keeps its index in `licenses`.
 */
function byBundle<L extends { bundle: { orderId: string; name: string } | null }>(licenses: readonly L[]) {
  type Item = { license: L; index: number };
  const groups: Array<{ bundle: { orderId: string; name: string } | null; items: Item[] }> = [];
  const bundles = new Map<string, Item[]>();
  licenses.forEach((license, index) => {
    const items = license.bundle ? bundles.get(license.bundle.orderId) : undefined;
    if (items) {
      items.push({ license, index });
    } else if (license.bundle) {
      const first = [{ license, index }];
      bundles.set(license.bundle.orderId, first);
      groups.push({ bundle: license.bundle, items: first });
    } else {
      groups.push({ bundle: null, items: [{ license, index }] });
    }
  });
  return groups;
}
