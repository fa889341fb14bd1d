import type { Metadata } from "next";
import Link from "next/link";
import { env } from "@/lib/env";
import { paths } from "@/lib/urls";
import { DocumentPage, DocumentSection } from "@/components/store/document-page";
import { textLink } from "@/components/ui/styles";

export const dynamic = "force-dynamic";
export const metadata: Metadata = {
  title: "Contact",
  description: "Who to ask: the seller for a product, the operator for the marketplace.",
  alternates: { canonical: paths.contactPage },
};

/** Who answers what: sellers for their products, the operator (SUPPORT_EMAIL) for the marketplace itself. */
export default function ContactPage() {
  const operator = env().SUPPORT_EMAIL;
  return (
    <DocumentPage title="Contact" lead="Questions about a product go to its seller; questions about the marketplace go to its operator.">
      <DocumentSection id="products" title="About a product">
        <p>
          Each product page has a Support and refunds section with the seller&apos;s e-mail address or support page and their refund policy. Sellers
          answer questions about installing, licensing and refunds for their own products.
        </p>
        <p>
          Lost your license key? Open{" "}
          <Link href="/licenses" className={textLink}>
            My licenses
          </Link>{" "}
          and sign in with the address you bought with.
        </p>
      </DocumentSection>
      <DocumentSection id="operator" title="About the marketplace">
        {operator ? (
          <p>
            Write to the operator at{" "}
            <a id="operator-email" href={`mailto:${operator}`} className={`${textLink} break-all`}>
              {operator}
            </a>{" "}
            about your data, a seller who does not answer, a refund that went wrong, or a listing that breaks the{" "}
            <Link href={paths.termsPage} className={textLink}>
              terms
            </Link>
            .
          </p>
        ) : (
          <p id="operator-email-missing">This deployment has not published an operator contact address. For a product, ask its seller as above.</p>
        )}
      </DocumentSection>
    </DocumentPage>
  );
}
