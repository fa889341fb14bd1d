import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { paths } from "../urls.ts";

export type Download = { kind: "redirect"; url: string } | { kind: "file"; filename: string; body: string };

/**
 * Where a product's download lives. Sellers host their builds and give an absolute URL; the demo catalogue's
 * products point here, and get a small read-me file in place of a real installer.
 */
export async function getDownload(productId: string): Promise<Download> {
  const product = await getDb().product.findFirst({
    where: { id: productId, status: "active" },
    select: { id: true, name: true, downloadUrl: true, pluginId: true, developer: { select: { name: true } } },
  });
  if (!product) throw notFound("product", `No listed product has the id "${productId}".`);
  if (product.downloadUrl !== paths.download(product.id)) return { kind: "redirect", url: product.downloadUrl };
  return {
    kind: "file",
    filename: `${product.id}-README.txt`,
    body: [
      `${product.name} by ${product.developer.name}`,
      "",
      "This listing is part of the demo catalogue, so there is no installer behind it.",
      "A real listing links to the seller's own build here.",
      "",
      `The licensed app identifies itself with plugin_id "${product.pluginId}" when it calls /activate and /validate.`,
      "",
    ].join("\n"),
  };
}
