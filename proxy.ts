import { NextResponse, type NextRequest } from "next/server";
import { env } from "./lib/env.ts";
import { REQUEST_PATH_HEADER } from "./lib/http/request-path.ts";
import { isPagePath, newNonce, securityHeaders } from "./lib/http/security-headers.ts";

/**
 * Runs before Next.js renders or routes anything (the licensing hot path and /health never get here: server.ts
 * answers them itself). Each HTML page gets a fresh nonce: Next reads it from the request's Content-Security-Policy
 * header and puts it on every script it renders; the same policy goes out on the response. Every other answer gets
 * the locked-down policy and the same framing, sniffing, referrer, permission and HSTS headers.
 */
export function proxy(request: NextRequest): NextResponse {
  const { pathname } = request.nextUrl;
  const e = env();
  const nonce = isPagePath(pathname) ? newNonce() : undefined;
  const headers = securityHeaders(pathname, { baseUrl: e.BASE_URL, development: e.NODE_ENV === "development" }, nonce);

  const requestHeaders = new Headers(request.headers);
  // A client's own copies are never what the page renders with (the path is always ours).
  requestHeaders.delete("x-nonce");
  requestHeaders.delete("content-security-policy");
  requestHeaders.set(REQUEST_PATH_HEADER, pathname);
  if (nonce !== undefined) {
    requestHeaders.set("x-nonce", nonce);
    requestHeaders.set("content-security-policy", headers["Content-Security-Policy"]);
  }
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

export const config = {
  // Build output is immutable, content-hashed JavaScript and CSS: no policy to carry.
  matcher: ["/((?!_next/static|_next/image).*)"],
};
