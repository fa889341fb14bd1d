import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnv } from "@/lib/env";
import { frontDoor } from "@/lib/transports/front";
import { formOf, idOf } from "@/lib/transports/action";

/**
 * A server action called with arguments a browser could not have sent (no form, an id that is not a string) is a
 * 400 problem, not the 500 Next answers a thrown error with: on server.ts's real request listener, with a stand-in
 * for Next that runs the action's argument checks and then answers as Next does (a 500 for the thrown error, after
 * setting its own headers). Any other answer of Next passes untouched.
 */

async function nextStandIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const args = JSON.parse(
    await new Promise<string>((resolve) => {
      let text = "";
      req.on("data", (c: Buffer) => (text += c.toString()));
      req.on("end", () => resolve(text));
    }),
  ) as unknown[];
  res.setHeader("x-powered-by", "Next.js");
  res.setHeader("content-type", "text/x-component");
  try {
    // What an adapter does first: its arguments checked before anything runs.
    idOf(args[0]);
    formOf(args[1]);
    res.writeHead(200).end("0:ok");
  } catch {
    res.statusCode = 500;
    res.end('0:{"error":"digest"}');
  }
}

let server: Server;
let base = "";
const saved = { BASE_URL: process.env.BASE_URL };

beforeAll(async () => {
  server = createServer(frontDoor(nextStandIn));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://localhost:${(server.address() as AddressInfo).port}`;
  process.env.BASE_URL = base;
  resetEnv();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  Object.assign(process.env, saved);
  resetEnv();
});

const action = (body: unknown, headers: Record<string, string> = { "next-action": "7f00aa" }) =>
  fetch(`${base}/dashboard/webhooks`, {
    method: "POST",
    headers: { "content-type": "text/plain;charset=UTF-8", ...headers },
    body: JSON.stringify(body),
  });

describe("server actions called with the wrong arguments", () => {
  it.each([[[]], [[42]], [["we_12345678", "not a form"]], [[{ id: 1 }, {}]]])("%j answers a 400 problem", async (args) => {
    const res = await action(args);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("x-powered-by")).toBeNull();
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 400, code: "invalid_action_arguments", detail: expect.any(String) });
  });

  it("leaves a Next 500 that is not a refused argument alone, and any other POST", async () => {
    // No Next-Action header: not an action, Next's answer goes out as it is.
    const plain = await action([], {});
    expect(plain.status).toBe(500);
    expect(await plain.text()).toBe('0:{"error":"digest"}');
  });
});
