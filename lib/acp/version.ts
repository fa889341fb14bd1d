import { AppError } from "../http/errors.ts";

/** The Agentic Commerce Protocol version this service speaks (the dated release of the specification we implement). */
export const ACP_API_VERSION = "2026-04-17";

/** Every version we answer; a caller naming another gets the list, so it can pick one. */
const SUPPORTED = [ACP_API_VERSION] as const;

/**
 * The ACP version check every ACP endpoint runs first: REST carries it in the `API-Version` header, the MCP binding in
 * `meta.api_version`. Missing → 400 `api_version_required`; any value but a supported one → 400
 * `unsupported_api_version` naming the versions we support. Returns the version.
 */
export function requireApiVersion(source: Headers | { api_version?: unknown } | undefined): string {
  const fromHeaders = source instanceof Headers;
  const raw = fromHeaders ? source.get("api-version") : source?.api_version;
  const where = fromHeaders ? { in: "header", name: "API-Version" } : { in: "body", name: "meta.api_version" };
  if (raw === null || raw === undefined || raw === "")
    throw new AppError(
      "api_version_required",
      400,
      `Send the ACP version you speak: ${fromHeaders ? "the API-Version header" : "meta.api_version"} (supported: ${SUPPORTED.join(", ")}).`,
      { errors: [{ ...where, message: "is required" }] },
    );
  const version = typeof raw === "string" ? raw.trim() : JSON.stringify(raw);
  if (!(SUPPORTED as readonly string[]).includes(version))
    throw new AppError(
      "unsupported_api_version",
      400,
      `ACP version ${JSON.stringify(version).slice(0, 40)} is not supported; supported versions: ${SUPPORTED.join(", ")}.`,
      { errors: [{ ...where, message: `must be one of ${SUPPORTED.join(", ")}` }] },
    );
  return version;
}
