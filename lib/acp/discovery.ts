import { z } from "zod";
import { SUPPORTED_CURRENCIES } from "../pricing.ts";
import { paymentMode } from "../payments/provider.ts";
import { absoluteUrl } from "../urls.ts";
import { ACP_API_VERSION } from "./version.ts";

export const acpDiscoverySchema = z
  .object({
    protocol: z.object({
      name: z.literal("acp"),
      version: z.string(),
      supported_versions: z.array(z.string()),
      documentation_url: z.url().optional(),
    }),
    api_base_url: z.url(),
    transports: z.array(z.enum(["rest", "mcp"])),
    capabilities: z.object({
      services: z.array(z.enum(["checkout", "orders", "delegate_payment", "carts"])),
      extensions: z.array(z.object({ name: z.string(), spec: z.url().optional(), schema: z.url().optional() })).optional(),
      intervention_types: z.array(z.string()).optional(),
      supported_currencies: z.array(z.string()).optional(),
      supported_locales: z.array(z.string()).optional(),
    }),
  })
  .describe("ACP DiscoveryResponse (rfcs/rfc.discovery.md)");
type AcpDiscovery = z.infer<typeof acpDiscoverySchema>;

/**
 * `/.well-known/acp.json` (rfcs/rfc.discovery.md): that this seller speaks ACP, in which version, over REST (at
 * `<BASE_URL>/api/acp`) and MCP (the five checkout tools on /api/mcp), and what it offers. `delegate_payment` is
 * listed only while the built-in test vault is the payment provider (with Stripe, agents bring a Shared Payment Token
 * instead); `orders` because completed sessions carry the order and platforms with a webhook URL get its events. No
 * payment methods: those are negotiated per session, as the RFC asks.
 */
export function acpDiscovery(): AcpDiscovery {
  const testVault = paymentMode().provider === "test";
  return {
    protocol: {
      name: "acp",
      version: ACP_API_VERSION,
      supported_versions: [ACP_API_VERSION],
      documentation_url: absoluteUrl("/llms.txt"),
    },
    api_base_url: absoluteUrl("/api/acp"),
    transports: ["rest", "mcp"],
    capabilities: {
      services: ["checkout", "orders", ...(testVault ? (["delegate_payment"] as const) : [])],
      extensions: [{ name: "discount" }],
      intervention_types: [],
      supported_currencies: [...SUPPORTED_CURRENCIES],
    },
  };
}
