import { cookies } from "next/headers";
import Link from "next/link";
import type { ReactNode } from "react";
import { buyErrorMessage } from "@/lib/checkout/buy-errors";
import { BUY_REFILL_COOKIE, readBuyRefill } from "@/lib/checkout/buy-refill";
import { CATEGORY_LABELS } from "@/lib/marketplace/constants";
import type { ProductDetails } from "@/lib/marketplace/schemas";
import { checkoutConfigured } from "@/lib/payments/provider";
import { publishedReleases, releaseView, type ReleaseView } from "@/lib/releases/read";
import { paths, productIconPath, productImagePaths } from "@/lib/urls";
import { BuyOptions } from "@/components/checkout/buy-options";
import { SEAT_PRICED } from "@/lib/checkout/quote-checkout";
import { browseHref } from "@/components/store/browse-query";
import { platformLabel, plural, seatModelLabel } from "@/components/store/labels";
import { PlatformBadges } from "@/components/store/platform-badges";
import { ProductJsonLd } from "@/components/store/product-json-ld";
import { ProductReviews, reviewsPageOf } from "@/components/store/product-reviews";
import { RatingStars } from "@/components/store/rating-stars";
import { DemoLinks } from "@/components/store/demo-links";
import { ProductTrust, TrustLink } from "@/components/store/product-trust";
import { ReleaseChangelog } from "@/components/store/release-changelog";
import { formatLabel, releaseFormats } from "@/components/store/release-labels";
import { ScreenshotGallery } from "@/components/store/screenshot-gallery";
import { MediaDemos, MediaGallery, ProductCover } from "@/components/store/product-media";
import { productMediaSet } from "@/lib/media/read";
import { StickyBuyBar } from "@/components/store/sticky-buy-bar";
import { hasTrialOutcome, TrialForm, TrialOutcome } from "@/components/store/trial-form";
import { Badge } from "@/components/ui/badge";
import { formatDay } from "@/lib/format";
import { formatPrice } from "@/lib/pricing";
import { upgradesInto } from "@/lib/upgrades/offers-for-buyers";
import { ProductUpgradePaths, upgradeErrorMessage } from "@/components/upgrades/product-upgrade-paths";
import { describePlan } from "@/lib/subscriptions/plans";
import { buttonPrimary, buttonSecondary, card, container, focusRing, inputBase, textLink } from "@/components/ui/styles";

/**
 * The Buy form's refusal, sent back by /checkout/start as ?buy_error=<code>: only known codes show a message
 * (lib/checkout/buy-errors.ts), so a crafted link cannot put words on the page. The e-mail address comes from the
 * short-lived cookie /checkout/start set for this page (never the URL), is plain text, and only refills the input.
 */
