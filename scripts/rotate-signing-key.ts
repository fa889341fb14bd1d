// Operator command: make a new Ed25519 signing key current. The previous key is retired but stays in
// /.well-known/did.json, so license files and credentials it signed keep verifying. Running instances pick the new
// key up within a minute.
//
//   DATABASE_URL=… npm run keys:rotate
import { disconnectDb } from "../lib/db.ts";
import { migrate } from "../lib/db/migrate.ts";
import { env } from "../lib/env.ts";
import { rotateSigningKey, signingKeys } from "../lib/identity/service-keys.ts";

if (env().SIGNING_KEY) {
  console.error("SIGNING_KEY is set: rotate by setting a new SIGNING_KEY; the old key stays published automatically.");
  process.exit(2);
}
await migrate(env().DATABASE_URL);
const id = await rotateSigningKey();
const { all } = await signingKeys();
console.log(`current signing key: ${id}; published keys: ${all.map((k) => `${k.id}${k.retiredAt ? " (retired)" : ""}`).join(", ")}`);
await disconnectDb();
