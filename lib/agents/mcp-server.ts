import type { McpServer } from "@modelcontextprotocol/server";
import { AppError } from "../http/errors.ts";
import { SERVICE_NAME, VERSIONS } from "../versions.ts";
import { TOOLS } from "./tools.ts";

export const MCP_SERVER_INFO = { name: "indie-license-market", title: SERVICE_NAME, version: VERSIONS.server };

/** Registers the 14 tools of the registry on an MCP server. */
export function registerTools(server: McpServer): void {
  for (const t of TOOLS) {
    server.registerTool(
      t.name,
      {
        title: t.title,
        description: t.description,
        inputSchema: t.input,
        ...(t.output ? { outputSchema: t.output } : {}),
        annotations: {
          title: t.title,
          readOnlyHint: !["purchase_license", "agent_checkout", "activate_license", "deactivate_license"].includes(t.name),
          openWorldHint: false,
        },
      },
      async (args: unknown) => {
        try {
          const result = await t.handler(args as never);
          return {
            content: [{ type: "text" as const, text: result.text }],
            ...(result.data ? { structuredContent: result.data } : {}),
          };
        } catch (error) {
          // A problem the caller can act on becomes a tool error the model can read; anything else is hidden.
          const known = error instanceof AppError;
          if (!known) console.error(`tool ${t.name} failed:`, error);
          const message = known ? `${error.code}: ${error.detail}` : "internal_error: the tool failed on our side; please retry later.";
          return { isError: true, content: [{ type: "text" as const, text: message }] };
        }
      },
    );
  }
}
