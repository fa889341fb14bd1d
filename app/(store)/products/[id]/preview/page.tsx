import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { currentSeller } from "@/lib/auth/next-session";
import { AppError } from "@/lib/http/errors";
import { getProduct } from "@/lib/marketplace/get-product";
import { productIdSchema } from "@/lib/marketplace/schemas";
import { ProductView } from "../_product-view";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export const metadata: Metadata = { title: "Preview", robots: { index: false, follow: false } };

/**
 * The owner's preview of a product, listed or not: the store's page as buyers will see it, under a banner, with the
 * Buy button disabled. Anyone else (another seller, a visitor) gets the 404 of an unknown id (server.ts answers it
 * before this page through lib/transports/page-guards.ts; the check here holds without it).
 */
export default async function ProductPreviewPage({ params, searchParams }: Props) {
  const id = (await params).id;
  const seller = await currentSeller();
  if (!seller?.developer || !productIdSchema.safeParse(id).success) notFound();
  let product;
  try {
    product = await getProduct(id, { ownerId: seller.developer.id });
  } catch (error) {
    if (error instanceof AppError && error.status === 404) notFound();
    throw error;
  }
  return <ProductView product={product} query={await searchParams} preview />;
}
