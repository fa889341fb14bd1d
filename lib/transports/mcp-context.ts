import { AsyncLocalStorage } from "node:async_hooks";
import type { CallContext } from "../operations/define.ts";

/**
 * The HTTP request behind an MCP tool call. The MCP SDK calls tool handlers with JSON-RPC data only, so the transport
 * wrapper (lib/transports/mcp-transport.ts) runs the whole JSON-RPC exchange inside this store; tool calls read the client
 * address and headers from it and count against the same rate limits as REST. `sellerTools` is set when the request
 * carried a seller API token the transport verified: the server then also offers the seller's tools. `calls` names
 * the tools the exchange calls when it does nothing but call tools: the exchange's server then registers only those.
 */
export const mcpRequest = new AsyncLocalStorage<Omit<CallContext, "transport"> & { sellerTools?: boolean; calls?: readonly string[] }>();
