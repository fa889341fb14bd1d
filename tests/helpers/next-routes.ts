import { existsSync, readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";

/**
 * Next's file-system router for route files (app/**\/route.ts), as the in-process servers of the integration tests
 * use it: the files under a folder of app/, matched against a URL path the way Next matches them, most specific
 * first. Pages are not routed here: they need Next's renderer, and the browser suite (e2e/) covers them.
 */

/** One Next route file: its URL segments as the folder names spell them ("[plugin_id]", "[...key]"). */
export interface FileRoute {
  file: string;
  segments: string[];
}

export type RouteHandler = (request: Request, context: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

export const APP_DIR = join(process.cwd(), "app");

/** The route.ts files under app/<dir> (recursively; "" for all of app/), as Next's file-system router sees them. */
export function routeFilesUnder(dir: string): FileRoute[] {
  const base = join(APP_DIR, dir);
  if (!existsSync(base)) return [];
  const out: FileRoute[] = [];
  for (const entry of readdirSync(base, { recursive: true, encoding: "utf8" })) {
    if (!/(^|[/\\])route\.ts$/.test(entry)) continue;
    const file = join(base, entry);
    const segments = relative(APP_DIR, file)
      .split(sep)
      .slice(0, -1)
      .filter((s) => !/^\(.*\)$/.test(s)); // route groups are not URL segments
    out.push({ file, segments });
  }
  return out;
}

/**
 * The params a URL path gets from a route file's segments, or null when it does not match: `[name]` takes one
 * segment, `[...name]` one or more, `[[...name]]` zero or more (decoded, as Next passes them).
 */
export function matchRoute(segments: string[], parts: string[]): Record<string, string | string[]> | null {
  const params: Record<string, string | string[]> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const rest = /^\[\[?\.\.\.([^\]]+)\]\]?$/.exec(seg);
    if (rest) {
      const taken = parts.slice(i);
      if (taken.length === 0 && !seg.startsWith("[[")) return null;
      params[rest[1]!] = taken;
      return i === segments.length - 1 ? params : null;
    }
    if (i >= parts.length) return null;
    const one = /^\[([^\]]+)\]$/.exec(seg);
    if (one) params[one[1]!] = parts[i]!;
    else if (seg !== parts[i]) return null;
  }
  return segments.length === parts.length ? params : null;
}

/** Next's precedence: a static segment before a dynamic one before a catch-all, segment by segment. */
function specificity(segments: string[]): number[] {
  return segments.map((s) => (s.startsWith("[[") ? 3 : s.startsWith("[...") ? 2 : s.startsWith("[") ? 1 : 0));
}
export function bySpecificity(a: FileRoute, b: FileRoute): number {
  const x = specificity(a.segments);
  const y = specificity(b.segments);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return y.length - x.length;
}
