import { z } from "zod";
import { getDb } from "../db.ts";
import { detailOf, discloses, licenseStanding, trialDaysRemaining } from "./evaluate.ts";
import { loadLicenseState } from "./license-state.ts";
import { LICENSE_CODES } from "./codes.ts";
import { licenseKeySchema, pluginIdSchema } from "./schemas.ts";

export const licenseStatusRequestSchema = z.object({ license_key: licenseKeySchema, plugin_id: pluginIdSchema });
export type LicenseStatusRequest = z.infer<typeof licenseStatusRequestSchema>;

export const licenseStatusSchema = z.object({
  valid: z.boolean().describe("The license stands for this product: it exists, is not revoked and has not expired"),
  code: z.enum(Object.keys(LICENSE_CODES) as [keyof typeof LICENSE_CODES, ...(keyof typeof LICENSE_CODES)[]]),
  detail: z.string(),
  is_active: z.boolean(),
  trial: z.boolean(),
  trial_days_remaining: z.int(),
  expires_at: z.iso.datetime().nullable(),
  max_machines: z.int().nullable(),
  active_machines: z.int().nullable(),
  subscription: z
    .object({
      status: z.enum(["trialing", "active", "past_due", "canceling", "ended"]),
      interval: z.enum(["month", "year"]),
      current_period_end: z.iso.datetime().describe("The end of the paid (or free trial) period"),
      renews: z.boolean().describe("Whether it is charged again at current_period_end; false once canceled or ended"),
      grace_days: z.int().describe("Days the license keeps working past current_period_end while a renewal payment is retried"),
    })
    .nullable()
    .describe("The subscription this license follows; null for a license bought once (or an unknown key)"),
});
export type LicenseStatus = z.infer<typeof licenseStatusSchema>;

/** A license's standing for a product, independent of any machine: what an agent or support tool asks. */
export async function checkLicenseStatus(req: LicenseStatusRequest, now = Date.now()): Promise<LicenseStatus> {
  const state = await loadLicenseState(req.license_key);
  const code = licenseStanding(state, req.plugin_id, now);
  const open = state !== null && discloses(code);
  // Only a license that follows a subscription has one to describe: one more read, for those only.
  const sub =
    open && state.billing
      ? await getDb().subscription.findUnique({
          where: { licenseId: state.id },
          select: { status: true, interval: true, currentPeriodEnd: true, graceDays: true },
        })
      : null;
  return {
    valid: code === "VALID",
    code,
    detail: code === "VALID" ? "The license is valid for this product." : detailOf(code),
    is_active: open && state.isActive && (state.expiresAt === null || state.expiresAt > now),
    trial: open && state.trial,
    trial_days_remaining: open ? trialDaysRemaining(state, now) : 0,
    expires_at: open && state.expiresAt !== null ? new Date(state.expiresAt).toISOString() : null,
    max_machines: open ? state.maxMachines : null,
    active_machines: open ? state.machines.size : null,
    subscription: sub
      ? {
          status: sub.status as NonNullable<LicenseStatus["subscription"]>["status"],
          interval: sub.interval === "year" ? "year" : "month",
          current_period_end: sub.currentPeriodEnd.toISOString(),
          renews: sub.status === "active" || sub.status === "trialing" || sub.status === "past_due",
          grace_days: sub.graceDays,
        }
      : null,
  };
}
