import { randomUUID } from "node:crypto";
import { Role, TaskState, type Message, type Part, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { disconnectDb } from "@/lib/db";
import { startAppServer, type AppServer } from "../helpers/app-server";

/**
 * A2A over HTTP against the service in this process (tests/helpers/app-server.ts: server.ts's front door and the
 * route files) with the official @a2a-js/sdk client, built from nothing but the agent card's address
 * (ClientFactory.createFromUrl), as an agent developer would start. (Moved from the browser suite, which needed no
 * browser for it; tests/integration/a2a.test.ts checks the binding in detail.)
 */
let app: AppServer;
let baseURL: string;
beforeAll(async () => {
  app = await startAppServer();
  baseURL = app.url;
});
afterAll(async () => {
  await app.close();
  await disconnectDb();
});

const data = (value: unknown): Part => ({ content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" });
const text = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });

function request(parts: Part[]) {
  const message: Message = {
    messageId: randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: "", message, configuration: undefined, metadata: undefined };
}

async function send(client: Client, parts: Part[]): Promise<Task> {
  const result = await client.sendMessage(request(parts));
  expect("status" in result, "the agent answers with a task").toBe(true);
  return result as Task;
}

function dataOf(parts: Part[] | undefined): any {
  const part = parts?.find((p) => p.content?.$case === "data");
  return part?.content?.$case === "data" ? part.content.value : undefined;
}

function result(task: Task): any {
  expect(task.status?.state, JSON.stringify(task.status?.message?.parts)).toBe(TaskState.TASK_STATE_COMPLETED);
  return dataOf(task.artifacts[0]?.parts);
}

function problem(task: Task): any {
  expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
  return dataOf(task.status?.message?.parts);
}

it("A2A: the official client builds itself from the card URL and browse_marketplace returns products", async () => {
  const client = await new ClientFactory().createFromUrl(baseURL);
  expect(client.protocolVersion).toBe("1.0");
  const card = await client.getAgentCard();
  expect(card.supportedInterfaces[0]).toMatchObject({ url: `${baseURL}/api/a2a`, protocolBinding: "JSONRPC" });
  expect(card.skills.map((s) => s.id)).toContain("browse_marketplace");

  const task = await send(client, [data({ skill: "browse_marketplace", arguments: { category: "audio-plugins", limit: 3 } })]);
  const found = result(task);
  expect(found.products).toHaveLength(3);
  expect(found.products.every((p: { category: string }) => p.category === "audio-plugins")).toBe(true);
  const rest = (await app.get("/api/marketplace/listings?category=audio-plugins&limit=1")).body;
  expect(found.total).toBe(rest.total);
  expect(task.artifacts[0]!.parts.some((p) => p.content?.$case === "text")).toBe(true);

  // The task stays readable by its id.
  const again = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
  expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
});

it("A2A: text is routed to a skill; streaming ends in a completed task", async () => {
  const client = await new ClientFactory().createFromUrl(baseURL);
  const search = result(await send(client, [text("tape")]));
  expect(search.products.length).toBeGreaterThan(0);
  const terms = result(await send(client, [text("get_terms")]));
  expect(terms.pricing.transaction_fee_percent).toBe(5);
  const details = result(await send(client, [text(`get_product_details ${JSON.stringify({ product_id: search.products[0].id })}`)]));
  expect(details.product.id).toBe(search.products[0].id);

  const events = [];
  for await (const event of client.sendMessageStream(request([data({ skill: "get_terms", arguments: {} })]))) events.push(event);
  const last = events.at(-1)?.payload;
  expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
});

it("A2A: an unknown skill and a tool's error fail the task with the problem as data", async () => {
  const client = await new ClientFactory().createFromUrl(baseURL);
  const unknown = problem(await send(client, [data({ skill: "teleport", arguments: {} })]));
  expect(unknown.code).toBe("unknown_skill");
  expect(unknown.detail).toContain("browse_marketplace");

  const missing = problem(await send(client, [data({ skill: "get_product_details", arguments: { product_id: "no-such-product" } })]));
  expect(missing).toMatchObject({ code: "product_not_found", detail: expect.any(String), errors: [] });
  const invalid = problem(await send(client, [data({ skill: "browse_marketplace", arguments: { limit: 500 } })]));
  expect(invalid.code).toBe("invalid_body");
  expect(invalid.errors[0]).toMatchObject({ name: "limit" });
});

it("A2A: a 0.3 client's message/send works; bad JSON-RPC gets a JSON-RPC error", async () => {
  const post = async (body: string, headers: Record<string, string> = {}) => {
    const r = await fetch(`${baseURL}/api/a2a`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
    expect(r.status).toBe(200);
    return await r.json();
  };
  const legacy = await post(
    JSON.stringify({
      jsonrpc: "2.0",
      id: "a",
      method: "message/send",
      params: { message: { kind: "message", role: "user", messageId: randomUUID(), parts: [{ kind: "text", text: "tape" }] } },
    }),
  );
  expect(legacy.result).toMatchObject({ kind: "task", status: { state: "completed" } });
  expect(legacy.result.artifacts[0].parts.find((p: { kind: string }) => p.kind === "data").data.products.length).toBeGreaterThan(0);

  expect((await post("{oops")).error.code).toBe(-32700);
  expect(await post(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "NoSuchMethod", params: {} }), { "A2A-Version": "1.0" })).toMatchObject({
    jsonrpc: "2.0",
    id: 9,
    error: { code: -32601 },
  });
});
