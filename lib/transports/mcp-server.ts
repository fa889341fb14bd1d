import type { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { acpError } from "../acp/errors.ts";
import { AppError } from "../http/errors.ts";
import { mcpRequest } from "./mcp-context.ts";
import { callTool, sellerTools, toolParameters, tools, type Tool } from "../agents/tools.ts";

/**
 * A tool's input schema as the MCP SDK reads it (Standard Schema): `tools/list` publishes the tool's real JSON
 * Schema, while validation passes the arguments through untouched, so the handler checks them itself
 * (parseToolArguments) and a bad or unknown argument gets the same structured, named refusal as everywhere else
 * instead of the SDK's bare text.
 */
function publishedSchema(t: Tool) {
  const json = toolParameters(t);
  return {
    "~standard": {
      version: 1 as const,
      vendor: "indie-license-market",
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

/**
 * The structured content a failed call carries (`isError: true`): the REST problem's code, detail and field errors,
 * and for the ACP tools ACP's Error object.
 */
const TOOL_ERROR_JSON = {
  type: "object",
  description: "A refused or failed call (isError: true)",
  properties: {
    code: { type: "string", description: "Stable snake_case error code, as REST answers it" },
    detail: { type: "string" },
    errors: {
      type: "array",
      description: "One entry per bad or unknown argument",
      items: {
        type: "object",
        properties: { in: { type: "string" }, name: { type: "string" }, message: { type: "string" } },
        required: ["in", "name", "message"],
      },
    },
    acp_error: { type: "object", description: "For the Agentic Commerce Protocol tools: ACP's Error object" },
  },
  required: ["code", "detail", "errors"],
};

/**
 * A tool's output schema as MCP publishes it: its result, or the error object a failed call carries. Clients check
 * structured content against the output schema even on an `isError` result (the official SDK client does), so the
 * schema says both; a success is still checked here against the result schema alone.
 */
function publishedOutputSchema(output: z.ZodType) {
  const result = z.toJSONSchema(output, { io: "output", target: "draft-2020-12", unrepresentable: "any" }) as Record<string, unknown>;
  delete result.$schema;
  const json = { type: "object", anyOf: [result, TOOL_ERROR_JSON] };
  return {
    "~standard": {
      version: 1 as const,
      vendor: "indie-license-market",
      validate: (value: unknown) => {
        const parsed = output.safeParse(value);
        return parsed.success ? { value } : { issues: parsed.error.issues.map((i) => ({ message: i.message, path: i.path })) };
      },
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

/**
 * What registerTool takes for a tool, built once per process: the JSON Schemas (zod's conversion is the costly part,
 * several milliseconds for the whole registry) and the annotations do not change while the process runs, and the
 * stateless handler registers every tool again on each request's server.
 */
function buildToolConfig(t: Tool) {
  return {
    title: t.title,
    description: t.description,
    inputSchema: publishedSchema(t),
    ...(t.output ? { outputSchema: publishedOutputSchema(t.output) } : {}),
    annotations: { title: t.title, readOnlyHint: t.readOnly, openWorldHint: false },
  };
}
const published = new WeakMap<Tool, ReturnType<typeof buildToolConfig>>();
function toolConfig(t: Tool): ReturnType<typeof buildToolConfig> {
  let config = published.get(t);
  if (!config) {
    config = buildToolConfig(t);
    published.set(t, config);
  }
  return config;
}

/**
 * Registers the registry's tools on an MCP server (one per HTTP request: the handler is stateless), and the seller's
 * tools too when the transport verified the request's seller API token; each call runs through its operation's
 * limits, auth and handler, so a seller tool authenticates the token and checks its scope again on every call.
 * An exchange that only calls tools gets only those registered (registering all 28 on every call was most of an MCP
 * call's allocations; docs/benchmarks.md); one that names a tool not on offer gets them all, so the SDK answers it
 * exactly as before.
 */
export function registerTools(server: McpServer): void {
  const store = mcpRequest.getStore();
  const offered = store?.sellerTools ? [...tools(), ...sellerTools()] : tools();
  const calls = store?.calls;
  const called = calls ? offered.filter((t) => calls.includes(t.name)) : undefined;
  const list = called && new Set(calls).size === called.length ? called : offered;
  for (const t of list) {
    server.registerTool(t.name, toolConfig(t), async (args: unknown) => {
      try {
        const store = mcpRequest.getStore();
        // Outside the HTTP transport (an in-process caller) there is no client to count against: refuse rather than skip limits.
        if (!store) throw new Error("MCP tool called outside an HTTP request");
        const { sellerTools: _seller, ...request } = store;
        const result = await callTool(t, args, { ...request, transport: "mcp" });
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
    });
  }
}
