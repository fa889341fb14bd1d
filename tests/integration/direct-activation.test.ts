import { afterAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { dbEngine, disconnectDb, getDb } from "@/lib/db";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { newId } from "@/lib/licensing/direct-activation";
import { licenseStanding } from "@/lib/licensing/evaluate";
import { fingerprint, newLicense } from "../helpers/licenses";

/**
 * The direct activation (lib/licensing/direct-activation.ts) writes rows the client reads back exactly as if it had
 * written them itself: the activation's dates and details, the seat, the license's updatedAt, the event and its JSON
 * detail. It steps aside while one of the client's transactions is open on SQLite's one connection, and for a seller
 * with a webhook endpoint (whose delivery the general path queues).
 */

afterAll(async () => {
  await disconnectDb();
});

describe("direct activation", () => {
  it("writes the activation, the seat and the event as the client reads them", async () => {
    const { license, product } = await newLicense({ maxMachines: 2 });
    const before = await getDb().license.findUniqueOrThrow({ where: { id: license.id } });
    const fp = fingerprint();
    const now = Date.now();
    const answer = await activateMachine(
      {
        license_key: license.key,
        machine_fingerprint: fp,
        plugin_id: product.pluginId,
        machine_name: "Studio “A”",
        platform: "macos-arm64",
        app_version: "2.1.0",
      },
      now,
      { type: "buyer", name: "buyer@example.com" },
    );
    expect(answer).toEqual({
      activated: true,
      machine_fingerprint: fp,
      activated_at: new Date(now).toISOString(),
      code: "ACTIVATED",
      detail: expect.any(String) as string,
      max_machines: 2,
      active_machines: 1,
    });

    const rows = await getDb().activation.findMany({ where: { licenseId: license.id } });
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.id).toMatch(/^c[0-9a-z]{20,30}$/);
    expect(row.fingerprint).toBe(fp);
    expect(row.activatedAt.getTime()).toBe(now);
    expect(row.lastValidatedAt?.getTime()).toBe(now);
    expect([row.machineName, row.platform, row.appVersion]).toEqual(["Studio “A”", "macos-arm64", "2.1.0"]);

    const after = await getDb().license.findUniqueOrThrow({ where: { id: license.id } });
    expect(after.activeMachines).toBe(1);
    expect(after.updatedAt.getTime()).toBe(now);
    expect(after.updatedAt.getTime()).toBeGreaterThanOrEqual(before.updatedAt.getTime());

    const events = await getDb().licenseEvent.findMany({ where: { licenseId: license.id, type: "activated" } });
    expect(events).toHaveLength(1);
    expect(events[0]!.createdAt.getTime()).toBe(now);
    expect(events[0]!).toMatchObject({ actorType: "buyer", actor: "buyer@example.com", count: 1, code: null });
    expect(events[0]!.detail).toEqual({
      fingerprint: fp,
      activation_id: row.id,
      machine_name: "Studio “A”",
      platform: "macos-arm64",
      app_version: "2.1.0",
    });

    // The same machine again is a repeat (the general path), and takes no seat.
    const again = await activateMachine({ license_key: license.key, machine_fingerprint: fp, plugin_id: product.pluginId });
    expect(again.code).toBe("ALREADY_ACTIVATED");
    expect(again.active_machines).toBe(1);
  });

  it("answers refusals from its own read, as the general path would", async () => {
    const { license, product } = await newLicense({ maxMachines: 1, expiresAt: new Date(Date.now() - 60_000) });
    const expired = await activateMachine({ license_key: license.key, machine_fingerprint: fingerprint(), plugin_id: product.pluginId });
    expect(expired).toMatchObject({ activated: false, code: "EXPIRED", max_machines: 1, active_machines: 0 });
    const mismatch = await activateMachine({ license_key: license.key, machine_fingerprint: fingerprint(), plugin_id: "com.example.other" });
    expect(mismatch).toMatchObject({ activated: false, code: "PRODUCT_MISMATCH", max_machines: null, active_machines: null });
    const unknown = await activateMachine({
      license_key: `UNKNOWN-${randomBytes(6).toString("hex")}`,
      machine_fingerprint: fingerprint(),
      plugin_id: product.pluginId,
    });
    expect(unknown).toMatchObject({ activated: false, code: "NOT_FOUND", max_machines: null });
    expect(await getDb().activation.count({ where: { licenseId: license.id } })).toBe(0);
  });

  it("takes a seat exactly when licenseStanding() says the license is in good standing, over every combination", async () => {
    const DAY = 86_400_000;
    const now = Date.now();
    const cases = [];
    for (const isActive of [true, false])
      for (const revocation of isActive ? [null] : ["seller", "refunded", "disputed"])
        for (const expiresAt of [null, now - DAY, now - 1, now, now + 1, now + DAY])
          for (const trial of [false, true])
            for (const sameProduct of [true, false]) cases.push({ isActive, revocation, expiresAt, trial, sameProduct });
    for (const c of cases) {
      const { license, product } = await newLicense({ maxMachines: 2, expiresAt: c.expiresAt === null ? null : new Date(c.expiresAt) });
      await getDb().license.update({ where: { id: license.id }, data: { isActive: c.isActive, revocation: c.revocation, trial: c.trial } });
      const pluginId = c.sameProduct ? product.pluginId : `${product.pluginId}.other`;
      const expected = licenseStanding(
        { pluginId: product.pluginId, isActive: c.isActive, revocation: c.revocation, trial: c.trial, expiresAt: c.expiresAt },
        pluginId,
        now,
      );
      const answer = await activateMachine({ license_key: license.key, machine_fingerprint: fingerprint(), plugin_id: pluginId }, now);
      const label = JSON.stringify({ ...c, expiresAt: c.expiresAt === null ? null : c.expiresAt - now });
      expect(answer.code, label).toBe(expected === "VALID" ? "ACTIVATED" : expected);
      expect(await getDb().activation.count({ where: { licenseId: license.id } }), label).toBe(expected === "VALID" ? 1 : 0);
      expect((await getDb().license.findUniqueOrThrow({ where: { id: license.id } })).activeMachines, label).toBe(expected === "VALID" ? 1 : 0);
    }
  });

  it.skipIf(dbEngine() !== "sqlite")(
    "waits its turn while a transaction of the client is open on the connection (needs SQLite: PostgreSQL has a pool of connections, not one shared with the client)",
    async () => {
      const { license, product } = await newLicense({ maxMachines: 3 });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const note = `held-${randomBytes(4).toString("hex")}`;
      const outer = getDb().$transaction(async (tx) => {
        await tx.license.update({ where: { id: license.id }, data: { buyerEmail: `${note}@example.com` } });
        entered();
        await held;
      });
      await inside;
      // The connection is inside the client's transaction: the activation must not join it.
      const activation = activateMachine({ license_key: license.key, machine_fingerprint: fingerprint(), plugin_id: product.pluginId });
      await new Promise((r) => setTimeout(r, 50));
      release();
      await outer;
      expect((await activation).code).toBe("ACTIVATED");
      const after = await getDb().license.findUniqueOrThrow({ where: { id: license.id } });
      expect(after.buyerEmail).toBe(`${note}@example.com`);
      expect(after.activeMachines).toBe(1);
    },
  );

  it("makes ids of the client's cuid shape, distinct", () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId()));
    expect(ids.size).toBe(10_000);
    for (const id of [...ids].slice(0, 100)) expect(id).toMatch(/^c[0-9a-z]{20,30}$/);
  });
});
