import { A2A_VERSION_HEADER, Extensions, formatSSEErrorEvent, formatSSEEvent, HTTP_EXTENSION_HEADER } from "@a2a-js/sdk";
import { A2A_LEGACY_PROTOCOL_VERSION, LEGACY_HTTP_EXTENSION_HEADER } from "@a2a-js/sdk/compat/v0_3";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { A2A_ERROR_CODE, A2AError, ContentTypeNotSupportedError } from "@a2a-js/sdk/errors";
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  UnauthenticatedUser,
  validateVersion,
} from "@a2a-js/sdk/server";
import { env } from "../../env.ts";
import { AppError } from "../../http/errors.ts";
import { CACHE } from "../../http/headers.ts";
import { DEFAULT_MAX_BODY_BYTES, parseJsonText, readBodyText } from "../../http/input.ts";
import { CLIENT_ADDRESS_HEADER } from "../../http/rate-limit.ts";
import { baseHeaders, problemResponse, requestIdFrom, toAppError } from "../../http/respond.ts";
import { agentCard } from "../../agents/documents.ts";
import { CALLER_KEY, ToolExecutor } from "./executor.ts";
import { BoundedTaskStore } from "./task-store.ts";
import { addressedOrigin } from "../../http/host.ts";

/**
 * The A2A endpoint (POST /api/a2a): JSON-RPC over HTTP with the official SDK's server (`DefaultRequestHandler` and its
 * framework-free JSON-RPC transport handlers), answered the way the SDK's own Express adapter answers, without Express.
 * A request whose `A2A-Version` is 1.0 speaks A2A 1.0 (SendMessage, SendStreamingMessage, GetTask, CancelTask); one
 * without the header, or with 0.3, is handled by the SDK's 0.3 layer (message/send, message/stream, tasks/get, …), so
 * clients of both generations work from the same card. Streaming methods answer with server-sent events.
 *
 * Our own conventions come first: the body cap, the request id and Link header, and the client address that every
 * tool call counts its rate limits against (passed to the executor in the SDK's per-call state).
 */

type JsonRpcError = { code: number; message: string; data?: unknown };
type Envelope = { jsonrpc: string; id: string | number | null; result?: unknown; error?: unknown };

const store = new BoundedTaskStore();
const buses = new DefaultExecutionEventBusManager();
const executor = new ToolExecutor();
let built: { base: string; handler: DefaultRequestHandler; v1: JsonRpcTransportHandler; v03: LegacyJsonRpcTransportHandler } | undefined;

/** The SDK's handler holds the card it was built with, so it is rebuilt when the deployment's address changes (tests). */
function transports() {
  const base = env().BASE_URL;
  if (built?.base !== base) {
    const handler = new DefaultRequestHandler(agentCard(), store, executor, buses);
    built = { base, handler, v1: new JsonRpcTransportHandler(handler), v03: new LegacyJsonRpcTransportHandler(handler) };
  }
  return built;
}

function isStream(value: unknown): value is AsyncGenerator<Envelope, void, undefined> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

function requestIdOf(body: unknown): string | number | null {
  const id = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined;
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : null;
}

