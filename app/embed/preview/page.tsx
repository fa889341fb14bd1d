import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { EmbedChrome } from "@/components/embed/embed-chrome";
import { buyButtonVersion } from "@/lib/embed/buy-button-script";
import { env } from "@/lib/env";
import { getProduct } from "@/lib/marketplace/get-product";
import { productIdSchema } from "@/lib/marketplace/schemas";
import { paths } from "@/lib/urls";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Buy button preview", robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };
const one = (v: string | string[] | undefined) => (typeof v === "string" ? v : undefined);

// What the page around the button sees of a purchase: the order id, as a seller's listener would.
const LISTENER = `document.addEventListener("ilm:purchase", function (e) { var o = document.getElementById("ilm-preview-outcome"); if (o) o.textContent = "Purchase reported: order " + e.detail.order_id; });`;

/**
 * The dashboard's live preview of the buy button (framed by the dashboard; only our own pages may frame it): the
 * seller's snippet as it runs on a site, the real script and the real overlay, on our own origin.
 */
export default async function BuyButtonPreviewPage({ searchParams }: Props) {
  const query = await searchParams;
  const productId = one(query.product);
  if (!productId || !productIdSchema.safeParse(productId).success) notFound();
  let product;
  try {
    product = await getProduct(productId);
  } catch {
    notFound();
  }
  const quantity = one(query.quantity);
  const coupon = one(query.coupon);
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  const base = new URL(env().BASE_URL).origin;
  return (
    <div className="p-6">
      <EmbedChrome />
      <script src={`/buy-button.js?v=${buyButtonVersion(base)}`} defer nonce={nonce} />
      <script nonce={nonce} dangerouslySetInnerHTML={{ __html: LISTENER }} />
      <h1 className="text-sm font-normal text-slate-600">Your page, with the button:</h1>
      <a
        href={paths.product(product.id)}
        data-ilm-product={product.id}
        {...(quantity && /^\d{1,3}$/.test(quantity) ? { "data-ilm-quantity": quantity } : {})}
        {...(coupon ? { "data-ilm-coupon": coupon.slice(0, 32) } : {})}
        className="mt-3 inline-block rounded-lg bg-indigo-600 px-4 py-2.5 font-semibold text-white"
      >
        Buy {product.name}
      </a>
      <p id="ilm-preview-outcome" role="status" className="mt-3 text-sm text-slate-700" />
    </div>
  );
}
