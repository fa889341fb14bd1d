import { describe, expect, it, vi } from "vitest";
import { AppError } from "@/lib/http/errors";
import { problemFor } from "@/lib/http/problem";
import { problemResponse, requestIdFrom, toAppError } from "@/lib/http/respond";

describe("problem documents", () => {
  it("carry status, title, code, detail and the request id", () => {
    const p = problemFor(new AppError("product_not_found", 404, "No such product."), "req-1", "/api/x");
    expect(p).toEqual({
      type: "about:blank",
      title: "Not Found",
      status: 404,
      detail: "No such product.",
      code: "product_not_found",
      instance: "/api/x",
      request_id: "req-1",
    });
  });

  it("hide unknown errors behind a generic 500 and log them", () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const err = toAppError(new TypeError("secret internal detail at /srv/app.ts:12"), "r");
    expect(err.status).toBe(500);
    expect(err.code).toBe("internal_error");
    expect(err.detail).not.toContain("secret");
    expect(log).toHaveBeenCalled();
    log.mockRestore();
  });

  it("answer 503 with Retry-After when the database cannot be reached", () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const err = toAppError(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }), "r");
    expect(err.status).toBe(503);
    const res = problemResponse(err, "r");
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("link")).toContain('rel="mcp"');
    log.mockRestore();
  });

  it("accept only plain request ids from callers", () => {
    expect(requestIdFrom("abc-123")).toBe("abc-123");
    expect(requestIdFrom("bad\r\nheader")).not.toContain("\n");
    expect(requestIdFrom("x".repeat(200))).toHaveLength(36);
  });
});

describe("errors made by another copy of the module", () => {
  it("are still recognised, so a refusal from the shared limiter stays a 429", async () => {
    // server.ts (tsx) and Next's bundle each load lib/http/errors.ts: two classes, one rate limiter between them.
    vi.resetModules();
    const other = await import("@/lib/http/errors");
    expect(other.AppError).not.toBe(AppError);
    const refusal = new other.AppError("rate_limited", 429, "Too many requests.", { headers: { "Retry-After": "7" } });
    expect(refusal instanceof AppError).toBe(true);
    const mapped = toAppError(refusal, "r");
    expect(mapped.status).toBe(429);
    const response = problemResponse(mapped, "r");
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("7");
    expect(new Error("plain") instanceof AppError).toBe(false);
    expect({ code: "rate_limited", status: 429 } instanceof AppError).toBe(false);
  });
});
