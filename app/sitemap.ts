import type { MetadataRoute } from "next";
import { getDb } from "@/lib/db";
import { CATEGORIES } from "@/lib/marketplace/constants";
import { absoluteUrl, paths } from "@/lib/urls";

export const dynamic = "force-dynamic";

export default async function sitemap(): Promise<MetadataRoute.Sitemap> {
  const products = await getDb().product.findMany({ where: { status: "active" }, select: { id: true, updatedAt: true } });
  // Developers with at least one listed product: the others have no public page.
  const developers = await getDb().developer.findMany({ where: { products: { some: { status: "active" } } }, select: { id: true, updatedAt: true } });
  return [
    { url: absoluteUrl("/"), changeFrequency: "daily", priority: 1 },
    { url: absoluteUrl("/agents"), changeFrequency: "monthly", priority: 0.6 },
    ...[paths.termsPage, paths.refundsPage, paths.privacyPage, paths.contactPage].map((p) => ({
      url: absoluteUrl(p),
      changeFrequency: "monthly" as const,
      priority: 0.3,
    })),
    ...CATEGORIES.map((c) => ({ url: absoluteUrl(`/?category=${c}`), changeFrequency: "daily" as const, priority: 0.7 })),
    ...products.map((p) => ({ url: absoluteUrl(paths.product(p.id)), lastModified: p.updatedAt, changeFrequency: "weekly" as const, priority: 0.8 })),
    ...developers.map((d) => ({
      url: absoluteUrl(paths.developer(d.id)),
      lastModified: d.updatedAt,
      changeFrequency: "weekly" as const,
      priority: 0.6,
    })),
  ];
}
