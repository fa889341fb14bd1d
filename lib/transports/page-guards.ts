import { readCookie } from "../auth/cookies.ts";
import { SESSION_COOKIE, sessionFromToken } from "../auth/sign-in.ts";
import { getDb } from "../db.ts";
import { missingPath, type MissingKind } from "../http/request-path.ts";

/**
 * Pages whose existence depends on the database. Next.js answers a page that calls notFound() with a 404 whose
 * HTML body is empty until JavaScript runs (vercel/next.js#62228); an unmatched URL gets the fully rendered
 * not-found page. So server.ts asks here first and sends requests for missing records to an unmatched URL that
 * names the kind of record, which the root not-found page reads (lib/http/request-path.ts).
 */
function decoded(id: string): string | null {
  try {
    return decodeURIComponent(id);
  } catch {
    return null;
  }
}

const guards: Array<{ kind: MissingKind; pattern: RegExp; exists: (id: string, cookie: string | null) => Promise<boolean> }> = [
  {
    kind: "product",
    pattern: /^\/products\/([^/?#]+)\/?$/,
    exists: async (id) => {
      const productId = decoded(id);
      return productId !== null && (await getDb().product.count({ where: { id: productId, status: "active" } })) > 0;
    },
  },
  {
    // The owner's preview: for anyone but the signed-in seller who owns the product, the same 404 as an unknown id.
    kind: "product",
    pattern: /^\/products\/([^/?#]+)\/preview\/?$/,
    exists: async (id, cookie) => {
      const productId = decoded(id);
      const session = productId === null ? null : await sessionFromToken(readCookie(cookie, SESSION_COOKIE.seller), "seller");
      if (!session || productId === null) return false;
      const where = { id: productId, status: { in: ["draft", "active", "unlisted"] }, developer: { email: session.email } };
      return (await getDb().product.count({ where })) > 0;
    },
  },
  {
    kind: "checkout",
    pattern: /^\/checkout\/(cs_[A-Za-z0-9]+)(?:\/(?:success|cancelled))?\/?$/,
    exists: async (id) => (await getDb().order.count({ where: { id } })) > 0,
  },
];

/** The URL to hand Next instead of `url` when it names a missing record, or null to serve it as it is. */
export async function missingPageRewrite(url: string, cookie: string | null = null): Promise<string | null> {
  const pathname = url.replace(/\?.*$/s, "");
  for (const guard of guards) {
    const id = guard.pattern.exec(pathname)?.[1];
    if (id !== undefined && !(await guard.exists(id, cookie))) return missingPath(guard.kind);
  }
  return null;
}
