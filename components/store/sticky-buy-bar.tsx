"use client";

import { useEffect, useState, type MouseEvent } from "react";
import { buttonPrimary, buttonSecondary, container } from "@/components/ui/styles";

/** The Buy form's section and its first field (app/(store)/products/[id]/page.tsx). */
const BUY_SECTION_ID = "buy";
const BUY_FIELD_ID = "buyer_email";

/**
 * The price and a Buy action, fixed to the bottom of the screen on phones and tablets (the Buy box sits beside the
 * description from the lg breakpoint up). Without JavaScript it is a plain link to the Buy form; with it, the bar
 * steps aside while the form is on screen, and its link scrolls to the form and puts the cursor in the e-mail field.
 * The page keeps room for it at the bottom (the body's padding in app/layout.tsx), safe area included.
 */
export function StickyBuyBar({ price, trialHref }: { price: string; trialHref: string | null }) {
  const [formInView, setFormInView] = useState(false);

  useEffect(() => {
    const section = document.getElementById(BUY_SECTION_ID);
    if (!section || typeof IntersectionObserver === "undefined") return;
    const observer = new IntersectionObserver(([entry]) => setFormInView(entry?.isIntersecting ?? false));
    observer.observe(section);
    return () => observer.disconnect();
  }, []);

  const toForm = (event: MouseEvent<HTMLAnchorElement>) => {
    const section = document.getElementById(BUY_SECTION_ID);
    const field = document.getElementById(BUY_FIELD_ID);
    if (!section || !field) return;
    event.preventDefault();
    const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    section.scrollIntoView({ behavior: still ? "auto" : "smooth", block: "start" });
    field.focus({ preventScroll: true });
  };

  return (
    <div
      data-sticky-buy-bar=""
      data-testid="sticky-buy-bar"
      className={`fixed inset-x-0 bottom-0 z-40 border-t border-slate-200 bg-white/95 pt-3 pb-[calc(0.75rem+env(safe-area-inset-bottom))] shadow-[0_-4px_12px_rgb(15_23_42/0.06)] backdrop-blur transition-[translate,visibility] duration-200 motion-reduce:transition-none lg:hidden ${
        formInView ? "invisible translate-y-full" : "visible translate-y-0"
      }`}
    >
      <div className={`${container} flex items-center gap-2`}>
        {trialHref ? (
          <a href={trialHref} className={`${buttonSecondary} shrink-0 px-3`}>
            Start trial
          </a>
        ) : null}
        <a href={`#${BUY_SECTION_ID}`} onClick={toForm} className={`${buttonPrimary} min-w-0 flex-1 whitespace-nowrap`}>
          Buy – {price}
        </a>
      </div>
    </div>
  );
}
