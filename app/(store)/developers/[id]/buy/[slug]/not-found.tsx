import type { Metadata } from "next";
import { LinkRefused } from "@/components/links/link-refused";

export const metadata: Metadata = { title: "Checkout link not found", robots: { index: false, follow: false } };

/** An unknown or turned-off checkout link: a real 404, in the words a buyer who followed a link needs. */
export default function CheckoutLinkNotFound() {
  return <LinkRefused code="checkout_link_not_found" />;
}
