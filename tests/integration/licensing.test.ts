import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb, disconnectDb } from "@/lib/db";
import { setLicenseStatus } from "@/lib/licensing/set-license-status";
import { startTrial } from "@/lib/licensing/start-trial";
import { validateLicense } from "@/lib/licensing/validate-license";
import { flushValidations } from "@/lib/licensing/validation-log";
import { licenseCache } from "@/lib/licensing/license-state";
import { fingerprint, newLicense } from "../helpers/licenses";
import { post, startLeanServer } from "../helpers/lean-server";

let base: string;
let close: () => Promise<void>;
beforeAll(async () => ({ base, close } = await startLeanServer()));
afterAll(async () => {
  await close();
  await disconnectDb();
});

const DAY = 86_400_000;

describe("activate, validate, deactivate", () => {
  it("binds a key to a machine, validates it there and only there", async () => {
    const { license, product } = await newLicense({ maxMachines: 2 });
    const fp = fingerprint();
    const key = license.key;

    const fresh = await post(base, "/validate", { license_key: key, machine_fingerprint: fp, plugin_id: product.pluginId });
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ valid: false, machine_bound: false, code: "NO_MACHINE", trial: false, trial_days_remaining: 0 });

    const a = await post(base, "/activate", { license_key: key.toLowerCase(), machine_fingerprint: fp.toUpperCase(), plugin_id: product.pluginId });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ activated: true, machine_fingerprint: fp, code: "ACTIVATED", max_machines: 2, active_machines: 1 });
    expect(new Date(a.body.activated_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(a.headers.get("link")).toContain('rel="mcp"');

    const v = await post(base, "/validate", { license_key: key, machine_fingerprint: fp, plugin_id: product.pluginId });
    expect(v.body).toEqual({
      valid: true,
      expires_at: null,
      machine_bound: true,
      trial: false,
      trial_days_remaining: 0,
      code: "VALID",
      detail: expect.any(String),
    });

    const other = await post(base, "/validate", { license_key: key, machine_fingerprint: fingerprint(), plugin_id: product.pluginId });
    expect(other.body).toMatchObject({ valid: false, machine_bound: false, code: "FINGERPRINT_SCOPE_MISMATCH" });
  });

  it("re-activating the same machine is idempotent and takes no second seat", async () => {
    const { license, product } = await newLicense({ maxMachines: 1 });
    const req = { license_key: license.key, machine_fingerprint: fingerprint(), plugin_id: product.pluginId };
    const first = await post(base, "/activate", req);
    const again = await post(base, "/activate", req);
    expect(first.body.code).toBe("ACTIVATED");
    expect(again.body).toMatchObject({ activated: true, code: "ALREADY_ACTIVATED", activated_at: first.body.activated_at, active_machines: 1 });
    expect(await getDb().activation.count({ where: { licenseId: license.id } })).toBe(1);
  });

  it("refuses one machine past max_machines, and deactivation frees the seat at once", async () => {
    const { license, product } = await newLicense({ maxMachines: 3 });
    const fps = [1, 2, 3, 4].map((i) => fingerprint(`${license.id}-${i}`));
    for (const fp of fps.slice(0, 3)) {
      expect((await post(base, "/activate", { license_key: license.key, machine_fingerprint: fp, plugin_id: product.pluginId })).body.activated).toBe(
        true,
      );
    }
    const over = await post(base, "/activate", { license_key: license.key, machine_fingerprint: fps[3], plugin_id: product.pluginId });
    expect(over.status).toBe(200);
    expect(over.body).toMatchObject({ activated: false, code: "TOO_MANY_MACHINES", activated_at: null, active_machines: 3, max_machines: 3 });

    const d = await post(base, "/deactivate", { license_key: license.key, machine_fingerprint: fps[0] });
    expect(d.body).toEqual({ deactivated: true, code: "DEACTIVATED", detail: expect.any(String), active_machines: 2 });
    const v = await post(base, "/validate", { license_key: license.key, machine_fingerprint: fps[0], plugin_id: product.pluginId });
    expect(v.body).toMatchObject({ valid: false, machine_bound: false });

    const now = await post(base, "/activate", { license_key: license.key, machine_fingerprint: fps[3], plugin_id: product.pluginId });
    expect(now.body).toMatchObject({ activated: true, code: "ACTIVATED", active_machines: 3 });

    const twice = await post(base, "/deactivate", { license_key: license.key, machine_fingerprint: fps[0] });
    expect(twice.body).toMatchObject({ deactivated: false, code: "NOT_ACTIVATED", active_machines: 3 });
    const row = await getDb().license.findUniqueOrThrow({ where: { id: license.id } });
    expect(row.activeMachines).toBe(3);
  });

  it("answers unknown and other products' keys alike, revealing nothing but the code", async () => {
    const { license, product } = await newLicense({ expiresAt: new Date(Date.now() + 30 * DAY) });
    const fp = fingerprint();
    await post(base, "/activate", { license_key: license.key, machine_fingerprint: fp, plugin_id: product.pluginId });
    const wrong = await post(base, "/validate", { license_key: license.key, machine_fingerprint: fp, plugin_id: "com.other.product" });
    const unknown = await post(base, "/validate", { license_key: "ZZZZ-ZZZZ-ZZZZ-ZZZZ", machine_fingerprint: fp, plugin_id: product.pluginId });
    expect(wrong.body.code).toBe("PRODUCT_MISMATCH");
    expect(unknown.body.code).toBe("NOT_FOUND");
    const strip = (b: any) => ({ ...b, code: undefined, detail: undefined });
    expect(strip(wrong.body)).toEqual(strip(unknown.body));
    expect(wrong.body).toMatchObject({ valid: false, expires_at: null, machine_bound: false, trial: false });
    expect(Object.keys(wrong.body).sort()).toEqual(Object.keys(unknown.body).sort());

    const act = await post(base, "/activate", { license_key: license.key, machine_fingerprint: fingerprint(), plugin_id: "com.other.product" });
    const actUnknown = await post(base, "/activate", { license_key: "ZZZZ-ZZZZ-ZZZZ-ZZZZ", machine_fingerprint: fingerprint(), plugin_id: "x" });
    expect(act.body).toMatchObject({ activated: false, code: "PRODUCT_MISMATCH", max_machines: null, active_machines: null });
    expect(actUnknown.body).toMatchObject({ activated: false, code: "NOT_FOUND", max_machines: null, active_machines: null });
    const d = await post(base, "/deactivate", { license_key: "ZZZZ-ZZZZ-ZZZZ-ZZZZ", machine_fingerprint: fp });
    expect(d.body).toMatchObject({ deactivated: false, code: "NOT_FOUND" });
  });

  it("reports expiry, and revocation at once on every path; reinstatement restores it", async () => {
    const expired = await newLicense({ expiresAt: new Date(Date.now() - DAY) });
    const fp = fingerprint();
    const e = await post(base, "/validate", { license_key: expired.license.key, machine_fingerprint: fp, plugin_id: expired.product.pluginId });
    expect(e.body).toMatchObject({ valid: false, code: "EXPIRED", expires_at: expired.license.expiresAt!.toISOString() });
    const ea = await post(base, "/activate", { license_key: expired.license.key, machine_fingerprint: fp, plugin_id: expired.product.pluginId });
    expect(ea.body).toMatchObject({ activated: false, code: "EXPIRED" });

    const { license, product } = await newLicense();
    const req = { license_key: license.key, machine_fingerprint: fp, plugin_id: product.pluginId };
    await post(base, "/activate", req);
    expect((await post(base, "/validate", req)).body.valid).toBe(true); // now cached as valid
    await setLicenseStatus({ licenseId: license.id, active: false, reason: "chargeback" });
    expect((await post(base, "/validate", req)).body).toMatchObject({ valid: false, code: "REVOKED", machine_bound: true });
    expect((await post(base, "/activate", { ...req, machine_fingerprint: fingerprint() })).body).toMatchObject({ activated: false, code: "REVOKED" });
    await setLicenseStatus({ licenseId: license.id, active: true });
    expect((await post(base, "/validate", req)).body).toMatchObject({ valid: true, code: "VALID" });
  });

  it("records when each machine last validated, off the request path", async () => {
    const { license, product } = await newLicense();
    const req = { license_key: license.key, machine_fingerprint: fingerprint(), plugin_id: product.pluginId };
    await post(base, "/activate", req);
    await post(base, "/validate", req);
    expect(await flushValidations()).toBeGreaterThan(0);
    const act = await getDb().activation.findFirstOrThrow({ where: { licenseId: license.id } });
    expect(act.lastValidatedAt).not.toBeNull();
  });
});

