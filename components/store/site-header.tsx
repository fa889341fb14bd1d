import Link from "next/link";
import { container, focusRing } from "@/components/ui/styles";

const NAV = [
  { href: "/", label: "Browse" },
  { href: "/agents", label: "For AI agents" },
  { href: "/licenses", label: "My licenses" },
  { href: "/dashboard", label: "Sell" },
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
    <header className="border-b border-slate-200 bg-white/90 backdrop-blur supports-[backdrop-filter]:bg-white/80">
      <div className={`${container} flex flex-col gap-3 py-3 sm:flex-row sm:items-center sm:justify-between sm:py-4`}>
        <Link
          href="/"
          className={`flex items-center gap-2.5 self-start rounded-md text-base font-semibold tracking-tight text-slate-900 sm:self-auto ${focusRing}`}
        >
          <LogoMark />
          <span>Indie License Market</span>
        </Link>
        <nav aria-label="Main">
          <ul className="-mx-2 flex flex-wrap items-center gap-x-1 gap-y-1 text-sm font-medium">
            {NAV.map((item) => (
              <li key={item.href}>
                <Link
                  href={item.href}
                  prefetch={false}
                  className={`block rounded-md px-2 py-1.5 text-slate-700 transition-colors hover:bg-slate-100 hover:text-slate-900 ${focusRing}`}
                >
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </div>
    </header>
  );
}
