import { createSellerToken, type SellerScope } from "@/lib/seller-api/tokens";

/**
 * A seller API token for tests that call the seller API (REST or MCP) as a seller's CI would: created the way the
 * dashboard creates one, returned as the Bearer string (`Authorization: Bearer <token>`).
 */
export async function sellerToken(developerId: string, scopes: SellerScope[], opts: { name?: string; expiresInDays?: number } = {}): Promise<string> {
  const created = await createSellerToken(developerId, "tests", {
    name: opts.name ?? `test ${scopes.join(" ")}`,
    scopes,
    ...(opts.expiresInDays !== undefined ? { expires_in_days: opts.expiresInDays } : {}),
  });
  return created.token;
}
