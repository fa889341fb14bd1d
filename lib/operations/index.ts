import { ACP } from "./acp.ts";
import { ACP_PAYMENTS } from "./acp-payments.ts";
import { ADMIN } from "./admin.ts";
import { AGENT_PLATFORMS } from "./agent-platforms.ts";
import { BUYER } from "./buyer.ts";
import { CHECKOUT } from "./checkout.ts";
import { COUPONS } from "./coupons.ts";
import type { Operation } from "./define.ts";
import { withDefaults } from "./guarantees.ts";
import { DEVTOOLS } from "./devtools.ts";
import { LICENSING } from "./licensing.ts";
import { MARKETPLACE } from "./marketplace.ts";
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
import { UPDATES } from "./updates.ts";

/**
 * Every operation the service offers, each declared once in its domain's file. Read it through these functions, not
 * at module load: documents derived from the registry are themselves operations, so the modules import each other.
 */
let all: Operation[] | undefined;

export function operations(): Operation[] {
  if (all) return all;
  const list = [
    ...SERVICE,
    ...MARKETPLACE,
    ...LICENSING,
    ...RECEIPTS,
    ...CHECKOUT,
    ...ACP,
    ...ACP_PAYMENTS,
    ...SELLER,
    ...SELLER_TOKENS,
    ...SELLER_LICENSES,
    ...SELLER_WEBHOOKS,
    ...SELLER_AGENTS,
    ...RELEASES,
    ...UPDATES,
    ...PAYOUTS,
    ...COUPONS,
    ...REFUNDS,
    ...REVIEWS,
    ...BUYER,
    ...ADMIN,
    ...AGENT_PLATFORMS,
    ...DEVTOOLS,
  ];
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
  all = list;
  return all;
}

/** The operations served at one path template, by method. */
export function operationsAt(path: string): Operation[] {
  const found = operations().filter((op) => op.http?.path === path);
  if (!found.length) throw new Error(`operation registry: nothing is declared at ${path}`);
  return found;
}

/** An operation's id (its OpenAPI operationId). */
export type OperationId = string;

let byId: Map<string, Operation> | undefined;

/** The operation with this id; an unknown id is a programming error. */
export function operationById(id: OperationId): Operation {
  byId ??= new Map(operations().map((op) => [op.id, op]));
  const op = byId.get(id);
  if (!op) throw new Error(`operation registry: no operation ${id}`);
  return op;
}
