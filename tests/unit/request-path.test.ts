import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { missingKind, missingPath, REQUEST_PATH_HEADER } from "@/lib/http/request-path";
import { proxy } from "@/proxy";

/** The root 404 page learns what was not found from the path proxy.ts passes on; a client cannot choose it. */

/** The request headers proxy.ts hands to the page, as Next reads them from its answer. */
function pageHeaders(url: string, sent: Record<string, string> = {}): Headers {
  const response = proxy(new NextRequest(url, { headers: sent }));
  const headers = new Headers();
  for (const name of (response.headers.get("x-middleware-override-headers") ?? "").split(",")) {
    const value = response.headers.get(`x-middleware-request-${name}`);
    if (value !== null) headers.set(name, value);
  }
  return headers;
}

describe("the path a 404 page reads", () => {
  it("names the kind of missing record server.ts sends on", () => {
    expect(missingKind(new Headers({ [REQUEST_PATH_HEADER]: missingPath("product") }))).toBe("product");
    expect(missingKind(new Headers({ [REQUEST_PATH_HEADER]: missingPath("checkout") }))).toBe("checkout");
    for (const other of ["/products/tape-warmth", "/_missing/license", "/_missing", "/no-such-page", ""]) {
      expect(missingKind(new Headers({ [REQUEST_PATH_HEADER]: other }))).toBeNull();
    }
    expect(missingKind(new Headers())).toBeNull();
  });

  it("is always the request's own path: proxy.ts replaces a client's copy", () => {
    const missing = pageHeaders(`http://localhost:3000${missingPath("product")}`, { [REQUEST_PATH_HEADER]: missingPath("checkout") });
    expect(missing.get(REQUEST_PATH_HEADER)).toBe(missingPath("product"));
    expect(missingKind(missing)).toBe("product");

    const page = pageHeaders("http://localhost:3000/no-such-page", { [REQUEST_PATH_HEADER]: missingPath("product") });
    expect(page.get(REQUEST_PATH_HEADER)).toBe("/no-such-page");
    expect(missingKind(page)).toBeNull();
  });
});
