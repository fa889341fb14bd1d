import Link from "next/link";
import type { CheckoutView } from "./load-checkout";
import { checkoutPaths } from "./load-checkout";
import { textLink } from "@/components/ui/styles";
import { productIconPath } from "@/lib/urls";

type Product = CheckoutView["product"];

/** The product being bought: icon, name, developer and, optionally, its tagline and a link to its page. */
export function ProductSummary({
  product,
  showTagline = true,
  linkName = false,
  size = "md",
}: {
  product: Product;
  showTagline?: boolean;
  linkName?: boolean;
  size?: "md" | "lg";
}) {
  const icon = size === "lg" ? "size-16 sm:size-20 rounded-2xl" : "size-14 rounded-xl";
  return (
    <div className="flex items-start gap-4">
      {/* eslint-disable-next-line @next/next/no-img-element -- an upload or a bundled icon: this site's only */}
      <img src={productIconPath(product.iconUrl)} alt="" width={80} height={80} className={`${icon} shrink-0 shadow-sm`} />
      <div className="min-w-0">
        <p className={`${size === "lg" ? "text-xl" : "text-base"} leading-snug font-semibold text-balance break-words text-slate-900`}>
          {linkName ? (
            <Link href={checkoutPaths.product(product.id)} className={textLink}>
              {product.name}
            </Link>
          ) : (
            product.name
          )}
        </p>
        <p className="mt-0.5 text-sm text-slate-600">by {product.developer}</p>
        {showTagline && product.tagline ? <p className="mt-2 text-sm leading-6 text-pretty text-slate-700">{product.tagline}</p> : null}
      </div>
    </div>
  );
}
