import { ACP } from "./acp.ts";
import { ACP_PAYMENTS } from "./acp-payments.ts";
import { ADMIN } from "./admin.ts";
import { AGENT_PLATFORMS } from "./agent-platforms.ts";
import { BUNDLES } from "./bundles.ts";
import { BUYER } from "./buyer.ts";
import { CHECKOUT } from "./checkout.ts";
import { CHECKOUT_LINKS } from "./checkout-links.ts";
import { COUPONS } from "./coupons.ts";
import type { Operation } from "./define.ts";
import { withDefaults } from "./guarantees.ts";
import { DEVTOOLS } from "./devtools.ts";
import { DEVICE } from "./device.ts";
import { EMBED } from "./embed.ts";
import { LICENSING } from "./licensing.ts";
import { MARKETPLACE } from "./marketplace.ts";
import { MEDIA } from "./media.ts";
import { PAYOUTS } from "./payouts.ts";
import { RECEIPTS } from "./receipts.ts";
import { RELEASES } from "./releases.ts";
import { REFUNDS } from "./refunds.ts";
import { REVIEWS } from "./reviews.ts";
import { SELLER } from "./seller.ts";
import { SELLER_AGENTS } from "./seller-agents.ts";
import { SELLER_LICENSES } from "./seller-licenses.ts";
import { SELLER_TOKENS } from "./seller-tokens.ts";
import { SELLER_WEBHOOKS } from "./seller-webhooks.ts";
import { SERVICE } from "./service.ts";
import { SESSIONS } from "./sessions.ts";
import { SUBSCRIPTIONS } from "./subscriptions.ts";
import { UPDATES } from "./updates.ts";
import { UPGRADES } from "./upgrades.ts";

/**
 * Every operation of the product's domains, each declared once in its domain's file: all of the registry but the
 * documents derived from it (lib/operations/documents.ts). The tools and the documents read this list, so they never
 * import the registry's index, which imports them.
 */
let domain: Operation[] | undefined;

export function domainOperations(): Operation[] {
  if (domain) return domain;
  const list = [
    ...SERVICE,
    ...MARKETPLACE,
    ...LICENSING,
    ...DEVICE,
    ...RECEIPTS,
    ...CHECKOUT,
    ...ACP,
    ...ACP_PAYMENTS,
    ...SELLER,
    ...SELLER_TOKENS,
    ...SELLER_LICENSES,
    ...SELLER_WEBHOOKS,
    ...EMBED,
    ...SELLER_AGENTS,
    ...RELEASES,
    ...MEDIA,
    ...UPDATES,
    ...PAYOUTS,
    ...COUPONS,
    ...BUNDLES,
    ...CHECKOUT_LINKS,
    ...REFUNDS,
    ...SUBSCRIPTIONS,
    ...UPGRADES,
    ...REVIEWS,
    ...SESSIONS,
    ...BUYER,
    ...ADMIN,
    ...AGENT_PLATFORMS,
    ...DEVTOOLS,
  ];
  domain = checked(list);
  return domain;
}

/** Completes each declaration with its defaults and refuses a registry that declares something twice or wrongly. */
export function checked(list: Operation[]): Operation[] {
  const seen = new Set<string>();
  for (const op of list) {
    withDefaults(op);
    if (op.auth === "seller" && !op.sellerScope) throw new Error(`operation registry: ${op.id} is a seller operation without a sellerScope`);
    if (op.http?.bodyStream && op.tools?.length) throw new Error(`operation registry: ${op.id} streams its body and cannot be a tool`);
    const keys = [`id:${op.id}`, ...(op.http ? [`http:${op.http.method} ${op.http.path}`] : []), ...(op.tools ?? []).map((t) => `tool:${t.name}`)];
    for (const k of keys) {
      if (seen.has(k)) throw new Error(`operation registry: ${k} is declared twice`);
      seen.add(k);
    }
  }
  return list;
}
