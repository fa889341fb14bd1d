import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { withApiHeaders } from "./mcp-transport.ts";
import { MCP_CAPABILITIES, MCP_SERVER_INFO } from "../agents/mcp-info.ts";
import { registerTools } from "./mcp-server.ts";

/**
 * The MCP endpoint (`/api/mcp`), built once per process: the MCP SDK's Streamable HTTP handler (stateless for 2025-era
 * clients: each exchange gets its own SDK server, on which the tools' configurations, built once, are registered)
 * wrapped with the API conventions. The body arrives read and parsed once by the wrapper and is handed over as
 * `parsedBody`, so the SDK neither reads nor clones it again (the `mcp-handler` wrapper used before parsed every body
 * a second time for its event hooks; docs/benchmarks.md). server.ts answers it in front of Next (lib/transports/front.ts);
 * the Next route (app/api/mcp/route.ts) serves the same function for in-process callers.
 */
const handler = createMcpHandler(
  () => {
    const server = new McpServer(MCP_SERVER_INFO, { capabilities: MCP_CAPABILITIES });
    registerTools(server);
    return server;
  },
  { legacy: "stateless" },
);

export const mcpEndpoint = withApiHeaders((request, parsedBody) => handler.fetch(request, parsedBody === undefined ? undefined : { parsedBody }));
