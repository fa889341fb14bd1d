import type { NextConfig } from "next";
import { serverActionOrigins } from "./lib/http/host.ts";

const nextConfig: NextConfig = {
  // Native and database packages stay outside the server bundle and load from node_modules at run time.
  serverExternalPackages: ["better-sqlite3", "pg", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "resend", "stripe"],
  poweredByHeader: false,
  reactStrictMode: true,
  typedRoutes: false,
  // generate_license_integration reads its code from sdks/ at run time (lib/agents/devtools/integration/sources.ts).
  outputFileTracingIncludes: { "/*": ["./sdks/**/*"] },
  typescript: {
    // CI has run `npm run typecheck` (the same tsconfig) before it builds (.ci/run sets this): a second check in the
    // build would add a minute and find nothing new. Any other build checks the types itself.
    ignoreBuildErrors: process.env.NEXT_BUILD_TYPES_CHECKED === "1",
  },
  experimental: {
    // A fresh CI machine builds once: writing Turbopack's build cache (about 25 s on two cores) would serve no later
    // build. Elsewhere the cache speeds up the next build (Next's default).
    ...(process.env.CI ? { turbopackFileSystemCacheForBuild: false } : {}),
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
