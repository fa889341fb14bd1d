import type { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { registerTools } from "@/lib/transports/mcp-server";
import { sellerTools, tools } from "@/lib/agents/tools";
import { toolCalls } from "@/lib/transports/mcp-transport";
import { mcpRequest } from "@/lib/transports/mcp-context";

/**
 * Each MCP exchange gets its own SDK server (the handler is stateless). An exchange that only calls tools has only
 * those registered; anything else, or a call of a tool not on offer, has every offered tool registered.
 */

function registered(store: Parameters<typeof mcpRequest.run>[0]): string[] {
  const names: string[] = [];
  // The low-level server: the ACP tools' refusals are answered below the SDK's tools/call handler (mcp-server.ts).
  const low = { _getRequestHandler: () => () => Promise.resolve({}), removeRequestHandler: () => undefined, setRequestHandler: () => undefined };
  const server = { registerTool: (name: string) => names.push(name), server: low } as unknown as McpServer;
  mcpRequest.run(store, () => registerTools(server));
  return names;
}

const base = { client: "127.0.0.1", requestId: "r", headers: new Headers(), origin: "http://localhost" };
const call = (name: unknown, id = 1) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } });

describe("toolCalls", () => {
  it("names the tools of an exchange that only calls tools", () => {
    expect(toolCalls(call("validate_license"))).toEqual(["validate_license"]);
    expect(toolCalls([call("validate_license"), call("get_terms", 2)])).toEqual(["validate_license", "get_terms"]);
  });

  it("is undefined for anything else", () => {
    expect(toolCalls(undefined)).toBeUndefined();
    expect(toolCalls(null)).toBeUndefined();
    expect(toolCalls("tools/call")).toBeUndefined();
    expect(toolCalls([])).toBeUndefined();
    expect(toolCalls({ jsonrpc: "2.0", id: 1, method: "tools/list" })).toBeUndefined();
    expect(toolCalls({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} })).toBeUndefined();
    expect(toolCalls([call("validate_license"), { jsonrpc: "2.0", id: 2, method: "tools/list" }])).toBeUndefined();
    expect(toolCalls(call(42))).toBeUndefined();
    expect(toolCalls({ jsonrpc: "2.0", id: 1, method: "tools/call" })).toBeUndefined();
  });
});

describe("registerTools", () => {
  const all = tools().map((t) => t.name);

  it("registers every public tool for an exchange that is not only tool calls", () => {
    expect(registered(base)).toEqual(all);
    expect(all.length).toBeGreaterThan(10);
  });

  it("registers only the called tools", () => {
    expect(registered({ ...base, calls: ["validate_license"] })).toEqual(["validate_license"]);
    expect(registered({ ...base, calls: ["get_terms", "validate_license"] }).sort()).toEqual(["get_terms", "validate_license"]);
  });

  it("registers every offered tool when a called tool is not on offer, so the SDK answers as for any unknown tool", () => {
    expect(registered({ ...base, calls: ["no_such_tool"] })).toEqual(all);
    expect(registered({ ...base, calls: ["validate_license", "no_such_tool"] })).toEqual(all);
    const sellerTool = sellerTools()[0]!.name;
    expect(registered({ ...base, calls: [sellerTool] })).toEqual(all);
    expect(registered({ ...base, sellerTools: true, calls: [sellerTool] })).toEqual([sellerTool]);
  });
});
