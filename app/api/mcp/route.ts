import { createMcpHandler } from "mcp-handler";
import { registerTools, MCP_CAPABILITIES, MCP_SERVER_INFO } from "@/lib/agents/mcp-server";
import { withApiHeaders } from "@/lib/http/mcp-transport";

const handler = createMcpHandler(registerTools, { serverInfo: MCP_SERVER_INFO, capabilities: MCP_CAPABILITIES });
const mcp = withApiHeaders(handler);

export { mcp as GET, mcp as POST, mcp as DELETE };
