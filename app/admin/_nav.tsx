import { SectionNav, type NavItem } from "@/components/dashboard/dashboard-nav";

const ITEMS: readonly NavItem[] = [
  { href: "/admin", label: "Overview", exact: true },
  { href: "/admin/sellers", label: "Sellers" },
  { href: "/admin/products", label: "Products" },
  { href: "/admin/reviews", label: "Reviews" },
  { href: "/admin/orders", label: "Orders" },
  { href: "/admin/licenses", label: "Licenses" },
  { href: "/admin/events", label: "Payment events" },
  { href: "/admin/agents", label: "Agents" },
  { href: "/admin/audit", label: "Audit" },
];

/** The console's sections, as tabs styled like the dashboard's. */
export function AdminNav() {
  return <SectionNav label="Operator console" items={ITEMS} />;
}
