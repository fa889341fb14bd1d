import type { McpServer } from "@modelcontextprotocol/server";
import { acpError } from "../acp/errors.ts";
import { AppError } from "../http/errors.ts";
import { mcpRequest } from "../operations/context.ts";
import { SERVICE_NAME, VERSIONS } from "../versions.ts";
import { callTool, tools } from "./tools.ts";

export const MCP_SERVER_INFO = { name: "indie-license-market", title: SERVICE_NAME, version: VERSIONS.server };

/** Registers the registry's tools on an MCP server; each call runs through its operation's limits, auth and handler. */
export function registerTools(server: McpServer): void {
  for (const t of tools()) {
    server.registerTool(
      t.name,
      {
        title: t.title,
        description: t.description,
        inputSchema: t.input,
        ...(t.output ? { outputSchema: t.output } : {}),
        annotations: { title: t.title, readOnlyHint: t.readOnly, openWorldHint: false },
      },
      async (args: unknown) => {
        try {
          const request = mcpRequest.getStore();
          // Outside the HTTP transport (an in-process caller) there is no client to count against: refuse rather than skip limits.
          if (!request) throw new Error("MCP tool called outside an HTTP request");
          const result = await callTool(t, args as Record<string, unknown>, { ...request, transport: "mcp" });
          return {
            content: [{ type: "text" as const, text: result.text }],
            ...(result.data ? { structuredContent: result.data } : {}),
          };
        } catch (error) {
          // A problem the caller can act on becomes a tool error the model can read, with the same facts as data
          // (the REST problem's code, detail and field errors; for the ACP tools also ACP's Error object, which the
          // ACP MCP binding carries as the error's data). Anything else is hidden.
          const known = error instanceof AppError;
          if (!known) console.error(`tool ${t.name} failed:`, error);
          const problem = known ? error : new AppError("internal_error", 500, "The tool failed on our side; please retry later.");
          return {
            isError: true,
            content: [{ type: "text" as const, text: `${problem.code}: ${problem.detail}` }],
            structuredContent: {
              code: problem.code,
              detail: problem.detail,
              errors: problem.extra.errors ?? [],
              ...(t.operation.http?.errorFormat === "acp" ? { acp_error: acpError(problem) } : {}),
            },
          };
        }
      },
    );
  }
}
