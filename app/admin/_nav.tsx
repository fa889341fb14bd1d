"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { focusRing } from "@/components/ui/styles";

const ITEMS = [
  { href: "/admin", label: "Overview", exact: true },
  { href: "/admin/sellers", label: "Sellers" },
  { href: "/admin/products", label: "Products" },
  { href: "/admin/orders", label: "Orders" },
  { href: "/admin/events", label: "Payment events" },
  { href: "/admin/audit", label: "Audit" },
] as const;

/** The console's sections, styled as the dashboard's; a client component only to mark the current one. */
export function AdminNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Operator console">
      <ul className="-mb-px flex overflow-x-auto text-sm font-medium sm:gap-1">
        {ITEMS.map((item) => {
          const current = "exact" in item ? pathname === item.href : pathname === item.href || pathname.startsWith(`${item.href}/`);
          return (
            <li key={item.href} className="shrink-0">
              <Link
                href={item.href}
                aria-current={current ? "page" : undefined}
                className={`block rounded-t-md border-b-2 px-2 py-3 transition-colors sm:px-3 ${focusRing} focus-visible:-outline-offset-2 ${
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
