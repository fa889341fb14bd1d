import { SERVICE_NAME } from "@/lib/versions";
import type { Metadata, Viewport } from "next";
import { connection } from "next/server";
import { SiteFooter } from "@/components/store/site-footer";
import { SiteHeader } from "@/components/store/site-header";
import { focusRing } from "@/components/ui/styles";
import "./globals.css";

const SITE_NAME = SERVICE_NAME;
const DESCRIPTION =
  "Audio plugins, desktop apps, game assets and developer tools from independent developers — licensed per machine, with free trials.";

export const metadata: Metadata = {
  title: { default: SITE_NAME, template: `%s · ${SITE_NAME}` },
  description: DESCRIPTION,
  applicationName: SITE_NAME,
  openGraph: {
    type: "website",
    siteName: SITE_NAME,
    title: SITE_NAME,
    description: DESCRIPTION,
    locale: "en_US",
  },
  twitter: { card: "summary", title: SITE_NAME, description: DESCRIPTION },
};

export const viewport: Viewport = {
  // The header's colour in each scheme (white, and slate-900, which app/globals.css makes white in dark mode).
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#0f172b" },
  ],
  colorScheme: "light dark",
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page renders per request, the not-found page included: its scripts carry that response's CSP nonce (proxy.ts).
  await connection();
  // A page with the sticky Buy bar (components/store/sticky-buy-bar.tsx) keeps room for it below the footer.
  return (
    <html lang="en">
      <body className="flex min-h-dvh flex-col font-sans max-lg:has-[[data-sticky-buy-bar]]:pb-[calc(4.5rem+env(safe-area-inset-bottom))]">
        {/* Focused, it joins the flow above the header (pushing it down) instead of covering the logo. */}
        <a
          href="#main"
          className={`sr-only rounded-md bg-white text-sm font-semibold text-indigo-700 shadow ring-1 ring-slate-300 focus:not-sr-only focus:m-2 focus:self-start focus:px-4 focus:py-2.5 ${focusRing}`}
        >
          Skip to content
        </a>
        <SiteHeader />
        <main id="main" className="flex-1">
          {children}
        </main>
        <SiteFooter />
      </body>
    </html>
  );
}
