// `npm start`: builds the app if there is no production build yet, then runs server.ts (which migrates the
// database, seeds the demo catalogue into an empty one, and serves).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const run = (cmd, args, extraEnv = {}) => {
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, ...extraEnv } });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

if (!existsSync(".next/BUILD_ID")) {
  console.log("no production build yet: running next build (about a minute)…");
  run("npx", ["next", "build"], { NODE_ENV: "production" });
}
run(process.execPath, ["--import", "tsx", "server.ts"], { NODE_ENV: "production" });
