import type { Metadata } from "next";
import { NotFoundPanel, PRODUCT_NOT_FOUND } from "@/components/store/not-found-panel";

// Shown on a client-side navigation to a missing product; a first load is answered by app/not-found.tsx, which
// server.ts has render the same words (lib/transports/page-guards.ts).
export const metadata: Metadata = { title: PRODUCT_NOT_FOUND.title, robots: { index: false } };

export default function ProductNotFound() {
  return <NotFoundPanel copy={PRODUCT_NOT_FOUND} />;
}
