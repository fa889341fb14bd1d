import Link from "next/link";
import type { ReactNode } from "react";
import type { buyerLicenses } from "@/lib/buyer/licenses";
import { DownloadIcon } from "@/components/checkout/icons";
import { plural } from "@/components/store/labels";
import { CopyButton } from "@/components/ui/copy-button";
import { buttonSecondary, card, textLink } from "@/components/ui/styles";
import { paths, productIconPath } from "@/lib/urls";
import type { LicenseDownloads as Downloads } from "@/lib/marketplace/license-downloads";
import { formatDate, formatDateTime, licenseStatus, shortFingerprint, sitePath } from "./format";
import { machineTitle, seatsAndMachines } from "@/lib/format";
import { LicenseDownloads } from "./license-downloads";
import { ConfirmAction, type ActionResult } from "./confirm-undo";
import { StatusBadge } from "./status-badge";

export type BuyerLicense = Awaited<ReturnType<typeof buyerLicenses>>[number];
export type ReleaseAction = (formData: FormData) => Promise<void>;
/** A server action on one machine of one license (release, undo), answering a message. */
type MachineAction = (licenseId: unknown, activationId: unknown) => Promise<ActionResult>;

/**
 * One license: product, key, status, seats, links, and the machines it is activated on, each releasable. With
 * `downloads` (the product has releases) the files the license is entitled to replace the single download link.
 */
