import { getDb } from "../db.ts";
import { env } from "../env.ts";
import { migrate } from "./migrate.ts";
import { seedDemoCatalogue } from "../../prisma/seed/index.ts";

/** Brings the database named by DATABASE_URL up to date and seeds the demo catalogue into an empty one. */
export async function prepareDatabase(log: (line: string) => void = console.log): Promise<void> {
  const e = env();
  const { engine, applied, total } = await migrate(e.DATABASE_URL);
  log(`database: ${engine}, ${total} migration(s), ${applied.length ? `applied ${applied.join(", ")}` : "up to date"}`);
  if (e.SEED_DEMO === "on") {
    try {
      const seeded = await seedDemoCatalogue(getDb());
      if (seeded) log(`database: seeded the demo catalogue (${seeded} products)`);
    } catch (error) {
      // Another instance starting at the same moment seeded first; its rows won the unique constraints.
      if ((error as { code?: string }).code !== "P2002") throw error;
      log("database: demo catalogue seeded by another instance");
    }
  }
}
