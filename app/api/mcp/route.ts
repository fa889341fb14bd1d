import { mcpEndpoint } from "@/lib/transports/mcp-endpoint";

// server.ts answers /api/mcp before Next (lib/transports/front.ts); this route serves the same endpoint to in-process callers.
export { mcpEndpoint as GET, mcpEndpoint as POST, mcpEndpoint as DELETE };
