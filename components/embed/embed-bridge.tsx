"use client";

import { useEffect, useRef } from "react";

/** What a checkout page in the buy button's overlay tells the page that opened it. Never a license key. */
export type EmbedMessage = { type: "ilm:checkout.completed"; order_id: string } | { type: "ilm:checkout.cancelled" };

/**
 * The checkout's side of the buy button (public/buy-button.js is the other): posts the outcome, once, to the window
 * that framed the page, addressed to the one origin the seller verified that opened it (never "*", so no other
 * page can read it), and passes Escape on, since a key pressed inside the frame never reaches the page around it.
 */
export function EmbedBridge({ origin, message }: { origin: string; message?: EmbedMessage }) {
  const sent = useRef(false);
  useEffect(() => {
    if (window.parent === window) return undefined;
    if (message && !sent.current) {
      sent.current = true;
      window.parent.postMessage(message, origin);
    }
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") window.parent.postMessage({ type: "ilm:close" }, origin);
    };
    // A link out of the checkout (My licenses, a receipt, the product page) leads to pages that refuse to be framed:
    // it opens in a new tab instead of blanking the overlay. Links within the checkout carry ?embed= and stay.
    const onClick = (event: MouseEvent) => {
      const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
      if (!(link instanceof HTMLAnchorElement) || link.target) return;
      const url = new URL(link.href, window.location.href);
      if (url.origin === window.location.origin && url.searchParams.has("embed")) return;
      link.target = "_blank";
      link.rel = "noopener";
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("click", onClick, true);
    // Says the bridge is listening (what a test waits for before pressing Escape inside the frame).
    document.documentElement.dataset.ilmBridge = "ready";
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("click", onClick, true);
    };
  }, [origin, message]);
  return null;
}
