/**
 * Which releases a license may download and update to, from its product's update policy and the day it was issued.
 * Pure functions over rows the caller loaded, so the update check, the feeds, the buyer's download page and the tests
 * all apply one rule:
 *
 * - `all`: every published release.
 * - `days`: the releases published on or before `issuedAt + updateDays` days ("updates for N days after purchase");
 *   what came out later is shown as `newer_not_entitled`, never served.
 * - `major`: the releases whose major version is at most the highest major published on or before `issuedAt` ("this
 *   major version and its updates"); a license issued before any release was published gets the lowest major that
 *   has been published since.
 *
 * Drafts and yanked releases are never entitled, whatever the policy. A trial is entitled like a purchase issued the
 * day the trial started; whether the license is in force at all (revoked, refunded, expired, trial over) is the
 * licensing rules' business (lib/licensing/evaluate.ts), checked before this.
 */

const DAY_MS = 86_400_000;

/** A product's update policy as stored (Product.updatePolicy, Product.updateDays). */
export interface UpdatePolicy {
  /** "all" | "days" | "major"; anything else is read as "all". */
  updatePolicy: string;
  /** Days of updates after issue, for "days"; null otherwise. */
  updateDays: number | null;
}

/** The fields of a Release row the rule reads. */
interface ReleaseFacts {
  major: number;
  publishedAt: Date | null;
  status: string;
}

/** What a license brings to the rule: the day it was issued, and its own end of updates when it has one. */
interface LicenseFacts {
  issuedAt: Date;
  /** An updates plan's paid end, or a subscription's perpetual fallback: no release published after it counts. */
  updatesUntil?: Date | null;
}

/** When the product's policy ends a license's updates ("days" with a number of days), else null. */
function policyUntil(policy: UpdatePolicy, license: LicenseFacts): Date | null {
  if (policy.updatePolicy !== "days" || policy.updateDays === null || !Number.isFinite(policy.updateDays)) return null;
  return new Date(license.issuedAt.getTime() + Math.max(0, policy.updateDays) * DAY_MS);
}

/** When a license's updates end: the earlier of its policy's end and its own; null when neither ends them. */
export function updatesUntil(policy: UpdatePolicy, license: LicenseFacts): Date | null {
  const own = license.updatesUntil ?? null;
  const byPolicy = policyUntil(policy, license);
  if (own === null) return byPolicy;
  return byPolicy === null || own < byPolicy ? own : byPolicy;
}

const published = <R extends ReleaseFacts>(r: R): r is R & { publishedAt: Date } => r.status === "published" && r.publishedAt !== null;

/**
 * The releases (published, not yanked, from `releases`) a license may download and update to, in the order given.
 * `releases` may hold drafts and yanked ones; they are dropped.
 */
export function entitledReleases<R extends ReleaseFacts>(policy: UpdatePolicy, license: LicenseFacts, releases: R[]): R[] {
  const own = license.updatesUntil ?? null;
  // The license's own end of updates applies on top of any policy: nothing published after it.
  const live = releases.filter(published).filter((r) => own === null || r.publishedAt.getTime() <= own.getTime());
  if (policy.updatePolicy === "days") {
    const until = policyUntil(policy, license);
    if (!until) return live;
    return live.filter((r) => r.publishedAt.getTime() <= until.getTime());
  }
  if (policy.updatePolicy === "major") {
    const issued = license.issuedAt.getTime();
    const before = live.filter((r) => r.publishedAt.getTime() <= issued).map((r) => r.major);
    const limit = before.length > 0 ? Math.max(...before) : live.length > 0 ? Math.min(...live.map((r) => r.major)) : -1;
    return live.filter((r) => r.major <= limit);
  }
  return live;
}
