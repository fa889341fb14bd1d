// Derives one Prisma schema per database engine from prisma/models.prisma, the single source of the data model.
// Prisma cannot take the provider from the environment, so each engine gets its own generated schema and client.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const PROVIDERS = { sqlite: "sqlite", postgresql: "postgresql" };

export function schemaFor(provider, models = readFileSync(join(root, "prisma/models.prisma"), "utf8")) {
  return `// GENERATED from prisma/models.prisma by scripts/prisma-schemas.mjs. Do not edit.
generator client {
  provider     = "prisma-client"
  output       = "../../lib/generated/${provider}"
  moduleFormat = "esm"
}

datasource db {
  provider = "${provider}"
}

${models}`;
}

export function writeSchemas() {
  const dir = join(root, "prisma/generated");
  mkdirSync(dir, { recursive: true });
  const paths = {};
  for (const provider of Object.keys(PROVIDERS)) {
    const path = join(dir, `${provider}.prisma`);
    writeFileSync(path, schemaFor(provider));
    paths[provider] = path;
  }
  return paths;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const paths = writeSchemas();
  for (const p of Object.values(paths)) console.log(`wrote ${p}`);
}
