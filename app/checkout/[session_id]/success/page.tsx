import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { CheckoutFrame } from "@/components/checkout/checkout-frame";
import { ClosedNotice } from "@/components/checkout/closed-notice";
import { formatUtc } from "@/components/checkout/format";
import { CheckCircleIcon, DownloadIcon } from "@/components/checkout/icons";
import { LicenseKeyCard } from "@/components/checkout/license-key-card";
import { planWords } from "@/components/checkout/plan-words";
import { checkoutPaths, findCheckout, isClosed, loadCheckout, type CheckoutView } from "@/components/checkout/load-checkout";
import { ProductSummary } from "@/components/checkout/product-summary";
import { StatusPanel } from "@/components/checkout/status-panel";
import { plural } from "@/components/store/labels";
import { OrderChargesList } from "@/components/store/order-charges";
import { buttonPrimary, buttonSecondary, card, textLink } from "@/components/ui/styles";
import { downloadsForLicenseKey, type LicenseDownloads as LicenseDownloadsData } from "@/lib/marketplace/license-downloads";
import { testPaymentsEnabled } from "@/lib/payments/provider";
import { paths } from "@/lib/urls";
import { LicenseDownloads } from "@/components/licenses/license-downloads";
import { DeviceOrderNote } from "@/components/device/device-order-note";
import { EmbedMode, embedOriginOf } from "@/components/embed/embed-mode";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ session_id: string }>; searchParams?: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const view = await findCheckout((await params).session_id);
  let title = "Order not found";
  if (view?.status === "paid" && view.license) title = `Your ${view.product.name} license key`;
  else if (view?.status === "paid" && view.bundleLicenses.length > 0) title = `Your ${view.product.name} licenses`;
  else if (view?.refusedAndRefunded) title = "Payment refunded";
  else if (view?.status === "paid" || view?.status === "open") title = "Waiting for payment confirmation";
  else if (view) title = `Checkout ${view.status}`;
  return { title, robots: { index: false } };
}

/** Where a paid checkout lands: the key, the download and how to activate. Until the payment is confirmed it refreshes itself. */
export default async function CheckoutSuccessPage({ params, searchParams }: Props) {
  const view = await loadCheckout((await params).session_id);
  // Inside the buy button's overlay: the paid order's id (never its key) goes to the page that framed it.
  const embed = await embedOriginOf(searchParams, view.product.id);

  if (isClosed(view.status)) {
    return (
      <CheckoutFrame>
        <ClosedNotice view={view} status={view.status} />
      </CheckoutFrame>
    );
  }

  if (view.status === "paid" && view.license) {
    // Products with releases list the files this license is entitled to; the others keep the single download link.
    const downloads = await downloadsForLicenseKey(view.license.key);
    // eslint-disable-next-line react-hooks/purity -- a server component renders once per request: this is the request time
    const now = Date.now();
    return (
      <>
        <EmbedMode origin={embed} message={{ type: "ilm:checkout.completed", order_id: view.id }} />
        <Paid view={view} license={view.license} downloads={downloads} now={now} />
      </>
    );
  }

  if (view.status === "paid" && view.bundleLicenses.length > 0) {
    // A bundle: one license per included product, listed with its key; all of them are on My licenses too.
    return (
      <CheckoutFrame>
        <EmbedMode origin={embed} message={{ type: "ilm:checkout.completed", order_id: view.id }} />
        <StatusPanel
          tone="success"
          title={`Your ${view.product.name} licenses`}
          testId="checkout-bundle-paid"
          actions={
            <Link href="/licenses" className={buttonPrimary}>
              Open My licenses
            </Link>
          }
          footer={<ProductSummary product={view.product} linkName showTagline={false} />}
        >
          <p>One license per product, each with its own key, also e-mailed to {view.buyerEmail}. Downloads and machines are on My licenses.</p>
          <ul className="space-y-3" data-testid="bundle-licenses">
            {view.bundleLicenses.map((l) => (
              <li key={l.key}>
                <p className="font-medium text-slate-900">
                  <Link href={paths.product(l.productId)} className={textLink}>
                    {l.productName}
                  </Link>{" "}
                  <span className="font-normal text-slate-600">(up to {plural(l.maxMachines, "computer")})</span>
                </p>
                <p className="font-mono text-base break-all text-slate-900">{l.key}</p>
              </li>
            ))}
          </ul>
        </StatusPanel>
      </CheckoutFrame>
    );
  }

  if (view.refusedAndRefunded) {
    return (
      <CheckoutFrame>
        <StatusPanel
          tone="stopped"
          title="Your payment was refunded"
          testId="checkout-refunded"
          footer={<ProductSummary product={view.product} linkName showTagline={false} />}
        >
          <p>
            {view.product.name} could no longer be sold when your payment arrived, so no license was issued and the whole payment is on its way back
            to you. An e-mail to {view.buyerEmail} says more.
          </p>
        </StatusPanel>
      </CheckoutFrame>
    );
  }

  // Open, or paid a moment ago and still being fulfilled: reload every 3 s, without JavaScript (React hoists the tag).
  const testOpen = view.status === "open" && view.provider === "test";
  // A test session that can no longer be paid (test mode is off) will never be confirmed: its page says why.
  if (testOpen && !testPaymentsEnabled()) redirect(checkoutPaths.checkout(view.id));
  return (
    <CheckoutFrame>
      <EmbedMode origin={embed} />
      <meta httpEquiv="refresh" content="3" />
      <StatusPanel
        tone="pending"
        title="Waiting for payment confirmation…"
        testId="checkout-pending"
        actions={
          testOpen ? (
            <Link href={checkoutPaths.checkout(view.id)} className={buttonSecondary}>
              <span aria-hidden="true">←</span> Back to the checkout
            </Link>
          ) : undefined
        }
        footer={<ProductSummary product={view.product} linkName showTagline={false} />}
      >
        <p>This page checks again every few seconds and shows your license key as soon as the payment is confirmed.</p>
        {testOpen ? <p>This test-mode checkout has not been paid yet.</p> : null}
      </StatusPanel>
    </CheckoutFrame>
  );
}

