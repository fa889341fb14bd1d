import { connect } from "node:net";
import { expect, test } from "@playwright/test";

// The limits of the real server process (server.ts's node:http options, and the body caps of its lean path and Next):
// a body over the cap on the lean path and on a Next route, headers over Node's 16 KiB, a client that never finishes
// its headers. The hostile-input fuzz of every operation and of the MCP endpoint runs in process, on both engines:
// tests/integration/fuzz.test.ts.

test("size, header and time limits are enforced", async ({ baseURL }) => {
  test.setTimeout(60_000); // the headers timeout alone is 15 s
  const big = await fetch(new URL("/validate", baseURL), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ license_key: "x".repeat(70_000) }),
  });
  expect(big.status).toBe(413);
  expect((await big.json()).code).toBe("body_too_large");
  const bigNext = await fetch(new URL("/api/checkout/create", baseURL), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ pad: "x".repeat(70_000) }),
  });
  expect(bigNext.status).toBe(413);

  const { hostname, port } = new URL(baseURL!);
  const raw = (payload: string, waitMs: number) =>
    new Promise<string>((resolve) => {
      const socket = connect(Number(port), hostname);
      let received = "";
      socket.on("data", (d) => (received += d.toString()));
      socket.on("close", () => resolve(received));
      socket.on("error", () => resolve(received));
      socket.write(payload);
      setTimeout(() => {
        socket.destroy();
        resolve(received + "\n[still open]");
      }, waitMs);
    });
  // Headers larger than Node's 16 KiB limit: 431.
  const huge = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, 5_000);
  expect(huge).toMatch(/^HTTP\/1\.1 431/);
  // A client that never finishes its headers is cut off (headersTimeout 15 s), not kept forever.
  const slow = await raw("GET /health HTTP/1.1\r\nHost: x\r\n", 25_000);
  expect(slow).not.toContain("[still open]");
  expect((await fetch(new URL("/health", baseURL))).status).toBe(200);
});
