import type { MetadataRoute } from "next";
import { absoluteUrl } from "@/lib/urls";

export const dynamic = "force-dynamic";

export default function robots(): MetadataRoute.Robots {
  return {
    rules: [{ userAgent: "*", allow: "/", disallow: ["/checkout/", "/dashboard", "/licenses", "/dev/"] }],
    sitemap: absoluteUrl("/sitemap.xml"),
    host: absoluteUrl("/"),
  };
}
