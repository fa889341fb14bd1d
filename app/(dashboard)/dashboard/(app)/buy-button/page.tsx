import type { Metadata } from "next";
import { buttonSmall } from "@/components/dashboard/buttons";
import { formatMoment, param } from "@/components/dashboard/format";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { SnippetBuilder } from "@/components/embed/snippet-builder";
import { IdempotencyField } from "@/components/forms/idempotency-field";
import { Badge } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { buttonPrimary, card, inputBase } from "@/components/ui/styles";
import { buyButtonVersion } from "@/lib/embed/buy-button-script";
import { EMBED_VERIFICATION_PATH, listEmbedOrigins, verifyFailureWords, type EmbedOriginView } from "@/lib/embed/origins";
import { env } from "@/lib/env";
import { listSellerProducts } from "@/lib/selling/products";
import { pageSeller } from "../../../_lib/seller";
import { addEmbedOriginAction, removeEmbedOriginAction, verifyEmbedOriginAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Buy button", robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

// Only known codes are shown, so a crafted link cannot put words on the page.
const DONE: Record<string, { text: string; ok: boolean }> = {
  added: { text: "Origin added. Publish its token, then press Verify.", ok: true },
  verified: { text: "Origin verified: the buy button's checkout may now open on it.", ok: true },
  removed: { text: "Origin removed: the checkout can no longer open on it.", ok: true },
  embed_origin_unverified: { text: "Verification failed: see the reason beside the origin, fix it and try again.", ok: false },
  embed_origin_invalid: {
    text: "That origin is refused: enter scheme and host only, like https://shop.example.com (https; no path).",
    ok: false,
  },
  embed_origin_exists: { text: "That origin is already on your list.", ok: false },
  embed_origin_limit: { text: "You have the most origins allowed: remove one first.", ok: false },
  rate_limited: { text: "Too many checks in the last minute: wait a moment and try again.", ok: false },
};

function Origin({ o }: { o: EmbedOriginView }) {
  const tokenId = `token-${o.id}`;
  return (
    <li className={`${card} p-5`} data-testid="embed-origin">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0">
          <h3 className="font-mono text-sm font-semibold break-all text-slate-900">{o.origin}</h3>
          <p className="mt-2 text-sm">
            {o.status === "verified" ? (
              <Badge tone="success">Verified</Badge>
            ) : o.status === "failed" ? (
              <Badge>Failed</Badge>
            ) : (
              <Badge tone="accent">Pending</Badge>
            )}
            {o.checked_at ? <span className="ml-2 text-slate-600">checked {formatMoment(o.checked_at)}</span> : null}
          </p>
          {o.status === "failed" && o.last_error ? (
            <p className="mt-2 text-sm text-red-800" data-testid="embed-origin-error">
              <code className="font-mono">{o.last_error}</code>: {verifyFailureWords(o.last_error)}.
            </p>
          ) : null}
        </div>
        <div className="flex flex-wrap gap-2">
          <form action={verifyEmbedOriginAction.bind(null, o.id)}>
            <button type="submit" className={buttonSmall}>
              Verify<span className="sr-only"> {o.origin}</span>
            </button>
          </form>
          <form action={removeEmbedOriginAction.bind(null, o.id)}>
            <button type="submit" className={buttonSmall}>
              Remove<span className="sr-only"> {o.origin}</span>
            </button>
          </form>
        </div>
      </div>
      {o.status !== "verified" ? (
        <div className="mt-4 rounded-lg bg-slate-50 p-4 text-sm text-slate-700 ring-1 ring-slate-200 ring-inset">
          <p>
            Serve a plain text file at <code className="font-mono break-all">{o.verification_url}</code> whose only line is this token:
          </p>
          <code id={tokenId} data-testid="embed-origin-token" className="mt-2 block font-mono text-sm break-all text-slate-900 select-all">
            {o.token}
          </code>
          <CopyButton text={o.token} label="token" selectTargetId={tokenId} className="mt-2" />
        </div>
      ) : null}
    </li>
  );
}

export default async function BuyButtonPage({ searchParams }: Props) {
  const { developer } = await pageSeller();
  const query = await searchParams;
  const [origins, products] = await Promise.all([listEmbedOrigins(developer.id), listSellerProducts(developer.id)]);
  const done = DONE[param(query.done)];
  const base = new URL(env().BASE_URL).origin;

  return (
    <>
      {done ? (
        <div
          role="status"
          id="buy-button-notice"
          className={`mb-6 rounded-lg border px-4 py-3 text-sm ${done.ok ? "border-emerald-200 bg-emerald-50 text-emerald-900" : "border-amber-200 bg-amber-50 text-amber-950"}`}
        >
          {done.text}
        </div>
      ) : null}
      <PageHeader
        title="Buy button"
        description="Sell from your own website: one script tag and a link open our checkout in an overlay on your page. It only opens on the sites you list and verify below; anywhere else the browser refuses to show it, and without JavaScript the link goes to your product page."
      />
      <Section
        id="origins"
        title="Your sites"
        description={`The origins (scheme and host, like https://shop.example.com) the checkout may open on. We verify each by fetching ${EMBED_VERIFICATION_PATH} from it.`}
        className="mt-8"
      >
        {origins.length === 0 ? (
          <p className="text-sm text-slate-600">No sites yet.</p>
        ) : (
          <ul className="space-y-4">
            {origins.map((o) => (
              <Origin key={o.id} o={o} />
            ))}
          </ul>
        )}
        <form action={addEmbedOriginAction} aria-label="Add a site" className={`${card} mt-6 flex flex-col gap-3 p-5 sm:flex-row sm:items-end`}>
          <IdempotencyField value={crypto.randomUUID()} />
          <div className="flex-1">
            <label htmlFor="embed-origin" className="block text-sm font-medium text-slate-900">
              Site origin
            </label>
            <input id="embed-origin" name="origin" required maxLength={300} placeholder="https://shop.example.com" className={`${inputBase} mt-1`} />
          </div>
          <button type="submit" className={buttonPrimary}>
            Add site
          </button>
        </form>
      </Section>
      <Section
        id="snippet"
        title="Snippet"
        description="Paste it where the button should be. The overlay reports a purchase to your page as an ilm:purchase event on the button, with the order id."
        className="mt-12"
      >
        <div className={`${card} p-5`}>
          <SnippetBuilder products={products.map((p) => ({ id: p.id, name: p.name }))} base={base} version={buyButtonVersion(base)} />
        </div>
      </Section>
    </>
  );
}
