import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache, type ReactNode } from "react";
import { buyErrorMessage } from "@/lib/checkout/buy-errors";
import { AppError } from "@/lib/http/errors";
import { CATEGORY_LABELS } from "@/lib/marketplace/constants";
import { getProduct } from "@/lib/marketplace/get-product";
import { productIdSchema, type ProductDetails } from "@/lib/marketplace/schemas";
import { checkoutConfigured } from "@/lib/payments/provider";
import { BuyOptions } from "@/components/checkout/buy-options";
import { browseHref } from "@/components/store/browse-query";
import { platformLabel, plural, seatModelLabel } from "@/components/store/labels";
import { PlatformBadges } from "@/components/store/platform-badges";
import { ProductJsonLd } from "@/components/store/product-json-ld";
import { Badge } from "@/components/ui/badge";
import { buttonPrimary, buttonSecondary, card, container, focusRing, inputBase, textLink } from "@/components/ui/styles";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * The Buy form's refusal, sent back by /checkout/start as ?buy_error=<code>&email=…: only known codes show a
 * message (lib/checkout/buy-errors.ts), so a crafted link cannot put words on the page. The e-mail is plain
 * text, length-capped, and only refills the input.
 */
function buyFormState(query: Record<string, string | string[] | undefined>): {
  error: string | null;
  email: string;
  coupon: string;
  quantity: string;
} {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? "";
  const clean = (v: string, max: number) =>
    v
      // eslint-disable-next-line no-control-regex -- stripping control characters is the point
      .replace(/[\u0000-\u001f\u007f]/g, " ")
      .trim()
      .slice(0, max);
  const quantity = clean(first(query.quantity), 3);
  return {
    error: buyErrorMessage(first(query.buy_error)),
    email: clean(first(query.email), 254),
    coupon: clean(first(query.coupon), 32),
    quantity: /^\d{1,3}$/.test(quantity) ? quantity : "",
  };
}

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
  return {
    title: product.name,
    description: product.tagline,
    alternates: { canonical: product.product_page },
    openGraph: {
      type: "website",
      siteName: "Indie License Market",
      title: product.name,
      description: product.tagline,
      url: product.product_page,
      images: [{ url: product.icon_url, width: 128, height: 128, alt: `${product.name} icon` }],
    },
    twitter: { card: "summary", title: product.name, description: product.tagline, images: [product.icon_url] },
  };
}

function paragraphs(text: string): string[] {
  return text
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.trim())
    .filter(Boolean);
}

function joinList(items: readonly string[]): string {
  return items.join(", ");
}

function Spec({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 px-5 py-4 sm:grid-cols-3 sm:gap-4">
      <dt className="text-sm font-medium text-slate-600">{term}</dt>
      <dd className="text-sm text-slate-900 sm:col-span-2">{children}</dd>
    </div>
  );
}

