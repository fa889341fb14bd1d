// `npm start`: builds the app if there is no production build yet, compiles server.ts (scripts/server-bundle.mjs),
// then runs it: it migrates the database, seeds the demo catalogue into an empty one, and serves.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { bundleServer, serverNodeArgs } from "./server-bundle.mjs";

const run = (cmd, args, extraEnv = {}) => {
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, ...extraEnv } });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

if (!existsSync(".next/BUILD_ID")) {
  console.log("no production build yet: running next build (about a minute)…");
  run("npx", ["next", "build"], { NODE_ENV: "production" });
}
bundleServer();
run(process.execPath, serverNodeArgs(), { NODE_ENV: "production" });
