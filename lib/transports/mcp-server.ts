import { AsyncLocalStorage } from "node:async_hooks";
import { ProtocolError, type CallToolRequest, type CallToolResult, type McpServer, type ServerContext } from "@modelcontextprotocol/server";
import { z } from "zod";
import { acpError, type AcpError } from "../acp/errors.ts";
import { AppError } from "../http/errors.ts";
import { mcpRequest } from "./mcp-context.ts";
import { callTool, sellerTools, toolParameters, tools, type Tool } from "../agents/tools.ts";
import type { CallContext } from "../operations/define.ts";

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
 * The structured content a failed call carries (`isError: true`): the REST problem's code, detail and field errors.
 * (The ACP tools answer a refusal as a JSON-RPC error instead: acpRefusalsAsErrors.)
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
  },
  required: ["code", "detail", "errors"],
};

/**
 * A tool's output schema as MCP publishes it: its result, or the error object a failed call carries. Clients check
 * structured content against the output schema even on an `isError` result (the official SDK client does), so the
 * schema says both; a success is still checked here against the result schema alone.
 */
function publishedOutputSchema(output: z.ZodType, errorsAsResults: boolean) {
  const result = z.toJSONSchema(output, { io: "output", target: "draft-2020-12", unrepresentable: "any" }) as Record<string, unknown>;
  delete result.$schema;
  // An ACP tool's refusal is a JSON-RPC error, never a result: its output schema is the result's alone.
  const json = errorsAsResults ? { type: "object", anyOf: [result, TOOL_ERROR_JSON] } : { type: "object", ...result };
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
    ...(t.output ? { outputSchema: publishedOutputSchema(t.output, !isAcp(t)) } : {}),
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

/** The Agentic Commerce Protocol's tools (checkout sessions, delegate_payment): their refusals follow the ACP MCP binding. */
const isAcp = (t: Tool) => t.operation.http?.errorFormat === "acp";

/** JSON-RPC error code of every ACP refusal (the ACP MCP binding, "Error Handling"). */
const ACP_MCP_ERROR_CODE = -32000;

/**
 * An ACP tool's refusal as the ACP MCP binding answers it: the JSON-RPC error object, code -32000, ACP's message, and
 * ACP's Error object (params relative to the tool's arguments) as `data`. For every path that answers tools/call: the
 * SDK's (acpRefusalsAsErrors) and the direct one (lib/transports/mcp-direct.ts).
 */
function acpToolError(t: Tool, problem: AppError): { code: number; message: string; data: AcpError } {
  const data = acpError(problem, t.operation, { payloadFields: payloadFieldsOf(t) });
  return { code: ACP_MCP_ERROR_CODE, message: data.message, data };
}

/** The top-level fields of a tool's `payload` argument (the REST body), which an operation's field errors name. */
function payloadFieldsOf(t: Tool): ReadonlySet<string> {
  let fields = payloadFields.get(t);
  if (!fields) {
    let payload = t.input.shape.payload as z.ZodType | undefined;
    while (payload instanceof z.ZodOptional) payload = payload.unwrap() as z.ZodType;
    fields = new Set(payload instanceof z.ZodObject ? Object.keys(payload.shape) : []);
    payloadFields.set(t, fields);
  }
  return fields;
}
const payloadFields = new WeakMap<Tool, ReadonlySet<string>>();

/** Whether a tool's refusals are JSON-RPC errors (the ACP tools) rather than `isError` results (every other tool). */
const refusesAsJsonRpcError = (t: Tool): boolean => isAcp(t);

/** Where an ACP tool's handler leaves its refusal for the tools/call handler to answer as a JSON-RPC error. */
const acpRefusal = new AsyncLocalStorage<{ refusal?: ReturnType<typeof acpToolError> }>();

/**
 * The SDK's own tools/call handler (McpServer installs it on the low-level server with the first registered tool). It
 * is protected in the SDK's typings; the wrapper below fails loudly at registration should a release rename it.
 */
type CallHandler = (request: CallToolRequest, ctx: ServerContext) => Promise<CallToolResult>;
function sdkToolsCall(server: McpServer): CallHandler {
  const low = server.server as unknown as { _getRequestHandler?: (method: string) => CallHandler | undefined };
  const handler = low._getRequestHandler?.call(server.server, "tools/call");
  if (!handler) throw new Error("MCP SDK: no tools/call handler to wrap (has Protocol._getRequestHandler changed?)");
  return handler;
}

/**
 * The ACP MCP binding answers an ACP refusal as a JSON-RPC `error` {code: -32000, message, data: ACP's Error object},
 * not as a tool result; but McpServer's tools/call handler turns whatever a tool handler throws into an `isError`
 * result. So the call of an ACP tool runs the SDK's handler (input and output validation, result projection, all
 * as for any tool) inside a slot where the tool's handler leaves its refusal; when one is left, this handler, below
 * the SDK's catch, throws it as a ProtocolError, which the SDK's Protocol layer writes out as the JSON-RPC error with
 * its code and data. Calls of other tools go to the SDK's handler untouched; an exchange registering no ACP tool (the
 * fast path that registers only the called tools) gets no wrapper at all. Protocol-level failures stay the SDK's:
 * an unknown tool or a malformed tools/call request is -32602, as the binding reserves it.
 */
function acpRefusalsAsErrors(server: McpServer, acpNames: ReadonlySet<string>): void {
  const sdk = sdkToolsCall(server);
  server.server.removeRequestHandler("tools/call");
  server.server.setRequestHandler("tools/call", async (request, ctx) => {
    if (!acpNames.has(request.params.name)) return sdk(request, ctx);
    const slot: { refusal?: ReturnType<typeof acpToolError> } = {};
    const result = await acpRefusal.run(slot, () => sdk(request, ctx));
    if (slot.refusal) throw new ProtocolError(slot.refusal.code, slot.refusal.message, slot.refusal.data);
    return result;
  });
}

/** A tool call's answer: the tool's result (an `isError` one for a refusal), or for an ACP tool's refusal the JSON-RPC error. */
export type ToolCallAnswer = { result: CallToolResult } | { error: ReturnType<typeof acpToolError> };

/**
 * One tool call as every MCP path answers it (the SDK's registered handler below, and the direct path,
 * lib/transports/mcp-direct.ts): the arguments through the tool's operation (execute(): limits, auth, idempotency),
 * the result as text and structured content. A problem the caller can act on becomes a tool error the model can
 * read, with the same facts as data (the REST problem's code, detail and field errors); an ACP tool's becomes ACP's
 * Error object, to be answered as the JSON-RPC error (the ACP MCP binding). Anything else is logged and hidden.
 */
export async function answerToolCall(t: Tool, args: unknown, ctx: CallContext): Promise<ToolCallAnswer> {
  try {
    const result = await callTool(t, args, ctx);
    const content = [{ type: "text" as const, text: result.text }];
    if (!result.data) return { result: { content } };
    // The ACP MCP binding returns the CheckoutSession "as-is" in the JSON-RPC result; MCP clients read a tool's result
    // from structuredContent. An ACP tool's result is both: the session's fields at the top (a client written to the
    // binding reads result.id and result.status), and the MCP result's content and structuredContent beside them
    // (no ACP object has fields of those names).
    if (isAcp(t)) return { result: { ...result.data, content, structuredContent: result.data } };
    return { result: { content, structuredContent: result.data } };
  } catch (error) {
    const known = error instanceof AppError;
    if (!known) console.error(`tool ${t.name} failed:`, error);
    const problem = known ? error : new AppError("internal_error", 500, "The tool failed on our side; please retry later.");
    if (refusesAsJsonRpcError(t)) return { error: acpToolError(t, problem) };
    return {
      result: {
        isError: true,
        content: [{ type: "text" as const, text: `${problem.code}: ${problem.detail}` }],
        structuredContent: { code: problem.code, detail: problem.detail, errors: problem.extra.errors ?? [] },
      },
    };
  }
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
  let acpNames: Set<string> | undefined;
  for (const t of list) {
    const acp = isAcp(t);
    if (acp) (acpNames ??= new Set()).add(t.name);
    server.registerTool(t.name, toolConfig(t), async (args: unknown) => {
      const store = mcpRequest.getStore();
      // Outside the HTTP transport (an in-process caller) there is no client to count against: refuse rather than skip limits.
      if (!store) throw new Error("MCP tool called outside an HTTP request");
      const { sellerTools: _seller, calls: _calls, ...request } = store;
      const answer = await answerToolCall(t, args, { ...request, transport: "mcp" });
      if ("result" in answer) return answer.result;
      // An ACP tool's refusal: left for acpRefusalsAsErrors to answer as the JSON-RPC error.
      const slot = acp ? acpRefusal.getStore() : undefined;
      if (slot) slot.refusal = answer.error;
      return { isError: true, content: [{ type: "text" as const, text: answer.error.message }] };
    });
  }
  if (acpNames) acpRefusalsAsErrors(server, acpNames);
}
