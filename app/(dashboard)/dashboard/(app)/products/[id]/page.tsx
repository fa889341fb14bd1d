import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { currentSeller } from "@/lib/auth/next-session";
import { operatorHolds } from "@/lib/admin/seller-holds";
import { productToInput } from "@/lib/selling/products";
import { platformWarnings, productReadiness, releaseBuilds } from "@/lib/selling/publish";
import { CATEGORY_LABELS } from "@/lib/marketplace/constants";
import { toListingProduct } from "@/lib/marketplace/serialize";
import { formatPrice, platformFeeCents, PRICING } from "@/lib/pricing";
import { paths, productImagePaths } from "@/lib/urls";
import { formatDay } from "@/components/dashboard/format";
import { Notice } from "@/components/dashboard/notice";
import { PageHeader } from "@/components/dashboard/page-header";
import { ProductForm } from "@/components/dashboard/product-form";
import { ProductStatusBadge } from "@/components/dashboard/status-badge";
import { platformLabel, plural, seatModelLabel } from "@/components/store/labels";
import { ProductCard } from "@/components/store/product-card";
import { buttonPrimary, buttonSecondary, card, focusRing, textLink } from "@/components/ui/styles";
import { AppError } from "@/lib/http/errors";
import { pageSeller } from "../../../../_lib/seller";
import { findProduct } from "../../../../_lib/find-product";
import { OperatorHoldsNotice } from "../_operator-holds";
import { BundleSection } from "./_bundle-section";
import { MediaSection } from "./_media-section";
import { publishProductAction, setProductStatusAction, updateProductAction } from "../actions";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const seller = await currentSeller();
  const product = seller?.developer ? await findProduct(seller.developer.id, (await params).id) : null;
  return { title: product ? `Edit ${product.name}` : "Product not found", robots: { index: false } };
}

const firstOf = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

function Row({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    <div className="flex justify-between gap-4 py-2.5">
      <dt className="text-slate-600">{term}</dt>
      <dd className="text-right font-medium wrap-anywhere text-slate-900">{children}</dd>
    </div>
  );
}

/** What a draft still needs before it can be published (the publish operation's own check). */
async function publishGaps(product: Parameters<typeof productReadiness>[0]): Promise<Array<{ name: string; message: string }>> {
  try {
    return (await productReadiness(product)).missing;
  } catch (error) {
    // A suspended seller: the operator's holds notice above says why nothing can be published.
    if (error instanceof AppError) return [{ name: error.code, message: error.detail }];
    throw error;
  }
}

/** The seller's profile fields a paid listing needs (lib/selling/developer-profile.ts), as the publish check names them. */
const PROFILE_GAPS = new Set(["refund_policy", "support_email", "support_url"]);

