import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

// Runs once, in the PostgreSQL project: the migration generator needs a server for the PostgreSQL flavour.
describe("committed migrations", () => {
  it("cover every change in prisma/models.prisma, for both engines", () => {
    const r = spawnSync(process.execPath, ["--experimental-wasm-modules", "--no-warnings", "scripts/create-migration.mjs", "--check"], {
      encoding: "utf8",
      env: { ...process.env, MIGRATION_DATABASE_URL: process.env.TEST_DATABASE_URL },
    });
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain("sqlite: up to date");
    expect(r.stdout).toContain("postgresql: up to date");
  });
});
