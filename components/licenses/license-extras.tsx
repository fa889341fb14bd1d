import { buttonSecondary, inputBase, textLink } from "@/components/ui/styles";

type FormAction = (form: FormData) => Promise<void>;

interface Extras {
  orderId: string | null;
  invoice: {
    number: number;
    billingName: string | null;
    billingAddress: string | null;
    billingCountry: string | null;
    billingVatId: string | null;
  } | null;
  /** Why the license may not be transferred now (a code), or null when it may. */
  transferRefusal: string | null;
  pending: { transfer_id: string; to_email: string; expires_at: string } | null;
}

const label = "block text-sm font-medium text-slate-800";

/**
 * Under a license on My licenses: its invoice (download, and the billing details printed on it) and, where the seller
 * allows it, handing the license to another address (or the pending offer, with its cancel). Plain forms: they work
 * without JavaScript.
 */
export function LicenseExtras({
  licenseId,
  productName,
  extras,
  saveBilling,
  startTransfer,
  cancelTransfer,
}: {
  licenseId: string;
  productName: string;
  extras: Extras | undefined;
  saveBilling: FormAction;
  startTransfer: FormAction;
  cancelTransfer: FormAction;
}) {
  if (!extras) return null;
  const { orderId, invoice, transferRefusal, pending } = extras;
  const canTransfer = transferRefusal === null;
  if (!orderId && !canTransfer) return null;
  const base = `extras-${licenseId}`;
  return (
    <div className="mt-3 space-y-3 rounded-2xl border border-slate-200 bg-white p-4 text-sm text-slate-700 sm:p-5">
      {orderId ? (
        <details>
          <summary className="min-h-6 cursor-pointer font-medium text-slate-900">
            Invoice{invoice ? ` INV-${String(invoice.number).padStart(6, "0")}` : ""}
          </summary>
          <p className="mt-2">
            <a href={`/licenses/invoices/${encodeURIComponent(orderId)}`} download className={textLink} data-testid="invoice-link">
              Download the invoice for {productName} (PDF)
            </a>
          </p>
          <form action={saveBilling} className="mt-3 grid gap-3 sm:grid-cols-2" aria-label={`Billing details for the invoice of ${productName}`}>
            <input type="hidden" name="order_id" value={orderId} />
            <div>
              <label htmlFor={`${base}-name`} className={label}>
                Billing name
              </label>
              <input
                id={`${base}-name`}
                name="name"
                required
                maxLength={200}
                defaultValue={invoice?.billingName ?? ""}
                className={`${inputBase} mt-1`}
              />
            </div>
            <div>
              <label htmlFor={`${base}-country`} className={label}>
                Country (two letters, e.g. DE)
              </label>
              <input
                id={`${base}-country`}
                name="country"
                required
                minLength={2}
                maxLength={2}
                pattern="[A-Za-z]{2}"
                defaultValue={invoice?.billingCountry ?? ""}
                className={`${inputBase} mt-1`}
              />
            </div>
            <div className="sm:col-span-2">
              <label htmlFor={`${base}-address`} className={label}>
                Address
              </label>
              <input
                id={`${base}-address`}
                name="address"
                required
                maxLength={300}
                defaultValue={invoice?.billingAddress ?? ""}
                className={`${inputBase} mt-1`}
              />
            </div>
            <div>
              <label htmlFor={`${base}-vat`} className={label}>
                VAT ID (optional)
              </label>
              <input id={`${base}-vat`} name="vat_id" maxLength={20} defaultValue={invoice?.billingVatId ?? ""} className={`${inputBase} mt-1`} />
            </div>
            <div className="flex items-end">
              <button type="submit" className={buttonSecondary}>
                Save billing details
              </button>
            </div>
          </form>
        </details>
      ) : null}
      {pending ? (
        <form action={cancelTransfer} className="flex flex-wrap items-center gap-3">
          <input type="hidden" name="transfer_id" value={pending.transfer_id} />
          <p className="min-w-0 wrap-anywhere">
            Offered to <span className="font-medium text-slate-900">{pending.to_email}</span> until {pending.expires_at.slice(0, 10)}.
          </p>
          <button type="submit" className={buttonSecondary}>
            Cancel the transfer
          </button>
        </form>
      ) : canTransfer ? (
        <details>
          <summary className="min-h-6 cursor-pointer font-medium text-slate-900">Transfer this license</summary>
          <p className="mt-2">
            The address you name gets a link to accept it. Once accepted, the license gets a new key, your machines are released and it is no longer
            yours.
          </p>
          <form action={startTransfer} className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-end">
            <input type="hidden" name="license_id" value={licenseId} />
            <div className="min-w-0 flex-1">
              <label htmlFor={`${base}-to`} className={label}>
                New holder&rsquo;s e-mail address
              </label>
              <input id={`${base}-to`} name="to_email" type="email" required maxLength={254} autoComplete="off" className={`${inputBase} mt-1`} />
            </div>
            <button type="submit" className={buttonSecondary}>
              Send the transfer link
            </button>
          </form>
        </details>
      ) : null}
    </div>
  );
}

/** Licenses other buyers offered to this one, each with its Accept. */
export function TransferOffers({
  offers,
  accept,
}: {
  offers: ReadonlyArray<{ transfer_id: string; from_email: string; product_name: string; seller_name: string; expires_at: string }>;
  accept: FormAction;
}) {
  if (offers.length === 0) return null;
  return (
    <section aria-labelledby="offers-heading" className="mt-8 rounded-2xl border border-indigo-200 bg-indigo-50 p-4 sm:p-5">
      <h2 id="offers-heading" className="text-base font-semibold text-slate-900">
        Licenses offered to you
      </h2>
      <ul className="mt-3 space-y-3">
        {offers.map((o) => (
          <li key={o.transfer_id}>
            <form action={accept} className="flex flex-wrap items-center gap-3 text-sm text-slate-800">
              <input type="hidden" name="transfer_id" value={o.transfer_id} />
              <p className="min-w-0 flex-1 wrap-anywhere">
                <span className="font-medium">{o.product_name}</span> by {o.seller_name}, from {o.from_email} (until {o.expires_at.slice(0, 10)})
              </p>
              <button type="submit" className={buttonSecondary}>
                Accept {o.product_name}
              </button>
            </form>
          </li>
        ))}
      </ul>
    </section>
  );
}
