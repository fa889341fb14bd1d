import type { Metadata } from "next";
import Link from "next/link";
import { getTerms } from "@/lib/terms/get-terms";
import { FEE_TERMS, formatPrice } from "@/lib/pricing";
import { paths } from "@/lib/urls";
import { DocumentPage, DocumentSection } from "@/components/store/document-page";
import { textLink } from "@/components/ui/styles";

export const dynamic = "force-dynamic";
export const metadata: Metadata = {
  title: "Terms",
  description: "The marketplace's terms: fees, what a license gives you, and what sellers agree to.",
  alternates: { canonical: paths.termsPage },
};

/** The marketplace terms for people; the same facts as the JSON at /api/terms (lib/terms), which stays for programs. */
export default function TermsPage() {
  const terms = getTerms();
  const { pricing, capabilities } = terms;
  const example = pricing.fee_example;
  const money = (cents: number) => formatPrice(cents, pricing.currency);
  return (
    <DocumentPage
      title="Terms"
      lead={`How ${terms.provider} works for buyers and sellers: what it costs, what a license gives you, and what each side agrees to.`}
      machine={{ href: paths.terms, label: "the same terms as JSON" }}
    >
      <DocumentSection id="fees" title="Fees">
        <p>{FEE_TERMS.platform}</p>
        <ul>
          <li>
            For example, on a {money(example.price_cents)} sale the platform keeps {money(example.platform_fee_cents)} and the seller receives{" "}
            {money(example.seller_receives_cents)}.
          </li>
          <li>
            No monthly fee ({money(pricing.monthly_fee_cents)}) and no setup fee ({money(pricing.setup_fee_cents)}).
          </li>
          <li>
            The licensing SDKs: {pricing.sdk_cost}. Running this marketplace yourself: {pricing.self_host_cost}.
          </li>
        </ul>
        <p>{FEE_TERMS.processor}</p>
        <p>{FEE_TERMS.testMode}</p>
      </DocumentSection>

      <DocumentSection id="licenses" title="What a license gives you">
        <ul>
          <li>A license key: {capabilities.license_keys}.</li>
          <li>Machines: {capabilities.machine_binding}. You can release a machine yourself from My licenses.</li>
          <li>Trials: {capabilities.trials}.</li>
          <li>Receipts: {capabilities.receipts}.</li>
          <li>Revocation: {capabilities.revocation}.</li>
        </ul>
        <p>
          Each product page says how many machines a license covers and which updates it includes. Refunds follow the seller&apos;s policy on that
          page;{" "}
          <Link href={paths.refundsPage} className={textLink}>
            how refunds work
          </Link>
          .
        </p>
      </DocumentSection>

      <DocumentSection id="sellers" title="Selling here">
        <ul>
          <li>
            A paid listing needs a refund policy and a support contact on the seller&apos;s profile (shown on each product page) and a payout account
            that can take payments.
          </li>
          <li>Sellers set their own prices, seats, trials and refund policy, and decide refund requests for their products.</li>
          <li>The operator may remove a listing or suspend a seller who breaks these terms. Licenses already sold keep working.</li>
        </ul>
      </DocumentSection>

      <DocumentSection id="questions" title="Questions">
        <p>
          About a product: its seller, through the support contact on its page. About the marketplace:{" "}
          <Link href={paths.contactPage} className={textLink}>
            contact the operator
          </Link>
          . How we handle your data:{" "}
          <Link href={paths.privacyPage} className={textLink}>
            privacy
          </Link>
          .
        </p>
      </DocumentSection>
    </DocumentPage>
  );
}
