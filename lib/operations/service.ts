import { z } from "zod";
import { healthSchema, termsSchema } from "../api/doc-schemas.ts";
import { CACHE } from "../http/headers.ts";
import { PRICING } from "../pricing.ts";
import { getTerms } from "../terms/get-terms.ts";
import { VERSIONS } from "../versions.ts";
import { operation } from "./define.ts";

/** The service itself: health and terms (the documents agents start from are in documents.ts). */
export const SERVICE = [
  operation({
    id: "getHealth",
    summary: "Health check",
    tag: "Service",
    auth: "public",
    http: { method: "GET", path: "/health", lean: true },
    output: healthSchema,
    handler: () => ({ status: "ok" as const, version: VERSIONS.server }),
  }),
  operation({
    id: "getTerms",
    summary: "Terms and pricing",
    tag: "Service",
    auth: "public",
    http: { method: "GET", path: "/api/terms", cache: CACHE.document },
    output: termsSchema,
    handler: () => getTerms(),
    tools: [
      {
        name: "get_terms",
        title: "Get terms and pricing",
        layer: 3,
        description: `The service's terms: ${PRICING.transaction_fee_percent} % per sale, no monthly or setup fee, free SDK and self-hosting; capabilities, endpoints and a comparison with other licensing services.`,
        args: z.object({}),
        text: (t) => JSON.stringify(t, null, 2),
      },
    ],
  }),
];
