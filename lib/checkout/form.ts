import { AppError } from "../http/errors.ts";
import { readBodyText } from "../http/input.ts";
import { absoluteUrl } from "../urls.ts";

/** Reads an HTML form post (application/x-www-form-urlencoded), capped like every other body. */
export async function readForm(request: Request, max = 8 * 1024): Promise<Record<string, string>> {
  const type = (request.headers.get("content-type") ?? "").split(";", 1)[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw new AppError("unsupported_media_type", 415, "Send this form as application/x-www-form-urlencoded.");
  }
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(await readBodyText(request, max))) if (!(k in out)) out[k] = v;
  return out;
}

/** A 303 to a path on this site (or an absolute URL): the browser follows it with a GET (post/redirect/get). */
export function seeOther(path: string): Response {
  return new Response(null, { status: 303, headers: { Location: absoluteUrl(path), "Cache-Control": "no-store" } });
}