function Paid({
  view,
  license,
  downloads,
  now,
}: {
  view: CheckoutView;
  license: NonNullable<CheckoutView["license"]>;
  downloads: LicenseDownloadsData | null;
  now: number;
}) {
  const computers = plural(license.maxMachines, "computer");
  return (
    <CheckoutFrame>
      <div className={`${card} overflow-hidden`}>
        <div className="p-6 sm:p-8">
          <span className="inline-flex size-12 items-center justify-center rounded-full bg-emerald-50 text-emerald-700 ring-1 ring-emerald-200 ring-inset">
            <CheckCircleIcon />
          </span>
          <h1 className="mt-4 text-2xl font-semibold tracking-tight text-balance text-slate-900 sm:text-3xl">Payment complete</h1>
          <p className="mt-2 text-base leading-7 text-pretty text-slate-700">
            Thank you for buying {view.product.name}. You paid {view.charges.total}
            {view.paidAt ? (
              <>
                {" "}
                on <time dateTime={view.paidAt.toISOString()}>{formatUtc(view.paidAt)}</time>
              </>
            ) : null}
            .
          </p>

          <p className="mt-2 text-sm leading-6 text-slate-600" data-testid="checkout-plan">
            {view.plan.kind === "updates_renewal" && view.plan.updatesUntil
              ? `Your license now gets every release published until ${formatUtc(view.plan.updatesUntil)}.`
              : planWords(view.plan)}
          </p>

          <DeviceOrderNote orderId={view.id} />

          <div className="mt-6">
            <LicenseKeyCard licenseKey={license.key} maxMachines={license.maxMachines} buyerEmail={view.buyerEmail} emailStatus={view.emailStatus} />
          </div>

          <section aria-labelledby="charges-heading" className="mt-8">
            <h2 id="charges-heading" className="text-base font-semibold text-slate-900">
              What you paid
            </h2>
            <OrderChargesList charges={view.charges} seats={license.maxMachines} className="mt-2" />
          </section>

          <section aria-labelledby="product-heading" className="mt-8">
            <h2 id="product-heading" className="sr-only">
              Your product
            </h2>
            <div className="flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
              <ProductSummary product={view.product} linkName showTagline={false} />
              {view.product.downloadUrl && !downloads ? (
                <a href={view.product.downloadUrl} className={`${buttonPrimary} shrink-0`}>
                  <DownloadIcon />
                  Download {view.product.name}
                </a>
              ) : null}
            </div>
          </section>

          {downloads ? (
            <div className="mt-6">
              <LicenseDownloads
                downloads={downloads}
                productName={view.product.name}
                productPage={checkoutPaths.product(view.product.id)}
                idPrefix="order"
                now={now}
              />
            </div>
          ) : null}

          <section aria-labelledby="activate-heading" className="mt-8 border-t border-slate-200 pt-6">
            <h2 id="activate-heading" className="text-base font-semibold text-slate-900">
              How to activate
            </h2>
            <ol className="mt-3 space-y-3 text-sm leading-6 text-slate-700">
              <Step n={1}>Install {view.product.name} and open it.</Step>
              <Step n={2}>Enter the license key when the app asks for it. The key is then bound to that computer.</Step>
              <Step n={3}>
                Use it on up to {computers}. To move it to another one, release a machine from the app or from{" "}
                <Link href="/licenses" className={textLink}>
                  My licenses
                </Link>
                .
              </Step>
            </ol>
          </section>
        </div>

        <div className="flex flex-col gap-2 border-t border-slate-200 bg-slate-50 px-6 py-4 text-sm sm:flex-row sm:flex-wrap sm:items-center sm:justify-between sm:px-8">
          <a href={paths.receiptPage(license.key)} className={`${textLink} self-start sm:self-auto`}>
            View your signed receipt
          </a>
          <span className="text-slate-600">
            Order <span className="font-mono text-xs break-all">{view.id}</span>
          </span>
        </div>
      </div>
    </CheckoutFrame>
  );
}

function Step({ n, children }: { n: number; children: ReactNode }) {
  return (
    <li className="flex gap-3">
      <span
        aria-hidden="true"
        className="flex size-6 shrink-0 items-center justify-center rounded-full bg-indigo-50 text-xs font-semibold text-indigo-800 ring-1 ring-indigo-200 ring-inset"
      >
        {n}
      </span>
      <span className="min-w-0 pt-px">
        <span className="sr-only">Step {n}: </span>
        {children}
      </span>
    </li>
  );
}
