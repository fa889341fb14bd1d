import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { Role, TaskState, type Message, type Part, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as agentCardRoute from "@/app/.well-known/agent-card.json/route";
import * as agentJsonRoute from "@/app/.well-known/agent.json/route";
import * as a2aRoute from "@/app/api/a2a/route";
import { tools } from "@/lib/agents/tools";
import { disconnectDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { frontDoor } from "@/lib/transports/front";

/**
 * The A2A endpoint with the official @a2a-js/sdk client, on server.ts's real listener (lib/transports/front.ts: host check,
 * CORS, client address) with a stand-in for Next that calls the real route handlers and streams their bodies.
 */

type Handler = (request: Request) => Promise<Response>;
const routes: Record<string, Record<string, unknown>> = {
  "/.well-known/agent-card.json": agentCardRoute,
  "/.well-known/agent.json": agentJsonRoute,
  "/api/a2a": a2aRoute,
};

async function nextStandIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  const handler = routes[url.pathname]?.[req.method ?? "GET"] as Handler | undefined;
  if (!handler) {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
  const body = chunks.length ? Buffer.concat(chunks) : undefined;
  const response = await handler(new Request(`http://localhost${req.url ?? "/"}`, { method: req.method, headers, body }));
  for (const [k, v] of response.headers) res.setHeader(k, v);
  res.writeHead(response.status);
  if (response.body) Readable.fromWeb(response.body as never).pipe(res);
  else res.end();
}

let server: Server;
let base: string;
let client: Client;
const saved = { PORT: process.env.PORT, BASE_URL: process.env.BASE_URL };

beforeAll(async () => {
  server = createServer(frontDoor(nextStandIn));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  base = `http://localhost:${port}`;
  process.env.PORT = String(port);
  process.env.BASE_URL = base;
  resetEnv();
  client = await new ClientFactory().createFromUrl(base);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  Object.assign(process.env, saved);
  resetEnv();
  await disconnectDb();
});

const data = (value: unknown): Part => ({ content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" });
const text = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });

function userMessage(parts: Part[]): Message {
  return {
    messageId: randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

async function send(parts: Part[]): Promise<Task> {
  const result = await client.sendMessage({ tenant: "", message: userMessage(parts), configuration: undefined, metadata: undefined });
  expect("status" in result, "the agent answers with a task").toBe(true);
  return result as Task;
}

function resultData(task: Task): any {
  expect(task.status?.state, JSON.stringify(task.status?.message)).toBe(TaskState.TASK_STATE_COMPLETED);
  const part = task.artifacts[0]?.parts.find((p) => p.content?.$case === "data");
  return part?.content?.$case === "data" ? part.content.value : undefined;
}

function problem(task: Task): any {
  expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
  const part = task.status?.message?.parts.find((p) => p.content?.$case === "data");
  return part?.content?.$case === "data" ? part.content.value : undefined;
}

async function rpc(body: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(`${base}/api/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: r.status, headers: r.headers, json: await r.json() };
}

describe("agent card", () => {
  it("points the official client at the A2A endpoint, for A2A 1.0 and 0.3, with one skill per tool", async () => {
    const card = await (await fetch(`${base}/.well-known/agent-card.json`)).json();
    expect(card.supportedInterfaces).toEqual([
      { url: `${base}/api/a2a`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
      { url: `${base}/api/a2a`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "0.3" },
    ]);
    expect(card).toMatchObject({ url: `${base}/api/a2a`, preferredTransport: "JSONRPC", protocolVersion: "0.3.0" });
    expect(card.skills.map((s: any) => s.id)).toEqual(tools().map((t) => t.name));
    expect(card.defaultInputModes).toContain("application/json");
    expect(client.protocolVersion).toBe("1.0");
    expect(await (await fetch(`${base}/.well-known/agent.json`)).json()).toEqual(card);
  });
});

describe("SendMessage with the official client", () => {
  it("a data part {skill, arguments} runs that tool and the task carries its structured result", async () => {
    const task = await send([data({ skill: "browse_marketplace", arguments: { limit: 3 } })]);
    const result = resultData(task);
    expect(result.products).toHaveLength(3);
    expect(result.products[0]).toMatchObject({ id: expect.any(String), price_cents: expect.any(Number) });
    const textPart = task.artifacts[0]!.parts.find((p) => p.content?.$case === "text");
    expect(textPart?.content?.value).toEqual(expect.any(String));
    // The task can be read back by its id.
    const again = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(again.artifacts).toEqual(task.artifacts);
  });

  it("text is routed: plain text searches the marketplace, a skill id runs that skill, JSON text is an invocation", async () => {
    const search = resultData(await send([text("synth")]));
    expect(Array.isArray(search.products)).toBe(true);
    const terms = resultData(await send([text("get_terms")]));
    expect(terms).toHaveProperty("pricing");
    const one = resultData(await send([text('browse_marketplace {"limit": 1}')]));
    expect(one.products).toHaveLength(1);
    const json = resultData(await send([text(JSON.stringify({ skill: "browse_marketplace", arguments: { limit: 2 } }))]));
    expect(json.products).toHaveLength(2);
  });

  it("an unknown skill fails the task, naming the skills there are", async () => {
    const p = problem(await send([data({ skill: "launch_rocket", arguments: {} })]));
    expect(p.code).toBe("unknown_skill");
    expect(p.detail).toContain("browse_marketplace");
    expect(problem(await send([text("launch_rocket")])).code).toBe("unknown_skill");
  });

  it("a tool's error fails the task with the problem {code, detail, errors}", async () => {
    const missing = problem(await send([data({ skill: "get_product_details", arguments: { product_id: "no-such-product" } })]));
    expect(missing).toMatchObject({ code: "product_not_found", detail: expect.any(String), errors: [] });
    const bad = problem(await send([data({ skill: "browse_marketplace", arguments: { limit: 3, colour: "red" } })]));
    expect(bad.code).toBe("invalid_body");
    expect(bad.errors.length).toBeGreaterThan(0);
  });

  it("tool calls count against the caller's rate limits, as over REST and MCP", async () => {
    process.env.RATE_LIMIT_RECEIPT_PER_MIN = "2";
    try {
      const codes: string[] = [];
      for (let i = 0; i < 5; i++) {
        const task = await send([data({ skill: "get_receipt", arguments: { license_key: "AAAA-BBBB-CCCC-DDDD" } })]);
        codes.push(problem(task).code);
      }
      expect(codes).toContain("rate_limited");
    } finally {
      process.env.RATE_LIMIT_RECEIPT_PER_MIN = "1000000";
    }
  });

  it("streams the task over server-sent events", async () => {
    const events = [];
    for await (const event of client.sendMessageStream({
      tenant: "",
      message: userMessage([text("get_terms")]),
      configuration: undefined,
      metadata: undefined,
    })) {
      events.push(event);
    }
    const last = events.at(-1)?.payload;
    expect(last?.$case).toBe("statusUpdate");
    expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(events.some((e) => e.payload?.$case === "artifactUpdate")).toBe(true);
  });
});

describe("A2A 0.3 clients (no A2A-Version header)", () => {
  it("message/send answers in the 0.3 shapes", async () => {
    const r = await rpc({
      jsonrpc: "2.0",
      id: 7,
      method: "message/send",
      params: {
        message: {
          kind: "message",
          role: "user",
          messageId: randomUUID(),
          parts: [{ kind: "data", data: { skill: "browse_marketplace", arguments: { limit: 2 } } }],
        },
      },
    });
    expect(r.status).toBe(200);
    expect(r.json.id).toBe(7);
    expect(r.json.result).toMatchObject({ kind: "task", status: { state: "completed" } });
    const part = r.json.result.artifacts[0].parts.find((p: any) => p.kind === "data");
    expect(part.data.products).toHaveLength(2);
  });
});

describe("protocol errors are JSON-RPC errors", () => {
  it("bad JSON, a bad envelope, an unknown method, listing tasks, an unsupported version", async () => {
    const v1 = { "A2A-Version": "1.0" };
    expect((await rpc("{not json", v1)).json.error.code).toBe(-32700);
    // A malformed request is the SDK's RequestMalformedError: -32602 in A2A 1.0, -32600 in 0.3.
    expect((await rpc({ id: 1, method: "SendMessage" }, v1)).json.error.code).toBe(-32602);
    expect((await rpc({ id: 1, method: "message/send" })).json.error.code).toBe(-32600);
    expect((await rpc({ jsonrpc: "2.0", id: 2, method: "Nope", params: {} }, v1)).json).toMatchObject({ id: 2, error: { code: -32601 } });
    expect((await rpc({ jsonrpc: "2.0", id: 3, method: "ListTasks", params: {} }, v1)).json.error.code).toBe(-32004);
    expect((await rpc({ jsonrpc: "2.0", id: 4, method: "SendMessage", params: {} }, { "A2A-Version": "9.9" })).json.error.code).toBe(-32009);
    const unknownTask = await rpc({ jsonrpc: "2.0", id: 5, method: "GetTask", params: { id: randomUUID() } }, v1);
    expect(unknownTask.json.error.code).toBe(-32001);
  });

  it("a body over the cap is refused before the SDK sees it; other methods get 405", async () => {
    const r = await fetch(`${base}/api/a2a`, { method: "POST", headers: { "content-type": "application/json" }, body: "x".repeat(70_000) });
    expect(r.status).toBe(413);
    expect((await fetch(`${base}/api/a2a`)).status).toBe(405);
  });

  it("a preflight from another origin is approved with the A2A headers, without credentials", async () => {
    const r = await fetch(`${base}/api/a2a`, {
      method: "OPTIONS",
      headers: {
        origin: "https://agent.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, a2a-version",
      },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.headers.get("access-control-allow-headers")).toContain("a2a-version");
    expect(r.headers.get("access-control-allow-credentials")).toBeNull();
  });
});
