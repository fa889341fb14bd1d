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
    document.addEventListener("keydown", onKey);
    // Says the bridge is listening (what a test waits for before pressing Escape inside the frame).
    document.documentElement.dataset.ilmBridge = "ready";
    return () => document.removeEventListener("keydown", onKey);
  }, [origin, message]);
  return null;
}
