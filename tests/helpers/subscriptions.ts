import { getDb } from "@/lib/db";
import { licenseCache } from "@/lib/licensing/license-state";
import { validateLicense } from "@/lib/licensing/validate-license";

/** What a subscription test reads back, the same way in each file. */

/** /validate's answer for a machine at `at` (the cache cleared first, so the answer is the database's). */
export function checkAt(s: { key: string; fp: string; pluginId: string }, at = Date.now()) {
  licenseCache().clear();
  return validateLicense({ license_key: s.key, machine_fingerprint: s.fp, plugin_id: s.pluginId }, at);
}

/** A subscription with its license, as stored now. */
export const subscriptionRow = (id: string) => getDb().subscription.findUniqueOrThrow({ where: { id }, include: { license: true } });

/** The kinds of the e-mails queued for an address, oldest first. */
export const mailKinds = async (to: string) =>
  (await getDb().emailMessage.findMany({ where: { to }, orderBy: { createdAt: "asc" } })).map((m) => m.kind);

/** The subscription.* events queued for a seller's webhook endpoints, oldest first. */
export async function subscriptionEvents(developerId: string) {
  const endpoints = await getDb().sellerWebhookEndpoint.findMany({ where: { developerId }, select: { id: true } });
  const rows = await getDb().webhookDelivery.findMany({ where: { targetId: { in: endpoints.map((e) => e.id) } }, orderBy: { createdAt: "asc" } });
  return rows.map((r) => r.eventType).filter((t) => t.startsWith("subscription."));
}