function buyFormState(
  query: Record<string, string | string[] | undefined>,
  refillCookie: string | undefined,
): {
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
  const error = buyErrorMessage(first(query.buy_error));
  return {
    error,
    email: error ? readBuyRefill(refillCookie) : "",
    coupon: clean(first(query.coupon), 32),
    quantity: /^\d{1,3}$/.test(quantity) ? quantity : "",
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

/** What a license's updates cover, in the buyer's words. */
function updatePolicyText(product: ProductDetails): string {
  switch (product.update_policy) {
    case "days":
      return `Updates released within ${plural(product.update_days ?? 0, "day")} of your purchase.`;
    case "major":
      return "Updates within the major version you buy (a new major version needs a new license).";
    default:
      return "Every future release.";
  }
}

/** A bundle's included products, each linked to its page: what one purchase licenses. */
function BundleContents({ bundle }: { bundle: NonNullable<ProductDetails["bundle"]> }) {
  return (
    <div className="mt-4 rounded-lg bg-slate-50 px-3.5 py-3 text-sm text-slate-700" data-testid="bundle-contents">
      <h3 className="font-medium text-slate-900">Includes {plural(bundle.items.length, "product")}</h3>
      <ul className="mt-1.5 list-disc space-y-1 pl-5">
        {bundle.items.map((item) => (
          <li key={item.id}>
            <Link href={paths.product(item.id)} className={textLink}>
              {item.name}
            </Link>{" "}
            <span className="text-slate-600">({plural(item.max_machines, "machine")} per seat)</span>
          </li>
        ))}
      </ul>
      <p className="mt-2 text-xs leading-5 text-slate-600">
        One license per product, each with its own key and machines, all listed together in My licenses.
        {bundle.prorate ? " Already own some of them? Enter your e-mail address: you pay only for the rest." : ""}
      </p>
    </div>
  );
}

function Spec({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 px-5 py-4 sm:grid-cols-3 sm:gap-4">
      <dt className="text-sm font-medium text-slate-600">{term}</dt>
      <dd className="text-sm text-slate-900 sm:col-span-2">{children}</dd>
    </div>
  );
}

type Query = Record<string, string | string[] | undefined>;

/**
 * The product page as buyers see it: the store's page (/products/<id>) and its owner's preview of an unlisted or draft
 * product (/products/<id>/preview: a banner above, the Buy button disabled, nothing that writes or counts).
 */
export async function ProductView({ product, query, preview = false }: { product: ProductDetails; query: Query; preview?: boolean }) {
  const buy = buyFormState(query, (await cookies()).get(BUY_REFILL_COOKIE)?.value);
  const releases: ReleaseView[] = (await publishedReleases(product.id)).map((r) => releaseView(r));
  const latest = product.latest_version;
  // Formats as badges: those of the release the page calls latest (else the newest one listed).
  const formats = releaseFormats((releases.find((r) => r.version === latest?.version) ?? releases[0])?.artifacts ?? []);
  // No payment provider (production without Stripe or PAYMENTS=test): say so instead of offering a Buy button.
  const canBuy = checkoutConfigured();
  // The upgrade paths into this product, for buyers of another one of the seller's (they prove it with their key).
  const upgradePaths = canBuy && !preview ? await upgradesInto(product.id) : [];
  // Uploaded cover, screenshots and demos (lib/media).
  const media = await productMediaSet(product.id);
  const upgradeError = upgradeErrorMessage(String(query.upgrade_error ?? ""));
  const dev = product.developer_info;
  const trial = product.pricing.trial_available && product.pricing.trial_days > 0;
  // The trial route's answer (?trial=sent | invalid | limited | unavailable), worded under the address it is about.
  const trialOutcome = String(query.trial ?? "");
  const trialSaid = trial && hasTrialOutcome(trialOutcome);
  const plan = product.subscription;
  const seats = `${seatModelLabel(product.seat_model)} · up to ${plural(product.max_machines, "machine")}`;

  return (
    <>
      {preview ? (
        <div
          role="status"
          id="preview-banner"
          className="border-b border-amber-300 bg-amber-50 px-4 py-3 text-center text-sm font-medium text-amber-900"
        >
          Preview: not listed yet. This is the page as buyers will see it once the product is published.
        </div>
      ) : (
        <ProductJsonLd product={product} available={canBuy} media={[media.cover, ...media.images].flatMap((m) => (m ? [m.url] : []))} />
      )}

      <div className="border-b border-slate-200 bg-white">
        <div className={`${container} py-5 sm:py-10`}>
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

          {/* On phones the icon sits beside the name and the price takes its own line, so the Buy box comes sooner. */}
          <div className="mt-4 flex flex-wrap items-start gap-4 sm:mt-6 sm:flex-nowrap sm:gap-5">
            {/* eslint-disable-next-line @next/next/no-img-element -- an upload or a bundled icon: always this site's */}
            <img
              src={productIconPath(product.icon_url)}
              alt={`${product.name} icon`}
              width={96}
              height={96}
              className="size-14 shrink-0 rounded-xl shadow-sm sm:size-24 sm:rounded-2xl"
            />
            <div className="min-w-0 flex-1">
              <h1 className="text-2xl font-semibold tracking-tight text-balance break-words text-slate-900 sm:text-4xl">{product.name}</h1>
              {latest ? (
                <p id="latest-version" className="mt-1.5 text-sm text-slate-600">
                  Version <span className="font-semibold text-slate-900">{latest.version}</span>
                  <span aria-hidden="true" className="mx-1.5 text-slate-400">
                    ·
                  </span>
                  released <time dateTime={latest.published_at}>{formatDay(latest.published_at)}</time>
                  <span aria-hidden="true" className="mx-1.5 text-slate-400">
                    ·
                  </span>
                  <a href="#changelog" className={textLink}>
                    What&apos;s new
                  </a>
                </p>
              ) : null}
              <p className="mt-2 max-w-3xl text-base text-pretty text-slate-600 sm:text-lg">{product.tagline}</p>
              {product.rating.count > 0 ? (
                <p className="mt-2">
                  <a href="#reviews" className={`inline-flex rounded-sm hover:underline ${focusRing}`}>
                    <RatingStars average={product.rating.average} count={product.rating.count} />
                  </a>
                </p>
              ) : null}
              <p className="mt-3 text-sm text-slate-700">
                by <span className="font-semibold text-slate-900">{product.developer}</span>
                <span aria-hidden="true" className="mx-2 text-slate-400">
                  ·
                </span>
                <Link href={paths.developer(product.developer_id)} className={textLink}>
                  More from {product.developer}
                </Link>
              </p>
              <div className="mt-4 flex flex-wrap items-center gap-1.5">
                <PlatformBadges platforms={product.platforms} />
                {formats.length > 0 ? (
                  <ul aria-label="Plugin formats" className="flex flex-wrap gap-1.5">
                    {formats.map((f) => (
                      <li key={f}>
                        <Badge tone="accent">{formatLabel(f)}</Badge>
                      </li>
                    ))}
                  </ul>
                ) : null}
                {trial ? <Badge tone="success">Free trial · {product.pricing.trial_days} days</Badge> : null}
              </div>
            </div>
            <div className="flex w-full flex-wrap items-center gap-3 sm:w-auto sm:flex-col sm:items-end">
              <p className="text-2xl font-semibold text-slate-900 sm:text-3xl">
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

      {/* The Buy box comes first (right after the title on phones, for the eye and for screen readers alike) and
          stands beside the description from lg up. */}
      <div className={`${container} grid gap-10 py-6 sm:py-10 lg:grid-cols-[minmax(0,1fr)_22rem]`}>
        <aside aria-label="Purchase" className="lg:sticky lg:top-6 lg:col-start-2 lg:row-start-1 lg:self-start">
          <section id="buy" aria-labelledby="buy-heading" className={`${card} scroll-mt-6 p-6`}>
            <h2 id="buy-heading" className="text-lg font-semibold text-slate-900">
              Buy {product.name}
            </h2>
            <p className="mt-3 text-3xl font-semibold text-slate-900">
              {product.price_display}
              <span className="ml-1.5 text-sm font-normal text-slate-600">
                {plan ? (plan.intervals[0] === "month" ? "a month" : "a year") : "one-time"}
              </span>
            </p>
            {plan ? <SubscriptionTerms product={product} plan={plan} /> : null}
            <p className="mt-3 text-sm leading-6 text-slate-700">{product.pricing.license}</p>
            {product.bundle ? <BundleContents bundle={product.bundle} /> : null}
            {canBuy ? (
              <form method="post" action={preview ? undefined : `/checkout/start`} className="mt-5 space-y-4">
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
                {/* With a trial, this one address serves both buttons (the trial's posts the same form to /trials/start):
                    the trial's outcome comes back here (#trial), under the field it is about. */}
                <div id={trial ? "trial" : undefined} className={trial ? "scroll-mt-24" : undefined}>
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
                    aria-describedby={[buy.error ? "buy_error" : "", "buyer_email_hint", trialSaid ? "trial_outcome" : ""].filter(Boolean).join(" ")}
                    className={`${inputBase} mt-1.5`}
                  />
                  <p id="buyer_email_hint" className="mt-1.5 text-xs text-slate-600">
                    {trial ? "Your license key, or your trial key, is sent to this address." : "Your license key is sent to this address."}
                  </p>
                  {trial ? <TrialOutcome outcome={trialOutcome} id="trial_outcome" /> : null}
                </div>
                {plan ? <IntervalChoice product={product} plan={plan} /> : null}
                <BuyOptions
                  productId={product.id}
                  bundleProrate={product.bundle?.prorate ?? false}
                  perSeat={SEAT_PRICED.has(product.seat_model)}
                  interval={plan ? plan.intervals[0] : null}
                  maxMachines={product.max_machines}
                  coupon={buy.coupon}
                  quantity={buy.quantity}
                  describedBy={buy.error ? "buy_error" : undefined}
                />
                <button
                  type="submit"
                  disabled={preview}
                  className={`${buttonPrimary} w-full py-3 text-base disabled:cursor-not-allowed disabled:opacity-60`}
                >
                  Buy
                </button>
                {trial ? (
                  <button
                    type="submit"
                    formAction={preview ? undefined : "/trials/start"}
                    disabled={preview}
                    className={`${buttonSecondary} w-full disabled:cursor-not-allowed disabled:opacity-60`}
                  >
                    Start a free {product.pricing.trial_days}-day trial
                  </button>
                ) : null}
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
            {trial && !canBuy ? (
              <TrialForm productId={product.id} days={product.pricing.trial_days} outcome={trialOutcome} preview={preview} />
            ) : null}
            <ul className="mt-5 space-y-1.5 border-t border-slate-200 pt-4 text-xs text-slate-600">
              <li>Sold by {product.developer}</li>
              <li>Runs on {joinList(product.platforms.map(platformLabel))}</li>
              <li>
                <TrustLink />
              </li>
            </ul>
          </section>
          <ProductUpgradePaths
            productId={product.id}
            productName={product.name}
            currency={product.currency}
            paths={upgradePaths}
            error={upgradeError}
          />
        </aside>
        <div className="min-w-0 space-y-12 lg:col-start-1 lg:row-start-1">
          {/* The cover leads the description: beside the Buy box from lg up, after it on phones, so the price, the
              Buy action and the e-mail field stay on the first screen at every width. */}
          {media.cover ? <ProductCover cover={media.cover} /> : null}
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

          {product.images.length > 0 || media.images.length > 0 ? (
            <section aria-labelledby="screens-heading">
              <h2 id="screens-heading" className="text-xl font-semibold text-slate-900">
                Screenshots
              </h2>
              <MediaGallery images={media.images} productName={product.name} />
              {product.images.length > 0 ? (
                <ScreenshotGallery
                  productName={product.name}
                  images={productImagePaths(product.images).map((src, i, all) => ({
                    src,
                    alt: `${product.name} screenshot ${i + 1} of ${all.length}`,
                  }))}
                />
              ) : null}
            </section>
          ) : null}

          {product.demo_links.length > 0 || media.audio.length > 0 || media.video.length > 0 ? (
            <section aria-labelledby="demos-heading">
              <h2 id="demos-heading" className="text-xl font-semibold text-slate-900">
                Demos
              </h2>
              <MediaDemos audio={media.audio} video={media.video} productName={product.name} />
              <DemoLinks links={product.demo_links} />
            </section>
          ) : null}

          {releases.length > 0 ? (
            <section id="changelog" aria-labelledby="changelog-heading" className="scroll-mt-6">
              <h2 id="changelog-heading" className="text-xl font-semibold text-slate-900">
                Changelog
              </h2>
              <p className="mt-1 text-sm text-slate-600">Every published version with its files. License holders download them from My licenses.</p>
              <ReleaseChangelog releases={releases} latestVersion={latest?.version ?? null} />
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
              {product.system_requirements ? (
                <Spec term="System requirements">
                  <span className="whitespace-pre-line">{product.system_requirements}</span>
                </Spec>
              ) : null}
              {formats.length > 0 ? <Spec term="Plugin formats">{joinList(formats.map(formatLabel))}</Spec> : null}
              {latest ? (
                <Spec term="Latest version">
                  {latest.version} · {formatDay(latest.published_at)}
                </Spec>
              ) : null}
              <Spec term="Updates">{updatePolicyText(product)}</Spec>
              <Spec term="Category">
                <Link href={browseHref({ category: product.category })} className={textLink}>
                  {CATEGORY_LABELS[product.category]}
                </Link>
              </Spec>
              <Spec term="Plugin ID">
                <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[0.8125rem] break-all text-slate-800">{product.plugin_id}</code>
              </Spec>
              <Spec term="Download">
                With a license, from your license e-mail or{" "}
                <Link href={paths.myLicenses} prefetch={false} className={textLink}>
                  My licenses
                </Link>
                {trial ? <span className="text-slate-600"> — or try it free for {plural(product.pricing.trial_days, "day")}</span> : null}
              </Spec>
            </dl>
          </section>

          <ProductTrust product={product} />

          <section aria-labelledby="developer-heading">
            <h2 id="developer-heading" className="text-xl font-semibold text-slate-900">
              About the developer
            </h2>
            <div className={`${card} mt-4 p-5`}>
              <h3 className="text-base font-semibold text-slate-900">{dev.name}</h3>
              {dev.bio ? <p className="mt-2 text-sm leading-6 text-slate-700">{dev.bio}</p> : null}
              <div className="mt-4 flex flex-wrap gap-x-6 gap-y-2 text-sm">
                <Link href={paths.developer(dev.id)} className={textLink}>
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

          {preview ? (
            <section aria-labelledby="reviews-heading">
              <h2 id="reviews-heading" className="text-xl font-semibold text-slate-900">
                Ratings and reviews
              </h2>
              <p className={`${card} mt-4 p-5 text-sm text-slate-700`}>Reviews from buyers show here once the product is listed.</p>
            </section>
          ) : (
            <ProductReviews productId={product.id} productName={product.name} developer={product.developer} page={reviewsPageOf(query)} />
          )}
        </div>
      </div>
      {canBuy && !preview ? <StickyBuyBar price={product.price_display} trialHref={trial ? "#trial" : null} /> : null}
    </>
  );
}

type Plan = NonNullable<ProductDetails["subscription"]>;

/** A subscription's terms in words: its prices, the free days, what happens when a payment fails, how to stop it. */
function SubscriptionTerms({ product, plan }: { product: ProductDetails; plan: Plan }) {
  const summary = describePlan(
    {
      pricingModel: "subscription",
      priceCents: product.price_cents,
      monthlyPriceCents: plan.monthly_price_cents,
      yearlyPriceCents: plan.yearly_price_cents,
      renewalPriceCents: null,
      currency: product.currency,
    },
    formatPrice,
  );
  return (
    <div id="subscription-terms" className="mt-3 space-y-1.5 text-sm leading-6 text-slate-700">
      <p>
        <strong className="font-medium text-slate-900">Subscription:</strong> {summary}, renewed automatically.
        {plan.trial_days > 0 ? ` The first ${plan.trial_days} days are free: nothing is charged until they end.` : ""}
      </p>
      <p>
        Cancel any time on My licenses: the license works until the end of the period you paid for. If a renewal payment fails it keeps working{" "}
        {plan.grace_days} more {plan.grace_days === 1 ? "day" : "days"} while you fix it.
      </p>
      {plan.fallback_after_months !== null ? (
        <p>
          After {plan.fallback_after_months} paid {plan.fallback_after_months === 1 ? "month" : "months"} you keep a perpetual license for the
          versions released while you paid, even if you cancel.
        </p>
      ) : null}
    </div>
  );
}

/** Monthly or yearly, when the product offers both; a hidden field when it offers one. */
function IntervalChoice({ product, plan }: { product: ProductDetails; plan: Plan }) {
  if (plan.intervals.length === 1) return <input type="hidden" name="interval" value={plan.intervals[0]} />;
  const price = (interval: "month" | "year") =>
    formatPrice((interval === "month" ? plan.monthly_price_cents : plan.yearly_price_cents) ?? 0, product.currency);
  return (
    <fieldset>
      <legend className="block text-sm font-medium text-slate-800">Billing</legend>
      <div className="mt-1.5 space-y-2">
        {plan.intervals.map((interval, i) => (
          <label key={interval} className="flex items-center gap-2 text-sm text-slate-800">
            <input type="radio" name="interval" value={interval} defaultChecked={i === 0} className={focusRing} />
            {interval === "month" ? `Monthly: ${price("month")} a month` : `Yearly: ${price("year")} a year`}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
