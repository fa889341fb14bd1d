"use client";

import { lazy, Suspense, useEffect, useRef, useState } from "react";
import { inputBase } from "@/components/ui/styles";
import type { Quote } from "./quote-preview";

// The preview's markup and the price formatter load with the first quote, not with the page (see QuotePreview).
const loadPreview = () => import("./quote-preview");
const QuotePreview = lazy(() => loadPreview().then((m) => ({ default: m.QuotePreview })));

/** A preview answers one input (coupon and seats): shown only while the fields still hold that input. */
type Preview = { key: string } & ({ kind: "quote"; quote: Quote } | { kind: "refused"; detail: string });

/**
 * The quote request for the fields' current values, or null when there is nothing to preview (or nothing valid). A
 * bundle that prorates is also previewed for the e-mail address alone: the price depends on what that buyer holds.
 */
function requestFor(coupon: string, quantity: string, interval: string, email = ""): { key: string; code: string; seats: number } | null {
  const code = coupon.trim();
  const seats = Number(quantity);
  if (!Number.isInteger(seats) || seats < 1 || seats > 100) return null;
  if (code && !/^[A-Za-z0-9_-]{3,32}$/.test(code)) return null;
  if (!code && seats === 1 && !email) return null;
  return { key: `${code.toUpperCase()}|${seats}|${interval}|${email}`, code, seats };
}

/** The form's e-mail address when it looks like one (a bundle's prorated preview); "" otherwise. */
function chosenEmail(form: HTMLFormElement | null | undefined): string {
  const field = form?.elements.namedItem("buyer_email");
  const value = field instanceof HTMLInputElement ? field.value.trim().toLowerCase() : "";
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) && value.length <= 254 ? value : "";
}

/** The interval the form's Billing choice holds now ("" for a product sold once). */
function chosenInterval(form: HTMLFormElement | null | undefined): string {
  const field = form?.elements.namedItem("interval");
  if (!field) return "";
  return field instanceof RadioNodeList || field instanceof HTMLInputElement ? field.value : "";
}

/**
 * The Buy form's coupon and seat fields, with a price preview from POST /api/checkout/quote (the same rules the
 * checkout applies, so the preview cannot promise another price). The form works without JavaScript: the fields are
 * plain inputs and the checkout itself re-checks everything.
 */
export function BuyOptions(props: {
  productId: string;
  perSeat: boolean;
  maxMachines: number;
  coupon: string;
  quantity: string;
  /** A subscription's default interval (the Billing choice's first); absent for a product sold once. */
  interval?: "month" | "year" | null;
  describedBy?: string;
  /** A bundle that prorates: the preview follows the e-mail address, whose licenses may lower the price. */
  bundleProrate?: boolean;
}) {
  const [coupon, setCoupon] = useState(props.coupon);
  const [quantity, setQuantity] = useState(props.quantity || "1");
  const [answer, setAnswer] = useState<Preview | null>(null);
  // A subscription's Billing choice (monthly or yearly) lives in the same form, outside these fields: followed here.
  const [interval, setChosen] = useState(props.interval ?? "");
  const [email, setEmail] = useState("");
  const anchor = useRef<HTMLDivElement>(null);
  const followEmail = props.bundleProrate === true;
  useEffect(() => {
    const form = anchor.current?.closest("form");
    if (!form) return;
    const follow = () => {
      setChosen(chosenInterval(form));
      if (followEmail) setEmail(chosenEmail(form));
    };
    follow();
    form.addEventListener("change", follow);
    return () => form.removeEventListener("change", follow);
  }, [followEmail]);
  const request = requestFor(coupon, props.perSeat ? quantity : "1", interval, email);
  const preview = request && answer?.key === request.key ? answer : null;
  const key = request?.key;

  useEffect(() => {
    if (!key) return;
    const [code = "", seatsText = "1", every = "", buyer = ""] = key.split("|");
    const seats = Number(seatsText);
    const abort = new AbortController();
    const timer = setTimeout(() => {
      // Fetched beside the quote, so the preview does not wait for its code after the answer.
      void loadPreview();
      fetch("/api/checkout/quote", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          product_id: props.productId,
          // A mistyped code comes back as part of the answer, not as a 404 the browser logs.
          ...(code ? { coupon_code: code, coupon_refusal: "inline" } : {}),
          ...(props.perSeat ? { quantity: seats } : {}),
          ...(every ? { interval: every } : {}),
          ...(buyer ? { buyer_email: buyer } : {}),
        }),
        signal: abort.signal,
      })
        .then(async (r) => {
          const body = (await r.json()) as Quote & { detail?: string; coupon_refused?: { detail: string } };
          setAnswer(
            r.ok && !body.coupon_refused
              ? { key, kind: "quote", quote: body }
              : { key, kind: "refused", detail: body.coupon_refused?.detail ?? body.detail ?? "This coupon cannot be used." },
          );
        })
        .catch(() => {
          // Aborted by a newer input, or offline: the checkout still prices and checks everything.
        });
    }, 350);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [key, props.productId, props.perSeat]);

  const seatsNow = Number(quantity);
  return (
    <>
      <div ref={anchor} hidden />
      {props.perSeat ? (
        <div>
          <label htmlFor="quantity" className="block text-sm font-medium text-slate-800">
            Seats
          </label>
          <input
            id="quantity"
            type="number"
            name="quantity"
            min={1}
            max={100}
            step={1}
            inputMode="numeric"
            value={quantity}
            onChange={(e) => setQuantity(e.target.value)}
            aria-describedby="quantity_hint"
            className={`${inputBase} mt-1.5 w-28`}
          />
          <p id="quantity_hint" className="mt-1.5 text-xs text-slate-600">
            Each seat allows {props.maxMachines} machine{props.maxMachines === 1 ? "" : "s"}
            {Number.isInteger(seatsNow) && seatsNow > 1 ? ` — ${props.maxMachines * seatsNow} in all` : ""}.
          </p>
        </div>
      ) : null}
      <div>
        <label htmlFor="coupon_code" className="block text-sm font-medium text-slate-800">
          Coupon code <span className="font-normal text-slate-600">(optional)</span>
        </label>
        <input
          id="coupon_code"
          type="text"
          name="coupon_code"
          maxLength={32}
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          pattern="[A-Za-z0-9_\-]{3,32}"
          title="3 to 32 letters, digits, - or _"
          value={coupon}
          onChange={(e) => setCoupon(e.target.value)}
          aria-describedby={props.describedBy ? `${props.describedBy} buy_preview` : "buy_preview"}
          className={`${inputBase} mt-1.5 uppercase`}
        />
      </div>
      <div id="buy_preview" aria-live="polite" className="text-sm">
        {preview?.kind === "quote" ? (
          <Suspense fallback={null}>
            <QuotePreview quote={preview.quote} />
          </Suspense>
        ) : preview?.kind === "refused" && !(props.describedBy && coupon === props.coupon) ? (
          // The form's own error above already says why the code it was sent with failed: one message, not two.
          <p role="alert" className="rounded-lg border border-amber-200 bg-amber-50 px-3.5 py-2.5 text-amber-900">
            {preview.detail}
          </p>
        ) : null}
      </div>
    </>
  );
}
