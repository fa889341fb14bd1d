"use client";

import { useId, useState } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { focusRing, inputBase } from "@/components/ui/styles";

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The copy-paste snippet of the buy button for one product, with a live preview of it on a page of ours. */
export function SnippetBuilder({ products, base, version }: { products: Array<{ id: string; name: string }>; base: string; version: string }) {
  const [productId, setProductId] = useState(products[0]?.id ?? "");
  const [quantity, setQuantity] = useState("");
  const [coupon, setCoupon] = useState("");
  const ids = useId();
  const product = products.find((p) => p.id === productId);
  if (!product) return <p className="text-sm text-slate-600">Create a product first: the snippet sells one of your products.</p>;

  const qty = /^\d{1,3}$/.test(quantity) && Number(quantity) > 1 ? quantity : "";
  const code = coupon.trim();
  const attrs = [
    `data-ilm-product="${escapeHtml(product.id)}"`,
    qty ? `data-ilm-quantity="${qty}"` : "",
    code ? `data-ilm-coupon="${escapeHtml(code)}"` : "",
  ]
    .filter(Boolean)
    .join(" ");
  const snippet = [
    `<script src="${base}/buy-button.js?v=${version}" defer></script>`,
    `<a href="${base}/products/${encodeURIComponent(product.id)}" ${attrs}>Buy ${escapeHtml(product.name)}</a>`,
  ].join("\n");
  const preview = new URLSearchParams({ product: product.id, ...(qty ? { quantity: qty } : {}), ...(code ? { coupon: code } : {}) });

  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <div className="space-y-4">
        <div>
          <label htmlFor={`${ids}-product`} className="block text-sm font-medium text-slate-900">
            Product
          </label>
          <select id={`${ids}-product`} value={productId} onChange={(e) => setProductId(e.target.value)} className={`${inputBase} mt-1`}>
            {products.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
        <div className="grid gap-4 sm:grid-cols-2">
          <div>
            <label htmlFor={`${ids}-quantity`} className="block text-sm font-medium text-slate-900">
              Seats <span className="font-normal text-slate-500">(optional)</span>
            </label>
            <input
              id={`${ids}-quantity`}
              inputMode="numeric"
              value={quantity}
              onChange={(e) => setQuantity(e.target.value)}
              className={`${inputBase} mt-1`}
            />
          </div>
          <div>
            <label htmlFor={`${ids}-coupon`} className="block text-sm font-medium text-slate-900">
              Coupon code <span className="font-normal text-slate-500">(optional)</span>
            </label>
            <input id={`${ids}-coupon`} value={coupon} maxLength={32} onChange={(e) => setCoupon(e.target.value)} className={`${inputBase} mt-1`} />
          </div>
        </div>
        <div>
          <p className="text-sm font-medium text-slate-900">Snippet</p>
          <pre
            id={`${ids}-snippet`}
            data-testid="buy-button-snippet"
            // Focusable, so a keyboard can scroll a long line sideways.
            tabIndex={0}
            className={`mt-1 overflow-x-auto rounded-lg bg-slate-900 p-3 font-mono text-xs text-slate-100 ${focusRing}`}
          >
            {snippet}
          </pre>
          <CopyButton text={snippet} label="snippet" selectTargetId={`${ids}-snippet`} className="mt-2" />
        </div>
      </div>
      <div>
        <p className="text-sm font-medium text-slate-900">Live preview</p>
        <iframe
          title="Buy button preview"
          src={`/embed/preview?${preview.toString()}`}
          className="mt-1 h-80 w-full rounded-lg border border-slate-200 bg-white"
        />
      </div>
    </div>
  );
}
