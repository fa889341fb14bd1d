import type { IncomingMessage, ServerResponse } from "node:http";
import { classifyInboundRequest, isJsonContentType, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { toolByName, type Tool } from "../agents/tools.ts";
import { answerToolCall, type ToolCallAnswer } from "./mcp-server.ts";
import { CLIENT_ADDRESS_HEADER } from "../http/rate-limit.ts";
import { addressedOrigin } from "../http/host.ts";
import { sellerTokenFrom } from "../seller-api/tokens.ts";

/**
 * The hot MCP exchange answered without the SDK's per-exchange machinery: one JSON-RPC `tools/call` request of a
 * 2025-era client (no per-request protocol claim), the shape agents send for every call after `initialize`.
 *
 * What the SDK does per exchange and this path does not (profiled in docs/benchmarks.md): build an McpServer and
 * register the called tool on it, connect a WebStandardStreamableHTTPServerTransport, turn the node request into a
 * Web Request and the answer into a ReadableStream of server-sent events wrapped in a second stream, validate the
 * message with the protocol's zod schemas, then tear it all down. None of that changes the answer: the tool runs
 * through the same function the SDK's registered handler runs (toolCallAnswer: the registry's execute(), so limits,
 * idempotency and the body cap hold as on every transport), and the answer is the same JSON-RPC response in the same
 * server-sent event the SDK writes (`event: message`, `data: …`), with the same headers. A test compares the two
 * answers call by call (tests/integration/mcp-direct.test.ts).
 *
 * Everything else goes to the SDK unchanged: another method, a batch, a notification, a modern (2026-07-28) request,
 * a request the SDK would refuse (Accept without both media types, Content-Type not JSON, a protocol version it does
 * not serve, a malformed message), a tool not on offer, and any request with a seller API token (the SDK path checks
 * the token and offers the seller's tools).
 */

/** The parts of a tools/call request this path answers; undefined when the SDK must answer the message. */
interface DirectCall {
  id: string | number;
  tool: Tool;
  args: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
};

/** The call this path may answer, or undefined (see above for what is left to the SDK). */
export function directCall(req: IncomingMessage, message: unknown): DirectCall | undefined {
  if (!isObject(message) || message.jsonrpc !== "2.0" || message.method !== "tools/call") return undefined;
  const { id, params } = message;
  if ((typeof id !== "string" && typeof id !== "number") || !isObject(params) || typeof params.name !== "string") return undefined;
  // Only the fields whose meaning this path knows: `task` (task-augmented calls) and anything newer go to the SDK.
  for (const key of Object.keys(params)) if (key !== "name" && key !== "arguments" && key !== "_meta") return undefined;
  if (params.arguments !== undefined && !isObject(params.arguments)) return undefined;
  if (params._meta !== undefined && !isObject(params._meta)) return undefined;
  const accept = header(req, "accept");
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return undefined;
  if (!isJsonContentType(header(req, "content-type") ?? null)) return undefined;
  const version = header(req, "mcp-protocol-version");
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  if (header(req, "authorization") !== undefined && sellerTokenFrom(headerReader(req)) !== null) return undefined;
  const route = classifyInboundRequest({
    httpMethod: "POST",
    body: message,
    ...(version !== undefined ? { protocolVersionHeader: version } : {}),
    ...(req.headers["mcp-method"] !== undefined ? { mcpMethodHeader: header(req, "mcp-method") } : {}),
    ...(req.headers["mcp-name"] !== undefined ? { mcpNameHeader: header(req, "mcp-name") } : {}),
  });
  if (route.kind !== "legacy") return undefined;
  const tool = toolByName(params.name);
  if (!tool) return undefined;
  return { id, tool, args: params.arguments };
}

/** Reads node's request headers through the one method the token check uses. */
function headerReader(req: IncomingMessage): Headers {
  return { get: (name: string) => header(req, name.toLowerCase()) ?? null } as Headers;
}

function toHeaders(req: IncomingMessage): Headers {
  const out = new Headers();
  for (const [k, v] of Object.entries(req.headers)) for (const value of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.append(k, value);
  return out;
}

/**
 * Runs the call and writes its JSON-RPC response as the SDK's stateless transport does: 200, one server-sent event,
 * the stream's headers, then the API's own (`fixed`: request id, Link, security headers, CORS set by the front door).
 */
export async function answerDirectCall(
  req: IncomingMessage,
  res: ServerResponse,
  call: DirectCall,
  requestId: string,
  fixed: Record<string, string>,
): Promise<void> {
  let headers: Headers | undefined;
  const answer = await answerToolCall(call.tool, call.args ?? {}, {
    transport: "mcp",
    client: header(req, CLIENT_ADDRESS_HEADER) ?? "unknown",
    requestId,
    // Built only when read: most tools never read them.
    get headers() {
      return (headers ??= toHeaders(req));
    },
    get origin() {
      return addressedOrigin(headerReader(req));
    },
  });
  checkOutput(call.tool, answer);
  const response = "error" in answer ? { jsonrpc: "2.0", id: call.id, error: answer.error } : { result: answer.result, jsonrpc: "2.0", id: call.id };
  const body = `event: message\ndata: ${JSON.stringify(response)}\n\n`;
  res.writeHead(200, {
    ...fixed,
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-cache, no-transform",
    Connection: "keep-alive",
    "X-Accel-Buffering": "no",
    "Content-Length": String(Buffer.byteLength(body)),
  });
  res.end(body);
}

/**
 * What the SDK's tools/call handler checks after the tool ran, done here too: a successful result of a tool with an
 * output schema carries structured content that matches it; otherwise the answer is the SDK's tool error. (The
 * registry's outputs always match: this only keeps the two paths alike should one ever not.)
 */
function checkOutput(t: Tool, answer: ToolCallAnswer): void {
  if (!t.output || "error" in answer || answer.result.isError) return;
  const content = answer.result.structuredContent;
  const failure =
    content === undefined
      ? `Output validation error: Tool ${t.name} has an output schema but no structured content was provided`
      : t.output.safeParse(content).success
        ? undefined
        : `Output validation error: Invalid structured content for tool ${t.name}`;
  if (failure) answer.result = { content: [{ type: "text", text: failure }], isError: true };
}