export function LicenseCard({
  license,
  releaseAction,
  releaseNow,
  restoreNow,
  now,
  downloads = null,
  review = null,
  subscription = null,
}: {
  license: BuyerLicense;
  releaseAction: ReleaseAction;
  releaseNow: MachineAction;
  restoreNow: MachineAction;
  now: number;
  downloads?: Downloads | null;
  /** The license's review part (components/licenses/license-review.tsx), when it has one or may write one. */
  review?: ReactNode;
  /** The subscription the license follows (components/licenses/subscription-panel.tsx), when it has one. */
  subscription?: ReactNode;
}) {
  const { product } = license;
  const status = licenseStatus(license, now);
  const used = license.activations.length;
  const full = used >= license.maxMachines;
  const base = `license-${license.id}`;

  return (
    <article aria-labelledby={`${base}-name`} data-testid="license" data-license-key={license.key} className={`${card} overflow-hidden`}>
      <div className="p-5 sm:p-6">
        <div className="flex items-start gap-4">
          {/* eslint-disable-next-line @next/next/no-img-element -- an upload or a bundled icon: this site's only */}
          <img src={productIconPath(product.iconUrl)} alt="" width={56} height={56} className="size-12 shrink-0 rounded-xl shadow-sm sm:size-14" />
          <div className="min-w-0 flex-1">
            <div className="flex flex-wrap items-center gap-x-3 gap-y-1.5">
              <h2 id={`${base}-name`} className="text-lg leading-snug font-semibold break-words text-slate-900">
                <Link href={sitePath(product.pageUrl)} className={textLink}>
                  {product.name}
                </Link>
              </h2>
              <StatusBadge status={status} />
            </div>
            <p className="mt-0.5 text-sm text-slate-600">by {product.developer.name}</p>
            <p className="mt-1 text-xs text-slate-600">
              {license.trial ? "Trial started" : "Bought"}{" "}
              <time dateTime={license.issuedAt.toISOString()} title={formatDateTime(license.issuedAt)}>
                {formatDate(license.issuedAt)}
              </time>
              {license.expiresAt ? (
                <>
                  {" · "}
                  {license.expiresAt.getTime() <= now ? "expired" : "expires"}{" "}
                  <time dateTime={license.expiresAt.toISOString()} title={formatDateTime(license.expiresAt)}>
                    {formatDate(license.expiresAt)}
                  </time>
                </>
              ) : null}
            </p>
            {license.charges ? (
              <p className="mt-1 text-xs text-slate-600" data-testid="license-paid">
                {license.charges.quantity > 1 ? `${license.charges.quantity} × ${license.charges.unit} · ` : ""}
                Paid {license.charges.total}
                {license.charges.discount
                  ? ` after ${license.charges.discount} off${license.charges.couponCode ? ` (${license.charges.couponCode})` : ""}`
                  : ""}
                {license.charges.taxCalculated ? ` incl. ${license.charges.tax} tax` : " · tax not calculated"}
                {license.charges.refunded ? ` · ${license.charges.refunded} refunded` : ""}
                {" · "}
                {seatsAndMachines(license.charges.quantity, license.maxMachines)}
              </p>
            ) : null}
          </div>
        </div>

        <div className="mt-5">
          <p id={`${base}-key-label`} className="text-sm font-medium text-slate-800">
            License key
          </p>
          <div className="mt-1.5 flex flex-col gap-2 sm:flex-row sm:items-center">
            <p
              id={`${base}-key`}
              data-testid="license-key"
              className="min-w-0 flex-1 rounded-lg border border-slate-300 bg-slate-50 px-3 py-2.5 font-mono text-base font-semibold tracking-wide wrap-anywhere text-slate-900 select-all"
            >
              {license.key}
            </p>
            <CopyButton text={license.key} label={`${product.name} license key`} selectTargetId={`${base}-key`} />
          </div>
        </div>

        {subscription ? <div className="mt-6">{subscription}</div> : null}

        {downloads ? (
          <div className="mt-6">
            <LicenseDownloads downloads={downloads} productName={product.name} productPage={sitePath(product.pageUrl)} idPrefix={base} now={now} />
          </div>
        ) : null}

        <div className="mt-5 flex flex-wrap items-center gap-x-5 gap-y-3 text-sm">
          {downloads ? null : (
            <a href={sitePath(product.downloadUrl)} className={`${buttonSecondary} py-2`}>
              <DownloadIcon />
              Download<span className="sr-only"> {product.name}</span>
            </a>
          )}
          <a href={paths.receiptPage(license.key)} className={textLink}>
            Signed receipt<span className="sr-only"> for {product.name}</span>
          </a>
        </div>
      </div>

      {review}

      <section aria-labelledby={`${base}-machines`} className="border-t border-slate-200 bg-slate-50 px-5 py-5 sm:px-6">
        <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
          <h3 id={`${base}-machines`} className="text-base font-semibold text-slate-900">
            Machines
          </h3>
          <p data-testid="seats" className={`text-sm font-medium ${full ? "text-amber-900" : "text-slate-700"}`}>
            {used} of {plural(license.maxMachines, "machine")} in use
          </p>
        </div>
        <SeatBar used={used} max={license.maxMachines} />
        {used > 0 ? (
          <p className="mt-3 text-sm leading-6 text-pretty text-slate-700">
            {full ? <strong className="font-semibold text-slate-900">Every seat is taken. </strong> : null}
            Reinstalled or replaced a computer? Release the old machine here: its seat is free at once, and you can activate the app on the new one.
            The released computer stops accepting the key until it is activated again.
          </p>
        ) : null}

        {used === 0 ? (
          <p className="mt-4 rounded-lg border border-dashed border-slate-300 bg-white px-4 py-4 text-sm text-slate-700">
            Not activated on any machine yet. Enter the key in {product.name} to activate it on this computer.
          </p>
        ) : (
          <ul
            className="mt-4 divide-y divide-slate-200 rounded-xl border border-slate-200 bg-white"
            aria-label={`Machines using this ${product.name} license`}
          >
            {license.activations.map((a) => {
              const short = shortFingerprint(a.fingerprint);
              // Named by what the app reported (name, platform, app version), the fingerprint second.
              const title = machineTitle(a);
              return (
                <li
                  key={a.id}
                  data-testid="machine"
                  data-fingerprint={a.fingerprint}
                  className="flex flex-col gap-3 px-4 py-3.5 sm:flex-row sm:items-center sm:justify-between"
                >
                  <div className="min-w-0">
                    <p className="text-sm font-medium text-slate-900" data-testid="machine-title">
                      {title || (
                        <span className="font-mono" title={a.fingerprint}>
                          {short}
                        </span>
                      )}
                    </p>
                    {title ? (
                      <p className="mt-0.5 text-xs leading-5 text-slate-600">
                        <span className="sr-only">Machine fingerprint </span>
                        <span className="font-mono" title={a.fingerprint}>
                          {short}
                        </span>
                      </p>
                    ) : null}
                    <p className="mt-0.5 text-xs leading-5 text-slate-600">
                      activated{" "}
                      <time dateTime={a.activatedAt.toISOString()} title={formatDateTime(a.activatedAt)}>
                        {formatDate(a.activatedAt)}
                      </time>
                      <span aria-hidden="true" className="mx-1.5 text-slate-400">
                        ·
                      </span>
                      last seen{" "}
                      {a.lastValidatedAt ? (
                        <time dateTime={a.lastValidatedAt.toISOString()} title={formatDateTime(a.lastValidatedAt)}>
                          {formatDate(a.lastValidatedAt)}
                        </time>
                      ) : (
                        "never"
                      )}
                    </p>
                  </div>
                  <ConfirmAction
                    fallback={releaseAction}
                    run={releaseNow.bind(null, license.id, a.id)}
                    undo={restoreNow.bind(null, license.id, a.id)}
                    label="Release this machine"
                    srLabel={`(${a.machineName ? `${a.machineName}, ` : ""}${short}, ${product.name})`}
                    question={`Release ${a.machineName ?? short}? Its seat is freed at once; the app on it asks for the key again.`}
                    confirmLabel="Release machine"
                    danger
                    triggerClassName={`${buttonSecondary} w-full px-3 py-2 sm:w-auto`}
                    className="shrink-0"
                  >
                    <input type="hidden" name="license_id" value={license.id} />
                    <input type="hidden" name="activation_id" value={a.id} />
                  </ConfirmAction>
                </li>
              );
            })}
          </ul>
        )}
      </section>
    </article>
  );
}

function SeatBar({ used, max }: { used: number; max: number }) {
  const pct = max > 0 ? Math.min(100, Math.round((used / max) * 100)) : 0;
  return (
    <div aria-hidden="true" className="mt-2 h-1.5 w-full overflow-hidden rounded-full bg-slate-200">
      <div className={`h-full rounded-full ${used >= max ? "bg-amber-500" : "bg-indigo-600"}`} style={{ width: `${pct}%` }} />
    </div>
  );
}
