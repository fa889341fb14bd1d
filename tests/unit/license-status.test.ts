import { describe, expect, it } from "vitest";
import { licenseStatus as dashboardStatus } from "@/components/dashboard/format";
import { licenseStatus as buyerStatus } from "@/components/licenses/format";
import { licenseStanding } from "@/lib/licensing/evaluate";

const DAY = 86_400_000;
const now = Date.UTC(2026, 0, 10, 12);
const at = (ms: number | null) => (ms === null ? null : new Date(ms));

describe("the license badges of the buyer pages and the dashboard", () => {
  const cases = [
    { l: { isActive: true, trial: false, expiresAt: null }, buyer: { kind: "active" }, dashboard: "active" },
    { l: { isActive: true, trial: false, expiresAt: now + 1 }, buyer: { kind: "active" }, dashboard: "active" },
    // Expiring at this very moment is expired, as /validate says (expiresAt <= now).
    { l: { isActive: true, trial: false, expiresAt: now }, buyer: { kind: "expired" }, dashboard: "expired" },
    { l: { isActive: true, trial: true, expiresAt: now - 1 }, buyer: { kind: "expired" }, dashboard: "expired" },
    { l: { isActive: true, trial: true, expiresAt: now + 2 * DAY + 1 }, buyer: { kind: "trial", daysLeft: 3 }, dashboard: "trial" },
    { l: { isActive: true, trial: true, expiresAt: now + 1 }, buyer: { kind: "trial", daysLeft: 1 }, dashboard: "trial" },
    // Revoked beats expired.
    { l: { isActive: false, trial: true, expiresAt: now - DAY }, buyer: { kind: "revoked" }, dashboard: "revoked" },
    { l: { isActive: false, trial: false, expiresAt: null }, buyer: { kind: "revoked" }, dashboard: "revoked" },
  ] as const;

  it("say what lib/licensing's licenseStanding says", () => {
    for (const c of cases) {
      const stored = { ...c.l, expiresAt: at(c.l.expiresAt) };
      expect(buyerStatus(stored, now), JSON.stringify(c.l)).toEqual(c.buyer);
      expect(dashboardStatus(stored, now), JSON.stringify(c.l)).toBe(c.dashboard);
      const code = licenseStanding({ pluginId: "p", ...c.l }, "p", now);
      expect(code === "VALID", JSON.stringify(c.l)).toBe(c.dashboard === "active" || c.dashboard === "trial");
    }
  });
});
