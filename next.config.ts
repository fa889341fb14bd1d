import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native and database packages stay outside the server bundle and load from node_modules at run time.
  serverExternalPackages: ["better-sqlite3", "pg", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "resend", "stripe"],
  poweredByHeader: false,
  reactStrictMode: true,
  typedRoutes: false,
};

export default nextConfig;
