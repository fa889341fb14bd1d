import { createMcpHandler } from "mcp-handler";
import { withApiHeaders } from "../http/mcp-transport.ts";
import { MCP_CAPABILITIES, MCP_SERVER_INFO, registerTools } from "./mcp-server.ts";

/**
 * The MCP endpoint (`/api/mcp`), built once per process: the Streamable HTTP handler (stateless: each request gets its
 * own SDK server, on which the tools' configurations, built once, are registered) wrapped with the API conventions.
 * server.ts answers it in front of Next (lib/http/front.ts); the Next route (app/api/mcp/route.ts) serves the same
 * function for in-process callers.
 */
export const mcpEndpoint = withApiHeaders(createMcpHandler(registerTools, { serverInfo: MCP_SERVER_INFO, capabilities: MCP_CAPABILITIES }));
