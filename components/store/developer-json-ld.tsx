import type { DeveloperPage } from "@/lib/marketplace/get-developer";
import { absoluteUrl, paths } from "@/lib/urls";

/** schema.org Organization markup for a developer's page: who they are, where buyers get help, their rating. */
export function DeveloperJsonLd({ developer }: { developer: DeveloperPage }) {
  const support = developer.supportEmail || developer.supportUrl;
  const data = {
    "@context": "https://schema.org",
    "@type": "Organization",
    name: developer.name,
    url: absoluteUrl(paths.developer(developer.id)),
    ...(developer.bio ? { description: developer.bio } : {}),
    ...(developer.website ? { sameAs: [developer.website] } : {}),
    ...(support
      ? {
          contactPoint: {
            "@type": "ContactPoint",
            contactType: "customer support",
            ...(developer.supportEmail ? { email: developer.supportEmail } : {}),
            ...(developer.supportUrl ? { url: developer.supportUrl } : {}),
          },
        }
      : {}),
    ...(developer.rating.count > 0
      ? {
          aggregateRating: {
            "@type": "AggregateRating",
            ratingValue: developer.rating.average.toFixed(1),
            ratingCount: developer.rating.count,
            bestRating: 5,
            worstRating: 1,
          },
        }
      : {}),
  };
  // Escape "<" so no string in the data can close the script element.
  const json = JSON.stringify(data).replace(/</g, "\\u003c");
  return <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: json }} />;
}
