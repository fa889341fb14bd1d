import type { ProductDetails } from "@/lib/marketplace/schemas";
import { minorToDecimal } from "@/lib/pricing";

/** schema.org Product markup for search engines and agents. */
export function ProductJsonLd({ product, available }: { product: ProductDetails; available: boolean }) {
  const data = {
    "@context": "https://schema.org",
    "@type": "Product",
    name: product.name,
    description: product.description || product.tagline,
    image: [product.icon_url, ...product.images],
    sku: product.plugin_id,
    category: product.category,
    url: product.product_page,
    brand: { "@type": "Brand", name: product.developer },
    manufacturer: {
      "@type": "Organization",
      name: product.developer,
      ...(product.developer_info.website ? { url: product.developer_info.website } : {}),
    },
    offers: {
      "@type": "Offer",
      price: minorToDecimal(product.price_cents, product.currency),
      priceCurrency: product.currency.toUpperCase(),
      // Not for sale while this deployment has no way to take payment (see lib/payments/provider.ts).
      availability: available ? "https://schema.org/InStock" : "https://schema.org/OutOfStock",
      url: product.product_page,
    },
  };
  // Escape "<" so no string in the data can close the script element.
  const json = JSON.stringify(data).replace(/</g, "\\u003c");
  return <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: json }} />;
}
