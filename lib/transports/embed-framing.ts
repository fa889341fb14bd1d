import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { frameSourcesFor, maybeEmbeddable } from "../embed/framing.ts";
import { frameAncestorsSources, frameOptionsFor, withFrameAncestors } from "../http/security-headers.ts";

/**
 * The one place framing is ever allowed: for the checkout pages the buy button's overlay shows (lib/embed/framing.ts
 * decides which, and who may frame them), the answer's `frame-ancestors` is rewritten, just before its headers go
 * out, from the `'none'` proxy.ts gave it to the seller's verified origins, read from the database for this
 * request; X-Frame-Options is made to agree. Every other answer passes untouched.
 */
export async function applyEmbedFraming(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? "/";
  if (!maybeEmbeddable(url)) return;
  const sources = await frameSourcesFor(url);
  if (!sources) return;
  const ancestors = frameAncestorsSources(sources);
  const frameOptions = frameOptionsFor(sources);

  const rewrite = (get: (name: string) => unknown, set: (name: string, value: string) => void, remove: (name: string) => void) => {
    const csp = get("content-security-policy");
    if (typeof csp === "string") set("content-security-policy", withFrameAncestors(csp, ancestors));
    if (frameOptions === null) remove("x-frame-options");
    else if (get("x-frame-options") !== undefined) set("x-frame-options", frameOptions);
  };

  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = (...args: unknown[]) => {
    if (!res.headersSent) {
      rewrite(
        (n) => res.getHeader(n),
        (n, v) => res.setHeader(n, v),
        (n) => res.removeHeader(n),
      );
      // Headers handed to writeHead itself (after the status, and the status message if any).
      const given = args.find((a, i) => i > 0 && typeof a === "object" && a !== null && !Array.isArray(a)) as OutgoingHttpHeaders | undefined;
      if (given) {
        const key = (n: string) => Object.keys(given).find((k) => k.toLowerCase() === n);
        rewrite(
          (n) => {
            const k = key(n);
            return k === undefined ? undefined : given[k];
          },
          (n, v) => {
            given[key(n) ?? n] = v;
          },
          (n) => {
            const k = key(n);
            if (k !== undefined) Reflect.deleteProperty(given, k);
          },
        );
      }
    }
    return writeHead(...args);
  };
}