describe("trials", () => {
  it("give trial licenses that count down and stop at the end", async () => {
    const product = await getDb().product.findFirstOrThrow({ where: { status: "active", trialAvailable: true, trialDays: { gt: 0 } } });
    const email = `trial-${Date.now()}@example.com`;
    const first = await startTrial({ productId: product.id, buyerEmail: email });
    expect(first.outcome).toBe("created");
    const license = first.license!;
    expect(license.trial).toBe(true);
    const again = await startTrial({ productId: product.id, buyerEmail: email.toUpperCase() });
    expect(again.outcome).toBe("existing");
    expect(again.license?.key).toBe(license.key);

    const fp = fingerprint();
    const req = { license_key: license.key, machine_fingerprint: fp, plugin_id: product.pluginId };
    expect((await post(base, "/activate", req)).body.activated).toBe(true);
    const start = license.issuedAt.getTime();
    licenseCache().clear();
    const day0 = await validateLicense(req, start + 1000);
    expect(day0).toMatchObject({ valid: true, trial: true, trial_days_remaining: product.trialDays });
    const later = await validateLicense(req, start + 3 * DAY + 1000);
    expect(later.trial_days_remaining).toBe(product.trialDays - 3);
    const after = await validateLicense(req, start + product.trialDays * DAY + 1000);
    expect(after).toMatchObject({ valid: false, code: "TRIAL_EXPIRED", trial: true, trial_days_remaining: 0 });
  });

  it("are refused for products without one, and one trial per buyer survives a race", async () => {
    const noTrial = await getDb().product.findFirstOrThrow({ where: { status: "active", trialAvailable: false } });
    await expect(startTrial({ productId: noTrial.id, buyerEmail: "a@example.com" })).rejects.toMatchObject({
      status: 409,
      code: "trial_not_available",
    });
    const product = await getDb().product.findFirstOrThrow({ where: { status: "active", trialAvailable: true }, orderBy: { id: "desc" } });
    const email = `race-${Date.now()}@example.com`;
    const results = await Promise.all(Array.from({ length: 8 }, () => startTrial({ productId: product.id, buyerEmail: email })));
    expect(new Set(results.map((r) => r.license?.key)).size).toBe(1);
    expect(results.filter((r) => r.outcome === "created")).toHaveLength(1);
    expect(await getDb().license.count({ where: { trialOf: `${product.id}:${email}` } })).toBe(1);
    // The key went out once, by e-mail.
    expect(await getDb().emailMessage.count({ where: { to: email, kind: "trial" } })).toBe(1);
  });
});