export default async function EditProductPage({ params, searchParams }: Props) {
  const { developer } = await pageSeller();
  const product = await findProduct(developer.id, (await params).id);
  if (!product) notFound();
  const query = await searchParams;
  const input = productToInput(product);
  // Only this site's images are shown (lib/urls.ts); one saved at another site's address before images were stored is not.
  const shown = productImagePaths(input.images);
  const hidden = input.images.length - shown.length;
  const listing = toListingProduct({ ...product, developer: { id: developer.id, name: developer.name } });
  const listed = product.status === "active";
  const storeHref = `/products/${encodeURIComponent(product.id)}`;
  const net = product.priceCents - platformFeeCents(product.priceCents);

  // Removed and suspended listings are the operator's to restore; the notice below says why.
  const held = product.status === "removed" || product.status === "suspended";
  const holds = await operatorHolds(developer.id);
  const draft = product.status === "draft";
  const previewHref = `/products/${encodeURIComponent(product.id)}/preview`;
  // What publishing still needs (a draft), and the listed platforms no published release has a file for.
  const missing = draft ? await publishGaps(product) : [];
  const warnings = platformWarnings(input.platforms, await releaseBuilds(product.id));
  const statusButton = held ? null : draft ? (
    <form action={publishProductAction.bind(null, product.id, "edit")}>
      <button type="submit" className={buttonPrimary}>
        Publish
      </button>
    </form>
  ) : (
    <form action={setProductStatusAction.bind(null, product.id, listed ? "unlisted" : "active", "edit")}>
      <button type="submit" className={buttonSecondary}>
        {listed ? "Unlist" : "Relist"}
      </button>
    </form>
  );

  return (
    <>
      <Notice searchParams={query} />
      <OperatorHoldsNotice holds={holds} productId={product.id} />
      <PageHeader
        eyebrow={
          <Link href="/dashboard/products" className={`rounded-sm hover:text-slate-900 hover:underline ${focusRing}`}>
            <span aria-hidden="true">← </span>Products
          </Link>
        }
        title={product.name}
        description={
          <span className="flex flex-wrap items-center gap-2 text-sm">
            <ProductStatusBadge status={product.status} />
            <span>
              {listed
                ? "Listed in the store, the catalog API and the MCP tools."
                : draft
                  ? "Draft: not listed yet. Buyers, the API and agents cannot see it until you publish it."
                  : "Unlisted: hidden from the store, the API and checkout. Existing licenses keep working."}
            </span>
          </span>
        }
        actions={
          <>
            <Link href={`/dashboard/products/${encodeURIComponent(product.id)}/releases`} className={buttonSecondary}>
              Releases
            </Link>
            {listed ? (
              <a href={storeHref} className={buttonSecondary}>
                View in store
              </a>
            ) : (
              <a href={previewHref} className={buttonSecondary}>
                Preview
              </a>
            )}
            {statusButton}
          </>
        }
      />
      {missing.length > 0 || warnings.length > 0 ? (
        <section
          id="publish-check-section"
          aria-labelledby="publish-check-heading"
          className="mt-6 rounded-xl border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900"
        >
          <h2 id="publish-check-heading" className="font-semibold">
            {missing.length > 0 ? "Before you can publish" : "Builds"}
          </h2>
          <ul id="publish-check" className="mt-1.5 list-disc space-y-1 pl-5">
            {missing.map((m) => (
              <li key={m.name}>Missing: {m.message}</li>
            ))}
            {warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
          {missing.some((m) => PROFILE_GAPS.has(m.name)) ? (
            <p className="mt-2">
              <Link href={paths.profileSupport} className={textLink}>
                Add them to your profile
              </Link>
            </p>
          ) : null}
          {missing.some((m) => m.name === "payout_account") ? (
            <p className="mt-2">
              <Link href="/dashboard/payouts" className={textLink}>
                Set up payouts
              </Link>
            </p>
          ) : null}
        </section>
      ) : null}

      <div className="mt-8 grid gap-8 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="min-w-0">
          <h2 className="sr-only">Edit the product</h2>
          <ProductForm action={updateProductAction.bind(null, product.id)} initial={input} submitLabel="Save changes" hasCurrentIcon />
          <BundleSection developerId={developer.id} product={product} notice={{ code: firstOf(query.bundle), item: firstOf(query.bundle_item) }} />
          <MediaSection developerId={developer.id} productId={product.id} notice={firstOf(query.media)} />
        </div>

        <aside aria-labelledby="preview-heading" className="space-y-4 lg:sticky lg:top-6 lg:self-start">
          <h2 id="preview-heading" className="text-base font-semibold text-slate-900">
            Preview <span className="font-normal text-slate-600">(as saved)</span>
          </h2>
          {listed ? (
            <ProductCard product={listing} />
          ) : (
            <div inert className="opacity-90">
              <ProductCard product={listing} />
            </div>
          )}
          <div className={`${card} p-5`}>
            <h3 className="text-sm font-semibold text-slate-900">Summary</h3>
            <dl className="mt-2 divide-y divide-slate-100 text-sm">
              <Row term="Price">{formatPrice(product.priceCents, product.currency)}</Row>
              <Row term="You receive">
                {formatPrice(net, product.currency)}{" "}
                <span className="font-normal text-slate-600">after the {PRICING.transaction_fee_percent}% fee</span>
              </Row>
              <Row term="License">
                {seatModelLabel(product.seatModel)}, {plural(product.maxMachines, "machine")}
              </Row>
              <Row term="Free trial">{product.trialAvailable ? plural(product.trialDays, "day") : "No"}</Row>
              <Row term="Platforms">{input.platforms.map(platformLabel).join(", ") || "—"}</Row>
              <Row term="Updates">
                {input.update_policy === "days"
                  ? `${plural(input.update_days ?? 0, "day")} after purchase`
                  : input.update_policy === "major"
                    ? "Same major version"
                    : "Every release"}
              </Row>
              <Row term="Category">{(CATEGORY_LABELS as Partial<Record<string, string>>)[input.category] ?? input.category}</Row>
              <Row term="Plugin ID">
                <code className="font-mono text-[0.8125rem]">{product.pluginId}</code>
              </Row>
              <Row term="Sales">{product.salesCount.toLocaleString("en-US")}</Row>
              <Row term="Created">{formatDay(product.createdAt)}</Row>
            </dl>
          </div>
          {input.images.length > 0 ? (
            <div className={`${card} p-5`}>
              <h3 className="text-sm font-semibold text-slate-900">Screenshots</h3>
              <ul className="mt-3 grid grid-cols-2 gap-2">
                {shown.map((src, i) => (
                  <li key={src}>
                    {/* eslint-disable-next-line @next/next/no-img-element -- an upload or a bundled screenshot: this site's only */}
                    <img
                      src={src}
                      alt={`Screenshot ${i + 1} of ${shown.length}`}
                      className="aspect-[16/10] w-full rounded-lg border border-slate-200 bg-slate-100 object-cover"
                    />
                  </li>
                ))}
              </ul>
              {hidden > 0 ? (
                <p className="mt-3 text-sm text-slate-600">
                  {hidden === 1 ? "One screenshot is" : `${hidden} screenshots are`} at another site&apos;s address and not shown in the store: save
                  the product to have {hidden === 1 ? "it" : "them"} fetched and stored here.
                </p>
              ) : null}
            </div>
          ) : null}
        </aside>
      </div>
    </>
  );
}
