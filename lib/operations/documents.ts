import { discoverySchema, toolManifestSchema } from "../api/doc-schemas.ts";
import { discoveryPayload, toolManifest } from "../agents/documents.ts";
import { CACHE } from "../http/headers.ts";
import { operation } from "./define.ts";

/**
 * The documents agents start from, served as operations. They are derived from the domains' operations (the tools
 * list), so they are declared apart from them: lib/agents reads lib/operations/domains.ts, and only the registry's
 * index reads this file.
 */
export const DOCUMENTS = [
  operation({
    id: "getDiscovery",
    summary: "Discovery payload",
    tag: "Agents",
    auth: "public",
    http: { method: "GET", path: "/api/discover", cache: CACHE.document },
    output: discoverySchema,
    handler: () => discoveryPayload(),
  }),
  operation({
    id: "getToolManifest",
    summary: "Tool manifest (OpenAI function format)",
    tag: "Agents",
    auth: "public",
    http: { method: "GET", path: "/api/tools", cache: CACHE.document },
    output: toolManifestSchema,
    handler: () => toolManifest(),
  }),
];
