import { mcpEndpoint } from "@/lib/agents/mcp-endpoint";

// server.ts answers /api/mcp before Next (lib/http/front.ts); this route serves the same endpoint to in-process callers.
export { mcpEndpoint as GET, mcpEndpoint as POST, mcpEndpoint as DELETE };
