"use client";

import { useCallback, useRef, useSyncExternalStore, type ReactNode } from "react";
import { parseMoney } from "@/lib/money/parse-money";
import { formatPrice } from "@/lib/pricing";

const SEP = "\u0000";
const noSubscription = () => () => undefined;

/** The refund kind chosen (when the form has a choice) and the amount typed, as one comparable snapshot. */
function readForm(box: HTMLElement | null, field: string, kindField: string | undefined): string {
  const form = box?.closest("form");
  if (!form) return "";
  const amount = form.elements.namedItem(field);
  const kind = kindField ? (form.querySelector<HTMLInputElement>(`input[name="${kindField}"]:checked`)?.value ?? "") : "";
  return `${kind}${SEP}${amount instanceof HTMLInputElement ? amount.value : ""}`;
}

/**
 * A refund form's amount field with a line under it that says, as the amount is typed, what will be refunded and to
 * whom ("Refund €1.50 EUR to buyer@example.com"), read by the same parser the server uses, or the parser's reason
 * for refusing it. With `kindField` (a full/partial choice), "full" refunds all that remains whatever is typed; without
 * it, an empty amount means all that remains. Without JavaScript the line stays empty and the server still checks.
 */
export function RefundAmountLine({
  children,
  id,
  currency,
  buyerEmail,
  remainingCents,
  field = "amount",
  kindField,
}: {
  children: ReactNode;
  /** The line's element id. */
  id: string;
  currency: string;
  buyerEmail: string;
  remainingCents: number;
  field?: string;
  kindField?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const subscribe = useCallback((notify: () => void) => {
    const form = box.current?.closest("form");
    if (!form) return () => undefined;
    // React resets a form once its action has answered; the fields hold their values again only after the event.
    const afterReset = () => setTimeout(notify, 0);
    form.addEventListener("input", notify);
    form.addEventListener("change", notify);
    form.addEventListener("reset", afterReset);
    return () => {
      form.removeEventListener("input", notify);
      form.removeEventListener("change", notify);
      form.removeEventListener("reset", afterReset);
    };
  }, []);
  const snapshot = useSyncExternalStore(
    subscribe,
    () => readForm(box.current, field, kindField),
    () => "",
  );
  const locale = useSyncExternalStore(
    noSubscription,
    () => navigator.language,
    () => undefined,
  );
  const [kind = "", text = ""] = snapshot.split(SEP);
  const line = snapshot === "" ? null : describe({ kind, text, kindField, currency, buyerEmail, remainingCents, locale });

  return (
    <div ref={box}>
      {children}
      <p id={id} aria-live="polite" className={`mt-1.5 min-h-5 text-sm ${line?.refused ? "font-medium text-red-700" : "text-slate-700"}`}>
        {line?.text}
      </p>
    </div>
  );
}

function describe(o: {
  kind: string;
  text: string;
  kindField: string | undefined;
  currency: string;
  buyerEmail: string;
  remainingCents: number;
  locale: string | undefined;
}): { text: string; refused: boolean } | null {
  const remaining = formatPrice(o.remainingCents, o.currency);
  const all = { text: `Refund all that remains, ${remaining}, to ${o.buyerEmail}.`, refused: false };
  if (o.kindField ? o.kind !== "partial" : o.text.trim() === "") return all;
  const amount = parseMoney(o.text, o.currency, { locale: o.locale });
  if (!amount.ok) return amount.code === "empty" ? null : { text: amount.message, refused: true };
  if (amount.minor === 0) return { text: "Enter an amount greater than zero.", refused: true };
  if (amount.minor > o.remainingCents) return { text: `That is more than the ${remaining} that remains.`, refused: true };
  return { text: `Refund ${amount.understood} to ${o.buyerEmail}.`, refused: false };
}
