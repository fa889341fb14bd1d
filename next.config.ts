import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native and database packages stay outside the server bundle and load from node_modules at run time.
  serverExternalPackages: ["better-sqlite3", "pg", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "resend", "stripe"],
  poweredByHeader: false,
  reactStrictMode: true,
  typedRoutes: false,
  // generate_license_integration reads its code from integrations/ at run time (lib/agents/devtools/integration/sources.ts).
  outputFileTracingIncludes: { "/*": ["./integrations/**/*"] },
  // The product form uploads an icon and up to six screenshots (512 KiB each) in one server action.
  experimental: { serverActions: { bodySizeLimit: "4mb" } },
};

export default nextConfig;
