// Operator commands:
//   DATABASE_URL=… npm run db:backup -- backups/2026-11-21.bak      online backup of the database
//   DATABASE_URL=… npm run db:restore -- backups/2026-11-21.bak     restore it (SQLite: stop the service first)
import { backupDatabase, restoreDatabase } from "../lib/jobs/backup.ts";
import { env } from "../lib/env.ts";

const [command, file] = process.argv.slice(2);
if (!file || (command !== "backup" && command !== "restore")) {
  console.error("usage: tsx scripts/backup.ts backup|restore <file>");
  process.exit(2);
}
const url = env().DATABASE_URL;
if (command === "backup") await backupDatabase(url, file);
else restoreDatabase(url, file);
console.log(`${command} done: ${file}`);
