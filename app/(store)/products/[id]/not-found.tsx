import type { Metadata } from "next";
import { NotFoundPanel } from "@/components/store/not-found-panel";

export const metadata: Metadata = { title: "Product not found", robots: { index: false } };

export default function ProductNotFound() {
  return (
    <NotFoundPanel title="We couldn't find that product">
      <p>It may have been unlisted by its developer, or the link may be mistyped.</p>
    </NotFoundPanel>
  );
}
