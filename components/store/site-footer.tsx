import Link from "next/link";
import { PRICING } from "@/lib/pricing";
import { paths } from "@/lib/urls";
import { container, focusRing } from "@/components/ui/styles";
import { LogoMark } from "./site-header";

/** The marketplace's pages for people. */
const PAGES = [
  { href: paths.termsPage, label: "Terms" },
  { href: paths.refundsPage, label: "Refunds" },
  { href: paths.privacyPage, label: "Privacy" },
  { href: paths.contactPage, label: "Contact" },
] as const;

/** Machine-readable documents: served by route handlers, so plain links (no client-side navigation). */
const DOCS = [
  { href: paths.discover, label: "Discovery document" },
  { href: paths.openapi, label: "OpenAPI" },
  { href: "/llms.txt", label: "llms.txt" },
  { href: paths.terms, label: "Terms (JSON)" },
] as const;

const footerLink = `rounded-sm text-slate-600 underline-offset-4 hover:text-slate-900 hover:underline ${focusRing}`;

export function SiteFooter() {
  const fee = `${PRICING.transaction_fee_percent}% per sale, no monthly fee — self-host for free`;
  return (
    <footer className="mt-16 border-t border-slate-200 bg-white">
      <div className={`${container} flex flex-col gap-6 py-10 md:flex-row md:items-start md:justify-between`}>
        <div className="max-w-sm space-y-2">
          <Link href="/" className={`inline-flex items-center gap-2 rounded-md font-semibold text-slate-900 ${focusRing}`}>
            <LogoMark className="size-6" />
            <span>Indie License Market</span>
          </Link>
          <p className="text-sm text-slate-600">Software from independent developers, licensed per machine.</p>
          <p className="text-sm font-medium text-slate-700">{fee}</p>
        </div>
        <nav aria-label="Marketplace">
          <h2 className="text-sm font-semibold text-slate-900">Marketplace</h2>
          <ul className="mt-3 grid grid-cols-2 gap-x-8 gap-y-2 text-sm sm:flex sm:flex-wrap sm:gap-x-6">
            {PAGES.map((d) => (
              <li key={d.href}>
                <Link href={d.href} className={footerLink}>
                  {d.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <nav aria-label="Machine-readable documents">
          <h2 className="text-sm font-semibold text-slate-900">Machine-readable, for developers &amp; agents</h2>
          <ul className="mt-3 grid grid-cols-2 gap-x-8 gap-y-2 text-sm sm:flex sm:flex-wrap sm:gap-x-6">
            {DOCS.map((d) => (
              <li key={d.href}>
                <a href={d.href} className={footerLink}>
                  {d.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </div>
    </footer>
  );
}
