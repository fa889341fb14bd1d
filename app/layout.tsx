import type { Metadata, Viewport } from "next";
import { GeistSans } from "geist/font/sans";
import { connection } from "next/server";
import { SiteFooter } from "@/components/store/site-footer";
import { SiteHeader } from "@/components/store/site-header";
import { focusRing } from "@/components/ui/styles";
import "./globals.css";

const SITE_NAME = "Indie License Market";
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
  themeColor: "#ffffff",
  colorScheme: "light",
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page renders per request, the not-found page included: its scripts carry that response's CSP nonce (proxy.ts).
  await connection();
  return (
    <html lang="en" className={GeistSans.variable}>
      <body className="flex min-h-dvh flex-col font-sans">
        <a
          href="#main"
          className={`sr-only z-50 rounded-md bg-white px-3 py-2 text-sm font-semibold text-indigo-700 shadow focus:not-sr-only focus:absolute focus:top-3 focus:left-3 ${focusRing}`}
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
