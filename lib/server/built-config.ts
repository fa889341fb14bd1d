import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { NextConfig } from "next";
import type { Env } from "../env.ts";
import { serverActionOrigins } from "../http/host.ts";

/**
 * The configuration the build resolved (`.next/required-server-files.json`), on which the production server runs:
 * server.ts hands it to Next the way Next's own standalone server does (`__NEXT_PRIVATE_STANDALONE_CONFIG`, read by
 * both of Next's config loaders), because loading next.config.ts again would load Next's SWC compiler (about 26 MB
 * resident) only to transpile it.
 * What depends on this instance's settings is filled in here, from the same function next.config.ts calls at build
 * time, so an instance with its own BASE_URL or ALLOWED_HOSTS accepts Server Actions from its own origins.
 */
export function builtConfig(dir: string, e?: Env): NextConfig {
  const built = JSON.parse(readFileSync(join(dir, ".next", "required-server-files.json"), "utf8")) as { config: NextConfig };
  const config = built.config;
  config.experimental = {
    ...config.experimental,
    serverActions: { ...config.experimental?.serverActions, allowedOrigins: serverActionOrigins(e) },
  };
  return config;
}