export default async function ProductPage({ params, searchParams }: Props) {
  const product = await loadProduct((await params).id);
  const buy = buyFormState(await searchParams);
  // No payment provider (production without Stripe or PAYMENTS=test): say so instead of offering a Buy button.
  const canBuy = checkoutConfigured();
  const dev = product.developer_info;
  const trial = product.pricing.trial_available && product.pricing.trial_days > 0;
  const seats = `${seatModelLabel(product.seat_model)} · up to ${plural(product.max_machines, "machine")}`;

  return (
    <>
      <ProductJsonLd product={product} available={canBuy} />

      <div className="border-b border-slate-200 bg-white">
        <div className={`${container} py-8 sm:py-10`}>
          <nav aria-label="Breadcrumb" className="text-sm text-slate-600">
            <ol className="flex flex-wrap items-center gap-x-2 gap-y-1">
              <li>
                <Link href="/" className={`rounded-sm hover:text-slate-900 hover:underline ${focusRing}`}>
                  Browse
                </Link>
              </li>
              <li aria-hidden="true">/</li>
              <li>
                <Link href={browseHref({ category: product.category })} className={`rounded-sm hover:text-slate-900 hover:underline ${focusRing}`}>
                  {CATEGORY_LABELS[product.category]}
                </Link>
              </li>
              <li aria-hidden="true">/</li>
              <li aria-current="page" className="font-medium text-slate-900">
                {product.name}
              </li>
            </ol>
          </nav>

          <div className="mt-6 flex flex-col gap-5 sm:flex-row sm:items-start">
            {/* eslint-disable-next-line @next/next/no-img-element -- static SVG icon */}
            <img
              src={product.icon_url}
              alt={`${product.name} icon`}
              width={96}
              height={96}
              className="size-20 shrink-0 rounded-2xl shadow-sm sm:size-24"
            />
            <div className="min-w-0 flex-1">
              <h1 className="text-3xl font-semibold tracking-tight text-balance text-slate-900 sm:text-4xl">{product.name}</h1>
              <p className="mt-2 max-w-3xl text-lg text-pretty text-slate-600">{product.tagline}</p>
              <p className="mt-3 text-sm text-slate-700">
                by <span className="font-semibold text-slate-900">{product.developer}</span>
                <span aria-hidden="true" className="mx-2 text-slate-400">
                  ·
                </span>
                <Link href={browseHref({ developer: product.developer_id })} className={textLink}>
                  More from {product.developer}
                </Link>
              </p>
              <div className="mt-4 flex flex-wrap items-center gap-1.5">
                <PlatformBadges platforms={product.platforms} />
                {trial ? <Badge tone="success">Free trial · {product.pricing.trial_days} days</Badge> : null}
              </div>
            </div>
            <div className="flex items-center gap-3 sm:flex-col sm:items-end">
              <p className="text-3xl font-semibold text-slate-900">
                <span className="sr-only">Price: </span>
                {product.price_display}
              </p>
              {canBuy ? (
                <a href="#buy" className={buttonPrimary}>
                  Buy a license
                </a>
              ) : null}
            </div>
          </div>
        </div>
      </div>

      <div className={`${container} grid gap-10 py-10 lg:grid-cols-[minmax(0,1fr)_22rem]`}>
        <div className="min-w-0 space-y-12">
          <section aria-labelledby="about-heading">
            <h2 id="about-heading" className="text-xl font-semibold text-slate-900">
              About {product.name}
            </h2>
            <div className="mt-4 max-w-3xl space-y-4 text-base leading-7 text-slate-700">
              {paragraphs(product.description).map((p, i) => (
                <p key={i}>{p}</p>
              ))}
            </div>
          </section>

          {product.images.length > 0 ? (
            <section aria-labelledby="screens-heading">
              <h2 id="screens-heading" className="text-xl font-semibold text-slate-900">
                Screenshots
              </h2>
              <ul className={`mt-4 grid gap-4 ${product.images.length > 1 ? "xl:grid-cols-2" : ""}`}>
                {product.images.map((src, i) => (
                  <li key={src}>
                    <a href={src} className={`block overflow-hidden rounded-xl border border-slate-200 bg-slate-900 shadow-sm ${focusRing}`}>
                      {/* eslint-disable-next-line @next/next/no-img-element -- static SVG screenshot */}
                      <img
                        src={src}
                        alt={`${product.name} screenshot ${i + 1} of ${product.images.length}`}
                        width={1280}
                        height={800}
                        loading="lazy"
                        decoding="async"
                        className="h-auto w-full"
                      />
                    </a>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}

          <section aria-labelledby="specs-heading">
            <h2 id="specs-heading" className="text-xl font-semibold text-slate-900">
              Specifications
            </h2>
            <dl className={`${card} mt-4 divide-y divide-slate-200`}>
              <Spec term="Platforms">{joinList(product.platforms.map(platformLabel)) || "—"}</Spec>
              {product.compatibility.length > 0 ? <Spec term="Compatibility">{joinList(product.compatibility)}</Spec> : null}
              {product.inputs.length > 0 ? <Spec term="Inputs">{joinList(product.inputs)}</Spec> : null}
              {product.outputs.length > 0 ? <Spec term="Outputs">{joinList(product.outputs)}</Spec> : null}
              <Spec term="License">
                <span className="font-medium">{seats}</span>
                <span className="mt-1 block text-slate-600">{product.pricing.license}</span>
              </Spec>
              <Spec term="Free trial">{trial ? `Yes — ${plural(product.pricing.trial_days, "day")}` : "No trial"}</Spec>
              {product.min_version ? <Spec term="Minimum host version">{product.min_version}</Spec> : null}
              <Spec term="Category">
                <Link href={browseHref({ category: product.category })} className={textLink}>
                  {CATEGORY_LABELS[product.category]}
                </Link>
              </Spec>
              <Spec term="Plugin ID">
                <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[0.8125rem] break-all text-slate-800">{product.plugin_id}</code>
              </Spec>
              <Spec term="Download">
                <a href={product.download_url} className={textLink}>
                  Download {product.name}
                </a>
                {trial ? <span className="text-slate-600"> — try it free for {plural(product.pricing.trial_days, "day")}</span> : null}
              </Spec>
            </dl>
          </section>

          <section aria-labelledby="developer-heading">
            <h2 id="developer-heading" className="text-xl font-semibold text-slate-900">
              About the developer
            </h2>
            <div className={`${card} mt-4 p-5`}>
              <h3 className="text-base font-semibold text-slate-900">{dev.name}</h3>
              {dev.bio ? <p className="mt-2 text-sm leading-6 text-slate-700">{dev.bio}</p> : null}
              <div className="mt-4 flex flex-wrap gap-x-6 gap-y-2 text-sm">
                <Link href={browseHref({ developer: dev.id })} className={textLink}>
                  More from {dev.name} ({plural(dev.product_count, "product")})
                </Link>
                {dev.website ? (
                  <a href={dev.website} rel="noopener noreferrer nofollow" className={textLink}>
                    Website<span className="sr-only"> of {dev.name}</span>
                  </a>
                ) : null}
              </div>
            </div>
          </section>
        </div>

        <aside aria-label="Purchase" className="lg:sticky lg:top-6 lg:self-start">
          <section id="buy" aria-labelledby="buy-heading" className={`${card} scroll-mt-6 p-6`}>
            <h2 id="buy-heading" className="text-lg font-semibold text-slate-900">
              Buy {product.name}
            </h2>
            <p className="mt-3 text-3xl font-semibold text-slate-900">
              {product.price_display}
              <span className="ml-1.5 text-sm font-normal text-slate-600">one-time</span>
            </p>
            <p className="mt-3 text-sm leading-6 text-slate-700">{product.pricing.license}</p>
            {canBuy ? (
              <form method="post" action={`/checkout/start`} className="mt-5 space-y-4">
                <input type="hidden" name="product_id" value={product.id} />
                {buy.error ? (
                  <div
                    id="buy_error"
                    role="alert"
                    className="rounded-lg border border-red-200 bg-red-50 px-3.5 py-3 text-sm leading-6 break-words text-red-800"
                  >
                    {buy.error}
                  </div>
                ) : null}
                <div>
                  <label htmlFor="buyer_email" className="block text-sm font-medium text-slate-800">
                    E-mail address
                  </label>
                  <input
                    id="buyer_email"
                    type="email"
                    name="buyer_email"
                    required
                    autoComplete="email"
                    inputMode="email"
                    placeholder="you@example.com"
                    defaultValue={buy.email || undefined}
                    aria-describedby={buy.error ? "buy_error buyer_email_hint" : "buyer_email_hint"}
                    className={`${inputBase} mt-1.5`}
                  />
                  <p id="buyer_email_hint" className="mt-1.5 text-xs text-slate-600">
                    Your license key is sent to this address.
                  </p>
                </div>
                <BuyOptions
                  productId={product.id}
                  perSeat={product.seat_model === "per-seat" || product.seat_model === "per-user"}
                  maxMachines={product.max_machines}
                  coupon={buy.coupon}
                  quantity={buy.quantity}
                  describedBy={buy.error ? "buy_error" : undefined}
                />
                <button type="submit" className={`${buttonPrimary} w-full py-3 text-base`}>
                  Buy
                </button>
              </form>
            ) : (
              <div
                id="checkout-not-configured"
                role="status"
                className="mt-5 rounded-lg border border-amber-200 bg-amber-50 px-3.5 py-3 text-sm leading-6 text-amber-900"
              >
                Checkout is not configured on this deployment, so licenses cannot be bought here yet.
              </div>
            )}
            {trial ? (
              <a href={product.download_url} className={`${buttonSecondary} mt-3 w-full`}>
                Download free trial ({product.pricing.trial_days} days)
              </a>
            ) : null}
            <ul className="mt-5 space-y-1.5 border-t border-slate-200 pt-4 text-xs text-slate-600">
              <li>Sold by {product.developer}</li>
              <li>Runs on {joinList(product.platforms.map(platformLabel))}</li>
            </ul>
          </section>
        </aside>
      </div>
    </>
  );
}
