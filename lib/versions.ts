import pkg from "../package.json" with { type: "json" };

/** Versions the interface publishes. Written once; every document reads them from here. */
export const VERSIONS = {
  /** The running server (GET /health). */
  server: pkg.version,
  /** OpenAPI `info.version` and the discovery payload's `version`. */
  api: "0.3.0",
  catalog: "1.0",
  oacs: "0.1",
  toolManifest: "v1",
  mcpProtocol: "2024-11-05",
} as const;

export const SERVICE_NAME = "Indie License Market";
