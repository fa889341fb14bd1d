import Link from "next/link";
import type { MissingKind } from "@/lib/http/request-path";
import { buttonPrimary, container } from "@/components/ui/styles";

interface NotFoundCopy {
  /** The page title. */
  title: string;
  heading: string;
  body: string;
}

const PAGE: NotFoundCopy = {
  title: "Page not found",
  heading: "We couldn't find that page",
  body: "The link may be broken, or the page may have moved. Everything for sale is in the catalogue.",
};

export const PRODUCT_NOT_FOUND: NotFoundCopy = {
  title: "Product not found",
  heading: "We couldn't find that product",
  body: "It may have been unlisted by its developer, or the link may be mistyped.",
};

const MISSING: Record<MissingKind, NotFoundCopy> = {
  product: PRODUCT_NOT_FOUND,
  checkout: {
    title: "Checkout not found",
    heading: "We couldn't find that checkout",
    body: "The link may be mistyped. If you paid, your license key is in your e-mail and under My licenses.",
  },
};

/** What a 404 answer says: the missing record's own words, or the site's general ones for any other address. */
export function notFoundCopy(kind: MissingKind | null): NotFoundCopy {
  return kind ? MISSING[kind] : PAGE;
}

/** The body of a 404 page. */
export function NotFoundPanel({ copy }: { copy: NotFoundCopy }) {
  return (
    <div className={`${container} flex flex-col items-center py-20 text-center sm:py-28`}>
      <p className="rounded-full bg-indigo-50 px-3 py-1 text-sm font-semibold text-indigo-800 ring-1 ring-indigo-200 ring-inset">404 · Not found</p>
      <h1 className="mt-5 text-3xl font-semibold tracking-tight text-balance text-slate-900 sm:text-4xl">{copy.heading}</h1>
      <div className="mt-4 max-w-lg text-base text-pretty text-slate-600">
        <p>{copy.body}</p>
      </div>
      <Link href="/" className={`${buttonPrimary} mt-8`}>
        <span aria-hidden="true">←</span> Back to browse
      </Link>
    </div>
  );
}
