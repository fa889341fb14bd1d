import type { Metadata } from "next";
import Link from "next/link";
import { paths } from "@/lib/urls";
import { DocumentPage, DocumentSection } from "@/components/store/document-page";
import { textLink } from "@/components/ui/styles";

export const metadata: Metadata = {
  title: "Refunds",
  description: "How refunds work: the seller's policy decides, the money goes back to your card, and a fully refunded license stops working.",
  alternates: { canonical: paths.refundsPage },
};

/** The platform's refund rules, for people. Each seller's own policy is on their product pages. */
export default function RefundsPage() {
  return (
    <DocumentPage
      title="Refunds"
      lead="Each seller sets a refund policy, shown on every one of their product pages under Support and refunds. This page says how the marketplace carries a refund out."
    >
      <DocumentSection id="asking" title="Asking for a refund">
        <p>
          Write to the seller through the support contact on the product page, with the e-mail address you bought with. Paid products always show a
          refund policy and a support contact: a seller cannot list a paid product without them.
        </p>
        <p>
          The seller decides, following the policy they published. If a seller does not answer or does not keep to their own policy,{" "}
          <Link href={paths.contactPage} className={textLink}>
            contact the operator
          </Link>
          , who can refund any order.
        </p>
      </DocumentSection>

      <DocumentSection id="money" title="Where the money goes">
        <ul>
          <li>
            A refund is paid back through the payment provider to the card or account you paid with. Banks usually take 5 to 10 days to show it.
          </li>
          <li>A refund can be the whole amount or a part of it. You get an e-mail either way.</li>
          <li>The platform&apos;s fee on the refunded part goes back to the seller, so a seller does not pay a fee on money they returned.</li>
        </ul>
      </DocumentSection>

      <DocumentSection id="license" title="What happens to the license">
        <ul>
          <li>A full refund revokes the license: apps using it are refused at their next check, and it can no longer download updates.</li>
          <li>A partial refund leaves the license working.</li>
          <li>Trial licenses cost nothing and have nothing to refund; they end on their own.</li>
        </ul>
      </DocumentSection>

      <DocumentSection id="disputes" title="Disputes and chargebacks">
        <p>
          If you dispute the charge with your bank instead, the license is suspended while the dispute is open. If the seller wins it, the license
          works again; if you win it, the license stays revoked and the money is returned by your bank. Asking the seller first is usually faster.
        </p>
      </DocumentSection>
    </DocumentPage>
  );
}
