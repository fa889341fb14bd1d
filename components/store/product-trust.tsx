import Link from "next/link";
import type { ProductDetails } from "@/lib/marketplace/schemas";
import { paths } from "@/lib/urls";
import { card, textLink } from "@/components/ui/styles";

/** The id of the product page's support and refunds section, for links to it. */
const SUPPORT_ID = "support";

/**
 * "Support and refunds" on a product page: the seller's refund policy and where to get help, from the seller's
 * profile (a paid listing cannot be published without them; one listed before they were required says they are
 * missing), and how the marketplace handles a refund once the seller agrees to one.
 */
export function ProductTrust({ product }: { product: ProductDetails }) {
  const { refund_policy: policy, support } = product;
  const seller = product.developer;
  return (
    <section id={SUPPORT_ID} aria-labelledby="support-heading" className="scroll-mt-6">
      <h2 id="support-heading" className="text-xl font-semibold text-slate-900">
        Support and refunds
      </h2>
      <dl className={`${card} mt-4 divide-y divide-slate-200`}>
        <div className="grid gap-1 px-5 py-4 sm:grid-cols-3 sm:gap-4">
          <dt className="text-sm font-medium text-slate-600">Refund policy</dt>
          <dd id="refund-policy" className="text-sm leading-6 break-words whitespace-pre-line text-slate-900 sm:col-span-2">
            {policy.trim() ? policy : `${seller} has not published a refund policy.`}
          </dd>
        </div>
        <div className="grid gap-1 px-5 py-4 sm:grid-cols-3 sm:gap-4">
          <dt className="text-sm font-medium text-slate-600">Support</dt>
          <dd id="support-contact" className="text-sm text-slate-900 sm:col-span-2">
            {support.email || support.url ? (
              <ul className="space-y-1">
                {support.email ? (
                  <li>
                    <a href={`mailto:${support.email}`} className={`${textLink} break-all`}>
                      {support.email}
                    </a>
                  </li>
                ) : null}
                {support.url ? (
                  <li>
                    <a href={support.url} rel="noopener noreferrer nofollow" className={`${textLink} break-all`}>
                      {seller} support page
                    </a>
                  </li>
                ) : null}
              </ul>
            ) : (
              `${seller} has not given a support contact.`
            )}
          </dd>
        </div>
      </dl>
      <p className="mt-3 text-sm text-slate-600">
        Refunds are paid back to the card used, and a fully refunded license stops working.{" "}
        <Link href={paths.refundsPage} className={textLink}>
          How refunds work
        </Link>
      </p>
    </section>
  );
}

/** A line for the Buy box pointing to the section above. */
export function TrustLink() {
  return (
    <a href={`#${SUPPORT_ID}`} className={textLink}>
      Refund policy and support
    </a>
  );
}
