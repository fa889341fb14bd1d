import type { Metadata } from "next";
import Link from "next/link";
import { AppError } from "@/lib/http/errors";
import { formatPrice } from "@/lib/pricing";
import { issueReceipt } from "@/lib/receipts/issue-receipt";
import { receiptQuerySchema } from "@/lib/receipts/schemas";
import { verifyReceipt } from "@/lib/receipts/verify-receipt";
import { paths } from "@/lib/urls";
import { DocumentPage, DocumentSection } from "@/components/store/document-page";
import { Badge } from "@/components/ui/badge";
import { formatMoment } from "@/lib/format";
import { buttonSecondary, card, textLink } from "@/components/ui/styles";

export const dynamic = "force-dynamic";
// It shows a license key and an e-mail address: never indexed, never cached.
export const metadata: Metadata = { title: "Your receipt", robots: { index: false, follow: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

function Fact({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    <div className="grid gap-1 px-5 py-3.5 sm:grid-cols-3 sm:gap-4">
      <dt className="text-sm font-medium text-slate-600">{term}</dt>
      <dd className="text-sm break-words text-slate-900 sm:col-span-2">{children}</dd>
    </div>
  );
}

/**
 * The signed receipt for people: the same receipt the JSON at /api/receipt carries (issued afresh, so it says how the
 * license stands now), its facts in words, the signature checked here, and the signed JSON to download.
 */
export default async function ReceiptPage({ searchParams }: Props) {
  const raw = (await searchParams).key;
  const parsed = receiptQuerySchema.safeParse({ key: Array.isArray(raw) ? raw[0] : raw });
  let signed: Awaited<ReturnType<typeof issueReceipt>> | null = null;
  if (parsed.success) {
    try {
      signed = await issueReceipt(parsed.data.key);
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 404) throw error;
    }
  }
  if (!parsed.success || !signed) {
    return (
      <DocumentPage title="No receipt found" lead="This link does not name a license we know. Check that you copied the whole link from your e-mail.">
        <p className="text-base text-slate-700">
          Your licenses and their receipts are also on{" "}
          <Link href="/licenses" className={textLink}>
            My licenses
          </Link>
          .
        </p>
      </DocumentPage>
    );
  }
  const { receipt, signature } = signed;
  const check = await verifyReceipt({ receipt, signature });
  const purchase = receipt.purchase;
  const money = (cents: number) => formatPrice(cents, purchase?.currency);
  return (
    <DocumentPage
      title="Your receipt"
      lead={`A signed record of your ${receipt.product_name} license. Anyone you show the signed JSON to can check it with us, and see whether the license is still active.`}
    >
      <DocumentSection id="verification" title="Verification">
        <ul id="receipt-verification" className="!list-none !pl-0">
          <li className="flex flex-wrap items-center gap-2">
            {check.valid ? <Badge tone="success">Signature valid</Badge> : <Badge>Signature not valid</Badge>}
            <span className="text-sm">HMAC-SHA256 over the receipt&apos;s canonical JSON (RFC 8785), checked by this service just now.</span>
          </li>
          <li className="flex flex-wrap items-center gap-2">
            {check.still_active ? <Badge tone="success">License active</Badge> : <Badge>License not active</Badge>}
            <span className="text-sm">As of {formatMoment(receipt.checked_at)}.</span>
          </li>
        </ul>
        <p>
          <a
            href={`${paths.receiptVerify}?key=${encodeURIComponent(receipt.license_key)}`}
            download={`receipt-${receipt.license_key}.json`}
            className={buttonSecondary}
          >
            Download the signed JSON
          </a>
        </p>
        <p className="text-sm text-slate-600">
          It holds your license key and e-mail address: share it only with someone who needs proof of your purchase. Programs verify it with a POST to{" "}
          <code className="font-mono text-[0.8125rem]">{paths.receiptVerify}</code>.
        </p>
      </DocumentSection>

      <DocumentSection id="license" title="License">
        <dl className={`${card} divide-y divide-slate-200`}>
          <Fact term="Product">{receipt.product_name}</Fact>
          <Fact term="License key">
            <code className="font-mono break-all">{receipt.license_key}</code>
          </Fact>
          <Fact term="Licensed to">{receipt.buyer_email}</Fact>
          <Fact term="Machines">Up to {receipt.max_machines}</Fact>
          <Fact term="Issued">{formatMoment(receipt.issued_at)}</Fact>
          <Fact term="Expires">{receipt.expires_at ? formatMoment(receipt.expires_at) : "Never (perpetual license)"}</Fact>
          <Fact term="Issued by">
            <code className="font-mono break-all">{receipt.issuer}</code>
          </Fact>
        </dl>
      </DocumentSection>

      {purchase ? (
        <DocumentSection id="payment" title="Payment">
          <dl className={`${card} divide-y divide-slate-200`}>
            <Fact term="Order">
              <code className="font-mono break-all">{purchase.order_id}</code>
            </Fact>
            {purchase.quantity > 1 ? <Fact term="Seats">{purchase.quantity}</Fact> : null}
            <Fact term="Price">{money(purchase.subtotal_cents)}</Fact>
            {purchase.discount_cents > 0 ? (
              <Fact term={purchase.coupon_code ? `Coupon ${purchase.coupon_code}` : "Discount"}>−{money(purchase.discount_cents)}</Fact>
            ) : null}
            <Fact term="Tax">{purchase.tax_cents === null ? "Not calculated" : money(purchase.tax_cents)}</Fact>
            <Fact term="Total paid">
              <span className="font-semibold">{purchase.total_display}</span>
            </Fact>
          </dl>
        </DocumentSection>
      ) : null}
    </DocumentPage>
  );
}
