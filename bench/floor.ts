/**
 * The validate floor, run as its own process (never inside the load generator's): a bare node:http server doing the
 * same indexed lookup as POST /validate (license by key, joined with its product and this machine's activation),
 * answering the same JSON. Nothing else: no schema, no rate limit, no log, no cache.
 *
 *   node --import tsx bench/floor.ts sqlite <file> <port>     one prepared better-sqlite3 statement, read-only
 *   node --import tsx bench/floor.ts postgresql <url> <port>  one named (prepared) query on a `pg` pool of 10,
 *                                                             the app's default DATABASE_POOL_SIZE
 *
 * It answers with the same headers as the app (FLOOR_HEADERS, a JSON object bench/load.ts copies from one of the
 * app's own answers; a fresh X-Request-Id each time): on a 2-core machine the load generator parses every answer,
 * and a floor with a shorter answer would be measured against a cheaper client, not a cheaper server.
 *
 * Prints `ready` once it listens; bench/load.ts starts and stops it.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import Database from "better-sqlite3";
import pg from "pg";

interface Body {
  license_key: string;
  machine_fingerprint: string;
  plugin_id: string;
}
interface Row {
  isActive: number | boolean;
  pluginId: string;
  activation: string | null;
}

const SQL = `SELECT l."isActive", p."pluginId", a.id AS activation FROM "License" l JOIN "Product" p ON p.id = l."productId"
  LEFT JOIN "Activation" a ON a."licenseId" = l.id AND a.fingerprint = $1 WHERE l.key = $2`;

const [engine, target, portText] = process.argv.slice(2);
if (!engine || !target || !portText) throw new Error("usage: floor.ts sqlite|postgresql <file|url> <port>");

let lookup: (b: Body) => Promise<Row | undefined> | Row | undefined;
if (engine === "sqlite") {
  const db = new Database(target, { readonly: true });
  const stmt = db.prepare(SQL.replace("$1", "?").replace("$2", "?"));
  lookup = (b) => stmt.get(b.machine_fingerprint, b.license_key) as Row | undefined;
} else {
  const pool = new pg.Pool({ connectionString: target, max: 10 });
  lookup = async (b) => (await pool.query<Row>({ name: "floor-validate", text: SQL, values: [b.machine_fingerprint, b.license_key] })).rows[0];
}

const HEADERS = JSON.parse(process.env.FLOOR_HEADERS ?? "{}") as Record<string, string>;
const VALID = { code: "VALID", detail: "The license is valid for this product and machine." };

function answer(res: ServerResponse, row: Row | undefined, b: Body): void {
  const valid = !!row && (row.isActive === 1 || row.isActive === true) && row.pluginId === b.plugin_id && row.activation !== null;
  const body = JSON.stringify({
    valid,
    expires_at: null,
    machine_bound: !!row?.activation,
    trial: false,
    trial_days_remaining: 0,
    ...(valid ? VALID : { code: "NOT_VALID", detail: "The license is not valid." }),
  });
  res.writeHead(200, { "content-type": "application/json", ...HEADERS, "X-Request-Id": randomUUID(), "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const b = JSON.parse(Buffer.concat(chunks).toString()) as Body;
    const row = lookup(b);
    if (row instanceof Promise) void row.then((r) => answer(res, r, b));
    else answer(res, row, b);
  });
});
server.listen(Number(portText), "127.0.0.1", () => console.log("ready"));
process.on("SIGTERM", () => process.exit(0));
