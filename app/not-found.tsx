import type { Metadata } from "next";
import { NotFoundPanel } from "@/components/store/not-found-panel";

export const metadata: Metadata = { title: "Page not found", robots: { index: false } };

export default function NotFound() {
  return (
    <NotFoundPanel title="We couldn't find that page">
      <p>The link may be broken, or the page may have moved. Everything for sale is in the catalogue.</p>
    </NotFoundPanel>
  );
}
