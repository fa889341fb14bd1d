import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureQueries, dbEngine, disconnectDb, getDb } from "@/lib/db";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { loadLicenseStateDirectly, loadLicenseStateOnPool } from "@/lib/licensing/direct-license-state";
import { loadLicenseState, loadLicenseStateThroughClient, type LicenseState } from "@/lib/licensing/license-state";
import { validateLicense } from "@/lib/licensing/validate-license";
import { resetEnv } from "@/lib/env";
import { licenseCache } from "@/lib/licensing/license-state";
import { fingerprint, newLicense } from "../helpers/licenses";

/**
 * The license state validation reads without the client (lib/licensing/direct-license-state.ts: two statements on
 * SQLite, one on PostgreSQL) against the same read through the client: every field, every machine, dates to the
 * millisecond, whatever state the license is in and however its dates were written.
 */
const SQLITE_ONLY = "(needs SQLite: PostgreSQL has a pool of connections, not one shared with the client)";
/** The direct reader of this engine: undefined would mean it was not taken. */
const direct = async (key: string) => (dbEngine() === "sqlite" ? loadLicenseStateDirectly(key) : await loadLicenseStateOnPool(key));

// Statements are told to captureQueries only when the client was made with query events on.
const saved = process.env.DATABASE_QUERY_EVENTS;
beforeAll(() => {
  process.env.DATABASE_QUERY_EVENTS = "on";
  resetEnv();
});

afterAll(async () => {
  await disconnectDb();
  if (saved === undefined) Reflect.deleteProperty(process.env, "DATABASE_QUERY_EVENTS");
  else process.env.DATABASE_QUERY_EVENTS = saved;
  resetEnv();
});

/** What validation uses of a state (LicenseState's fields): everything but the time it was read. */
const FIELDS = [
  "id",
  "key",
  "productId",
  "productName",
  "pluginId",
  "buyerEmail",
  "isActive",
  "revocation",
  "trial",
  "maxMachines",
  "issuedAt",
  "expiresAt",
] as const;
const facts = (s: LicenseState | null | undefined) => {
  if (!s) return s;
  return {
    ...Object.fromEntries(FIELDS.map((f) => [f, s[f]])),
    machines: [...s.machines].sort(([a], [b]) => a.localeCompare(b)).map(([fp, m]) => [fp, { id: m.id, activatedAt: m.activatedAt }]),
  };
};

describe("the direct read of a license's state", () => {
  it("answers what the client reads, for licenses in every state", async () => {
    const DAY = 86_400_000;
    const keys: string[] = [];
    const plain = await newLicense({ maxMachines: 3 });
    keys.push(plain.license.key);
    const machines = await newLicense({ maxMachines: 3 });
    for (let n = 0; n < 3; n++) {
      const r = await activateMachine({
        license_key: machines.license.key,
        machine_fingerprint: fingerprint(),
        plugin_id: machines.product.pluginId,
      });
      expect(r.activated).toBe(true);
    }
    keys.push(machines.license.key);
    const expiring = await newLicense({ maxMachines: 2, expiresAt: new Date(Date.now() + 3 * DAY + 123) });
    await getDb().license.update({ where: { id: expiring.license.id }, data: { trial: true } });
    keys.push(expiring.license.key);
    const revoked = await newLicense({ maxMachines: 1 });
    await getDb().license.update({ where: { id: revoked.license.id }, data: { isActive: false, revocation: "refunded", revokedAt: new Date() } });
    keys.push(revoked.license.key);
    // Dates written by SQL, without a zone (SQLite's CURRENT_TIMESTAMP form): UTC, as the client reads them.
    const written = await newLicense({ maxMachines: 1 });
    await getDb()
      .$executeRaw`UPDATE "License" SET "expiresAt" = '2031-02-03 04:05:06.789', "issuedAt" = CURRENT_TIMESTAMP WHERE "id" = ${written.license.id}`;
    keys.push(written.license.key);

    for (const key of keys) {
      const read = await direct(key);
      expect(read, key).not.toBeUndefined();
      expect(facts(read), key).toEqual(facts(await loadLicenseStateThroughClient(key)));
    }
    expect(facts(await direct(keys[1]!))!.machines).toHaveLength(3);
    expect((await direct(keys[4]!))!.expiresAt).toBe(Date.UTC(2031, 1, 3, 4, 5, 6, 789));
    expect(await direct("ZZZZ-ZZZZ-ZZZZ-ZZZZ")).toBeNull();
    // Validation's reader takes the direct statements, not the client's.
    const { queries } = await captureQueries(() => loadLicenseState(keys[1]!));
    expect(queries.length, JSON.stringify(queries)).toBe(dbEngine() === "sqlite" ? 2 : 1);
    expect(queries[0]!.sql).toMatch(dbEngine() === "sqlite" ? /FROM "License" l JOIN "Product"/ : /json_agg/);
  });

  it.skipIf(dbEngine() !== "sqlite")(`is not taken while a transaction of the client is open on the connection ${SQLITE_ONLY}`, async () => {
    const { license } = await newLicense({ maxMachines: 1 });
    let seen: unknown = "not run";
    await getDb().$transaction(async (tx) => {
      await tx.license.update({ where: { id: license.id }, data: { buyerEmail: "inside@example.com" } });
      seen = loadLicenseStateDirectly(license.key);
    });
    expect(seen).toBeUndefined();
    expect(loadLicenseStateDirectly(license.key)?.buyerEmail).toBe("inside@example.com");
  });

  it("serves validation: a new machine elsewhere is seen at once, a revocation in this process too", async () => {
    const { license, product } = await newLicense({ maxMachines: 2 });
    const machine = fingerprint();
    const ask = () => validateLicense({ license_key: license.key, machine_fingerprint: machine, plugin_id: product.pluginId });
    expect((await ask()).code).toBe("NO_MACHINE");
    await activateMachine({ license_key: license.key, machine_fingerprint: machine, plugin_id: product.pluginId });
    expect((await ask()).code).toBe("VALID");
    await getDb().license.update({ where: { id: license.id }, data: { isActive: false, revocation: "seller" } });
    licenseCache().invalidate(license.key);
    expect((await ask()).code).toBe("REVOKED");
  });
});
