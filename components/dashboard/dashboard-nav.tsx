"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { focusRing } from "@/components/ui/styles";

const ITEMS: readonly NavItem[] = [
  { href: "/dashboard", label: "Overview", exact: true },
  { href: "/dashboard/products", label: "Products" },
  { href: "/dashboard/sales", label: "Sales" },
  { href: "/dashboard/orders", label: "Orders" },
  { href: "/dashboard/subscriptions", label: "Subscriptions" },
  { href: "/dashboard/coupons", label: "Coupons" },
  { href: "/dashboard/links", label: "Links" },
  { href: "/dashboard/upgrades", label: "Upgrades" },
  { href: "/dashboard/licenses", label: "Licenses" },
  { href: "/dashboard/reviews", label: "Reviews" },
  { href: "/dashboard/payouts", label: "Payouts" },
  { href: "/dashboard/buy-button", label: "Buy button" },
  { href: "/dashboard/webhooks", label: "Webhooks" },
  { href: "/dashboard/api-tokens", label: "API tokens" },
  { href: "/dashboard/profile", label: "Profile" },
];

export interface NavItem {
  href: string;
  label: string;
  /** Current only on this exact path, not on the paths below it. */
  exact?: boolean;
}

/** A row of section tabs (the seller dashboard's, the operator console's); a client component only to mark the current one (aria-current). */
export function SectionNav({ label, items }: { label: string; items: readonly NavItem[] }) {
  const pathname = usePathname();
  return (
    <nav aria-label={label}>
      <ul className="-mb-px flex overflow-x-auto text-sm font-medium sm:gap-1">
        {items.map((item) => {
          const current = item.exact ? pathname === item.href : pathname === item.href || pathname.startsWith(`${item.href}/`);
          return (
            <li key={item.href} className="shrink-0">
              <Link
                href={item.href}
                aria-current={current ? "page" : undefined}
                className={`block rounded-t-md border-b-2 px-2 py-3 sm:px-3 transition-colors ${focusRing} focus-visible:-outline-offset-2 ${
                  current ? "border-indigo-600 text-indigo-700" : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900"
                }`}
              >
                {item.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/** The seller dashboard's sections. */
export function DashboardNav() {
  return <SectionNav label="Dashboard" items={ITEMS} />;
}
