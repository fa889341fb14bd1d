import { expect } from "vitest";

type Handler = (request: Request, context?: { params?: Promise<Record<string, string | string[] | undefined>> }) => Promise<Response>;

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Calls a route handler the way Next does: a real Request, path params as a promise. */
export async function call<T = any>(
  handler: Handler,
  path: string,
  init: RequestInit & { params?: Record<string, string>; json?: unknown } = {},
): Promise<Reply<T>> {
  const { params, json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (json !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
  const request = new Request(`http://localhost:3000${path}`, {
    ...rest,
    headers,
    body: json !== undefined ? JSON.stringify(json) : rest.body,
    ...(rest.body instanceof ReadableStream ? { duplex: "half" } : {}),
  });
  const response = await handler(request, { params: Promise.resolve(params ?? {}) });
  const text = await response.text();
  let body: any = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** Asserts an RFC 9457 problem document with our stable code. */
export function expectProblem(reply: Reply, status: number, code: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get("content-type")).toBe("application/problem+json");
  expect(reply.body).toMatchObject({ status, code, title: expect.any(String), detail: expect.any(String) });
  expect(reply.text).not.toMatch(/\bat .+\.(ts|js):\d+/); // no stack trace
}
