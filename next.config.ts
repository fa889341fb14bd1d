import type { NextConfig } from "next";
import { serverActionOrigins } from "./lib/http/host.ts";

const nextConfig: NextConfig = {
  // Native and database packages stay outside the server bundle and load from node_modules at run time.
  serverExternalPackages: ["better-sqlite3", "pg", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "resend", "stripe"],
  poweredByHeader: false,
  reactStrictMode: true,
  typedRoutes: false,
  // generate_license_integration reads its code from integrations/ at run time (lib/agents/devtools/integration/sources.ts).
  outputFileTracingIncludes: { "/*": ["./integrations/**/*"] },
  experimental: {
    // Route modules load on their first request, not all at start: an instance that serves mostly the licensing
    // API and a few storefront pages does not hold every console and dashboard page (about 100 MB less at start,
    // measured in docs/benchmarks.md).
    preloadEntriesOnStart: false,
    serverActions: {
      // The product form uploads an icon and up to six screenshots (512 KiB each) in one server action.
      bodySizeLimit: "4mb",
      // Next refuses an action whose Origin is not the request's host. Behind a proxy that rewrites Host, the pages'
      // origin is still BASE_URL's (or an ALLOWED_HOSTS name): the same list server.ts admits (lib/http/host.ts),
      // read when the server starts.
      allowedOrigins: serverActionOrigins(),
    },
  },
};

export default nextConfig;