export async function handleA2A(request: Request): Promise<Response> {
  const requestId = requestIdFrom(request.headers.get("x-request-id"));
  const path = new URL(request.url).pathname;
  const version = request.headers.get(A2A_VERSION_HEADER) || A2A_LEGACY_PROTOCOL_VERSION;
  const legacy = version === A2A_LEGACY_PROTOCOL_VERSION;
  const mapError = (error: unknown): JsonRpcError =>
    legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error) : JsonRpcTransportHandler.mapToJSONRPCError(error);
  const headers = baseHeaders(requestId, CACHE.none);
  const reply = (envelope: Envelope, status = 200) =>
    new Response(JSON.stringify(envelope), { status, headers: { ...headers, "Content-Type": "application/json" } });
  const failure = (id: string | number | null, error: JsonRpcError) => reply({ jsonrpc: "2.0", id, error });

  let body: string;
  try {
    body = await readBodyText(request, DEFAULT_MAX_BODY_BYTES);
  } catch (error) {
    return problemResponse(toAppError(error, requestId), requestId, path);
  }
  const type = (request.headers.get("content-type") ?? "").replace(/;.*$/s, "").trim().toLowerCase();
  if (type !== "" && type !== "application/json") {
    return failure(null, mapError(new ContentTypeNotSupportedError(`Unsupported Content-Type "${type}"; expected application/json.`)));
  }
  let parsed: unknown;
  try {
    parsed = parseJsonText(body);
  } catch (error) {
    const tooDeep = error instanceof AppError && error.code === "body_too_deep";
    return failure(null, {
      code: tooDeep ? A2A_ERROR_CODE.INVALID_REQUEST : A2A_ERROR_CODE.PARSE_ERROR,
      message: error instanceof AppError ? error.detail : "Invalid JSON payload.",
    });
  }
  const id = requestIdOf(parsed);
  // The SDK handlers take objects only; anything else (a batch, a bare value) gets their invalid-request answer.
  const envelope = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : "";

  try {
    const { handler, v1, v03 } = transports();
    validateVersion(version, await handler.getAgentCard(), "JSONRPC");
    const extensionsHeader = legacy
      ? (request.headers.get(LEGACY_HTTP_EXTENSION_HEADER) ?? request.headers.get(HTTP_EXTENSION_HEADER))
      : request.headers.get(HTTP_EXTENSION_HEADER);
    const caller = {
      client: request.headers.get(CLIENT_ADDRESS_HEADER) ?? "unknown",
      requestId,
      headers: request.headers,
      origin: addressedOrigin(request.headers),
    };
    const context = new ServerCallContext({
      user: new UnauthenticatedUser(),
      requestedVersion: version,
      requestedExtensions: Extensions.parseServiceParameter(extensionsHeader ?? undefined),
      state: new Map<string, unknown>([[CALLER_KEY, caller]]),
    });
    const answer = await (legacy ? v03 : v1).handle(envelope, context);
    if (!isStream(answer)) return reply(answer);
    return await eventStream(answer, id, headers, mapError);
  } catch (error) {
    if (error instanceof A2AError) return failure(id, mapError(error));
    // Our own fault: logged under the request id, never described to the caller.
    toAppError(error, requestId);
    return reply({ jsonrpc: "2.0", id, error: { code: A2A_ERROR_CODE.INTERNAL_ERROR, message: "Internal error." } }, 500);
  }
}

/**
 * A streaming answer as server-sent events. The first event is awaited before answering, so a request refused at once
 * (an unknown task, a malformed message) gets a plain JSON-RPC error, as the SDK's adapter does.
 */
async function eventStream(
  events: AsyncGenerator<Envelope, void, undefined>,
  id: string | number | null,
  headers: Record<string, string>,
  mapError: (error: unknown) => JsonRpcError,
): Promise<Response> {
  const iterator = events[Symbol.asyncIterator]();
  let pending: IteratorResult<Envelope, void> | undefined;
  try {
    pending = await iterator.next();
  } catch (error) {
    return new Response(JSON.stringify({ jsonrpc: "2.0", id, error: mapError(error) }), {
      headers: { ...headers, "Content-Type": "application/json" },
    });
  }
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = pending ?? (await iterator.next());
        pending = undefined;
        if (next.done) {
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(formatSSEEvent(next.value)));
      } catch (error) {
        controller.enqueue(encoder.encode(formatSSEErrorEvent({ jsonrpc: "2.0", id, error: mapError(error) })));
        controller.close();
      }
    },
    async cancel() {
      await iterator.return(undefined);
    },
  });
  return new Response(stream, { headers: { ...headers, "Content-Type": "text/event-stream", "X-Accel-Buffering": "no" } });
}
