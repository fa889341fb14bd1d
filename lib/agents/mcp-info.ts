import { SERVICE_NAME, VERSIONS } from "../versions.ts";

/** Who the MCP server says it is, in `initialize` and in the server card. */
export const MCP_SERVER_INFO = { name: "indie-license-market", title: SERVICE_NAME, version: VERSIONS.server };

/**
 * What `initialize` answers as the server's capabilities, and what the server card repeats: tools only, and the list
 * never changes while the server runs (it is the registry's, fixed at build time; a request with a seller API token
 * also gets that seller's tools, the same for every request with the token), so `listChanged` is false.
 */
export const MCP_CAPABILITIES = { tools: { listChanged: false } } as const;
