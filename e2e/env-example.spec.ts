import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { expect, test } from "@playwright/test";

/**
 * `npm start` with a verbatim copy of .env.example as its whole environment (only PORT, BASE_URL and
 * DATABASE_URL moved to temporary values): the documented configuration must start as written, blank values and
 * all. Nothing of this test runner's own environment reaches the server but PATH and HOME.
 */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

test("the server starts from a verbatim copy of .env.example and serves /health and the store", async () => {
  test.setTimeout(180_000);
  const dir = mkdtempSync(join(tmpdir(), "ilm-env-example-"));
  const copy = join(dir, ".env");
  copyFileSync(".env.example", copy);
  const fromFile = parseEnv(readFileSync(copy, "utf8"));
  expect(fromFile.STRIPE_SECRET_KEY, "the file keeps its blank values").toBe("");

  const port = await freePort();
  const overrides = { PORT: String(port), BASE_URL: `http://localhost:${port}`, DATABASE_URL: `file:${join(dir, "marketplace.db")}` };
  const log: string[] = [];
  const childEnv: Record<string, string | undefined> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? dir,
    ...fromFile,
    ...overrides,
  };
  const child = spawn(process.execPath, ["scripts/start.mjs"], {
    env: childEnv as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: start.mjs runs server.ts as a child, and both must stop
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "ready:" within 150 s:\n${log.join("")}`)), 150_000);
      child.stdout.on("data", (d: Buffer) => {
        log.push(d.toString());
        if (d.toString().includes("ready:")) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stderr.on("data", (d: Buffer) => log.push(d.toString()));
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`the server exited with ${code}:\n${log.join("")}`));
      });
    });

    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status, log.join("")).toBe(200);

    // No browser needed: the store's front page renders on the server, with the demo catalogue (SEED_DEMO=on).
    const home = await fetch(`http://localhost:${port}/`);
    expect(home.status, log.join("")).toBe(200);
    expect(await home.text()).toMatch(/<a [^>]*href="\/products\/[a-z0-9-]+"/);
    expect(log.join("")).not.toMatch(/Invalid environment/);
  } finally {
    if (child.exitCode === null && child.pid) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(-child.pid, "SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
