import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { AppError } from "@/lib/http/errors";
import { getProduct } from "@/lib/marketplace/get-product";
import { productIdSchema, type ProductDetails } from "@/lib/marketplace/schemas";
import { coversOf } from "@/lib/media/read";
import { absoluteUrl } from "@/lib/urls";
import { SERVICE_NAME } from "@/lib/versions";
import { ProductView } from "./_product-view";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

// The page itself is ProductView (./_product-view.tsx), which the owner's preview (./preview/page.tsx) renders too.

function isNotFound(error: unknown): boolean {
  return error instanceof AppError ? error.status === 404 : (error as { status?: unknown } | null)?.status === 404;
}

/** One database read per request, shared by generateMetadata and the page. Unknown or unlisted → the 404 page. */
async function loadProduct(id: string): Promise<ProductDetails> {
  return (await findProduct(id)) ?? notFound();
}

/** The product, or null when it does not exist; generateMetadata must not throw notFound() (the 404 page would lose its HTML). */
const findProduct = cache(async (id: string): Promise<ProductDetails | null> => {
  if (!productIdSchema.safeParse(id).success) return null;
  try {
    return await getProduct(id);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const product = await findProduct((await params).id);
  if (!product) return { title: "Product not found", robots: { index: false } };
  // A link shared in a chat or a post shows the cover, wide, when the product has one (JPEG, PNG or WebP: what
  // previews render); otherwise the icon, small.
  const cover = (await coversOf([product.id])).get(product.id);
  const image = cover
    ? { url: absoluteUrl(cover.url), width: cover.width ?? undefined, height: cover.height ?? undefined, alt: cover.alt || `${product.name} cover` }
    : { url: product.icon_url, width: 128, height: 128, alt: `${product.name} icon` };
  return {
    title: product.name,
    description: product.tagline,
    alternates: { canonical: product.product_page },
    openGraph: {
      type: "website",
      siteName: SERVICE_NAME,
      title: product.name,
      description: product.tagline,
      url: product.product_page,
      images: [image],
    },
    twitter: {
      card: cover ? "summary_large_image" : "summary",
      title: product.name,
      description: product.tagline,
      images: [{ url: image.url, alt: image.alt }],
    },
  };
}

export default async function ProductPage({ params, searchParams }: Props) {
  const product = await loadProduct((await params).id);
  return <ProductView product={product} query={await searchParams} />;
}
