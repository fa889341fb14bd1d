import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { SERVER_BUNDLE, bundleServer, serverNodeArgs } from "../../scripts/server-bundle.mjs";

/**
 * The production server as `npm start` runs it: the compiled server.ts with its heap flags. The suite's own server is
 * `npm start`, which compiles it before any test runs; against an external server it is compiled here if missing.
 */
export function serverArgs(): string[] {
  if (!existsSync(SERVER_BUNDLE)) bundleServer();
  return serverNodeArgs();
}

/** A production server process (server.ts) on a port; `ready` resolves once it listens. */
export interface AppProcess {
  port: number;
  url: string;
  child: ChildProcess;
  log: string[];
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startApp(port: number, env: Record<string, string>): Promise<AppProcess> {
  const log: string[] = [];
  const child = spawn(process.execPath, serverArgs(), {
    // DEV_MAILBOX=local: these production instances have no mail provider, and their operator signs in from the dev
    // mailbox (without it a production server keeps the operator's links out of the mailbox).
    env: { ...process.env, NODE_ENV: "production", DEV_MAILBOX: "local", PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server on ${port} did not start:\n${log.join("")}`)), 60_000);
    const onData = (d: Buffer) => {
      log.push(d.toString());
      if (d.toString().includes("ready:")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (d: Buffer) => log.push(d.toString()));
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server on ${port} exited with ${code}:\n${log.join("")}`));
    });
  });
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    log,
    stop: (signal = "SIGTERM") =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        child.once("exit", () => resolve());
        child.kill(signal);
      }),
  };
}

export const PG_ADMIN = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.query(`CREATE DATABASE "${name}"`);
  await client.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.end();
}

/** A local HTTP endpoint standing in for Resend's API: records each e-mail; `failing` makes it answer 500. */
export async function startResendStub() {
  const sent: Array<{ to: string[]; subject: string; text: string; idempotencyKey?: string }> = [];
  const state = { failing: false };
  let n = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      if (state.failing) return void res.writeHead(500).end(JSON.stringify({ name: "internal_server_error", message: "stub down", statusCode: 500 }));
      const body = JSON.parse(Buffer.concat(chunks).toString() || "{}");
      sent.push({
        to: [].concat(body.to),
        subject: body.subject,
        text: body.text,
        idempotencyKey: req.headers["idempotency-key"] as string | undefined,
      });
      res.writeHead(200).end(JSON.stringify({ id: `re_stub_${++n}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    state,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A TCP port nobody listens on right now, chosen by the kernel. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * A private PostgreSQL server this test may stop and start at will (the shared one serves other tests).
 * Its port is picked by the kernel at the first start; a start that fails is tried again on a new port, and
 * a failure that remains quotes the server's own log, so a CI run says why.
 */
export function privatePostgres() {
  const versions = existsSync("/usr/lib/postgresql") ? readdirSync("/usr/lib/postgresql").sort() : [];
  const bin = versions.length ? `/usr/lib/postgresql/${versions.at(-1)}/bin` : null;
  if (!bin || !existsSync(`${bin}/initdb`)) return null;
  const dir = mkdtempSync(join(tmpdir(), "ilm-pg-"));
  chmodSync(dir, 0o777);
  const data = join(dir, "data");
  const log = join(dir, "log");
  const asPostgres = (args: string[]) => {
    const r = spawnSync("runuser", ["-u", "postgres", "--", ...args], { encoding: "utf8" });
    if (r.status !== 0) {
      const tail = existsSync(log) ? readFileSync(log, "utf8").split("\n").slice(-15).join("\n") : "(no server log)";
      throw new Error(`${args.join(" ")}: ${r.stderr || r.stdout}\n--- server log ---\n${tail}`);
    }
  };
  asPostgres([`${bin}/initdb`, "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  let port = 0;
  const ctl = (action: "start" | "stop") =>
    asPostgres([
      `${bin}/pg_ctl`,
      "-D",
      data,
      "-w",
      "-l",
      log,
      ...(action === "start" ? ["-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`] : ["-m", "fast"]),
      action,
    ]);
  return {
    url: () => `postgresql://postgres@127.0.0.1:${port}/postgres`,
    /** Starts the server; the first start chooses the port, later ones reuse it so the app's URL stays right. */
    start: async () => {
      if (port) {
        ctl("start");
        return;
      }
      for (let attempt = 1; ; attempt++) {
        port = await freePort();
        try {
          ctl("start");
          return;
        } catch (error) {
          if (attempt === 3) throw error;
        }
      }
    },
    stop: () => ctl("stop"),
    destroy: () => {
      try {
        ctl("stop");
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