describe("seats under concurrency", () => {
  it("forty simultaneous activations with distinct machines fill exactly max_machines", async () => {
    const { license, product } = await newLicense({ maxMachines: 3 });
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        post(base, "/activate", { license_key: license.key, machine_fingerprint: fingerprint(`${license.id}-${i}`), plugin_id: product.pluginId }),
      ),
    );
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(replies.filter((r) => r.body.activated)).toHaveLength(3);
    expect(replies.filter((r) => r.body.code === "TOO_MANY_MACHINES")).toHaveLength(37);
    expect(await getDb().activation.count({ where: { licenseId: license.id } })).toBe(3);
    expect((await getDb().license.findUniqueOrThrow({ where: { id: license.id } })).activeMachines).toBe(3);
  });

  it("a race of the same machine yields one activation", async () => {
    const { license, product } = await newLicense({ maxMachines: 2 });
    const fp = fingerprint();
    const replies = await Promise.all(
      Array.from({ length: 12 }, () => post(base, "/activate", { license_key: license.key, machine_fingerprint: fp, plugin_id: product.pluginId })),
    );
    expect(replies.every((r) => r.status === 200 && r.body.activated)).toBe(true);
    expect(replies.filter((r) => r.body.code === "ACTIVATED")).toHaveLength(1);
    expect(await getDb().activation.count({ where: { licenseId: license.id } })).toBe(1);
    expect((await getDb().license.findUniqueOrThrow({ where: { id: license.id } })).activeMachines).toBe(1);
  });

  it("racing activations and deactivations keep the seat count equal to the machines", async () => {
    const { license, product } = await newLicense({ maxMachines: 4 });
    const fps = Array.from({ length: 8 }, (_, i) => fingerprint(`${license.id}-mix-${i}`));
    await Promise.all(
      fps.flatMap((fp) => [
        post(base, "/activate", { license_key: license.key, machine_fingerprint: fp, plugin_id: product.pluginId }),
        post(base, "/deactivate", { license_key: license.key, machine_fingerprint: fp }),
        post(base, "/activate", { license_key: license.key, machine_fingerprint: fp, plugin_id: product.pluginId }),
      ]),
    );
    const count = await getDb().activation.count({ where: { licenseId: license.id } });
    const row = await getDb().license.findUniqueOrThrow({ where: { id: license.id } });
    expect(row.activeMachines).toBe(count);
    expect(count).toBeLessThanOrEqual(4);
  });
});
