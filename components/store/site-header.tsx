import Link from "next/link";
import { container, focusRing } from "@/components/ui/styles";

/** `short`: the label on phones, where the logo and all four links share one row. */
const NAV = [
  { href: "/", label: "Browse" },
  { href: "/agents", label: "For AI agents", short: "Agents" },
  { href: "/licenses", label: "My licenses", short: "Licenses" },
  // Straight to the seller sign-in page, which shows at once: /dashboard would first have to find that nobody is signed
  // in and redirect there (a blank wait on a phone). A signed-in seller is sent on to the dashboard (or onboarding).
  { href: "/dashboard/sign-in", label: "Sell" },
] as const;

export function LogoMark({ className = "size-8" }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" aria-hidden="true" className={className}>
      <rect width="32" height="32" rx="8" className="fill-indigo-600" />
      <circle cx="12" cy="16" r="5" fill="none" stroke="#fff" strokeWidth="2.5" />
      <path d="M17 16h9m-3 0v4m-3-4v3" fill="none" stroke="#fff" strokeWidth="2.5" strokeLinecap="round" />
    </svg>
  );
}

export function SiteHeader() {
  return (
    <header className="border-b border-slate-200 bg-white">
      {/* One row from 320 px up: on phones the logo drops its words and two links their long labels. */}
      <div className={`${container} flex items-center justify-between gap-x-3 py-2 sm:py-4`}>
        <Link href="/" className={`flex shrink-0 items-center gap-2.5 rounded-md text-base font-semibold tracking-tight text-slate-900 ${focusRing}`}>
          <LogoMark />
          <span className="sr-only sm:not-sr-only">Indie License Market</span>
        </Link>
        <nav aria-label="Main" className="min-w-0">
          <ul className="-mr-2 flex flex-wrap items-center justify-end gap-x-0.5 gap-y-1 text-sm font-medium sm:gap-x-1">
            {NAV.map((item) => (
              <li key={item.href}>
                <Link
                  href={item.href}
                  prefetch={false}
                  aria-label={"short" in item ? item.label : undefined}
                  className={`block rounded-md px-1.5 py-1.5 text-slate-700 transition-colors hover:bg-slate-100 hover:text-slate-900 sm:px-2 ${focusRing}`}
                >
                  {"short" in item ? (
                    <>
                      <span className="sm:hidden">{item.short}</span>
                      <span className="hidden sm:inline">{item.label}</span>
                    </>
                  ) : (
                    item.label
                  )}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </div>
    </header>
  );
}
