import { randomBytes } from "node:crypto";
import { parseEnv as parseDotenv } from "node:util";
import { describe, expect, it } from "vitest";
import { generateServerConfig, serverConfigFiles } from "@/lib/agents/devtools/server-config";
import { SERVER_TARGETS, type ServerTarget } from "@/lib/agents/devtools/options";
import { parseEnv, SETTING_NAMES } from "@/lib/env";
import { parseTrustedProxies } from "@/lib/http/proxy";

/**
 * The environment each generated deployment hands the service, as the platform would build it, must pass the
 * service's own schema (lib/env.ts): a config that deploys but does not start is worse than none.
 */
const DOMAIN = "licenses.acme.io";
const PG_URL = "postgresql://licenses:secret@db.internal:5432/licenses";
// Variables the platforms or the images read, not the service.
const PLATFORM = new Set(["NODE_VERSION", "RAILPACK_NODE_VERSION", "NEXT_TELEMETRY_DISABLED", "POSTGRES_PASSWORD"]);

const file = (target: ServerTarget, path: string) => {
  const f = serverConfigFiles({ target, domain: DOMAIN }).find((x) => x.path === path);
  if (!f) throw new Error(`${target} has no ${path}`);
  return f.content;
};

/** `$(openssl rand -hex N)` and `<openssl rand -hex N>`, as the operator's shell or hand would fill them. */
const fillSecrets = (text: string) => text.replace(/[$<]\(?openssl rand -hex (\d+)\)?>?/g, (_, n: string) => randomBytes(Number(n)).toString("hex"));

/** The body of the first fenced code block after `marker` in the rendered markdown. */
function codeAfter(md: string, marker: string): string {
  const from = md.indexOf(marker);
  expect(from, marker).toBeGreaterThan(-1);
  const block = /```[a-z]*\n([\s\S]*?)\n```/.exec(md.slice(from));
  if (!block) throw new Error(`no code block after ${marker}`);
  return block[1]!;
}

/** Docker Compose's interpolation: ${X}, ${X:-default}, ${X-default}, ${X:?error}, ${X?error}. */
function interpolate(value: string, vars: Record<string, string | undefined>): string {
  return value.replace(
    /\$\{([A-Z0-9_]+)(?:(:?)([-?])((?:[^}]|\}(?=[^}\s]*\}))*))?\}/g,
    (_, name: string, colon: string, op: string | undefined, arg: string | undefined) => {
      const v = vars[name];
      const missing = v === undefined || (colon === ":" && v === "");
      if (op === "?" && missing) throw new Error(`compose would refuse to start: ${arg ?? name}`);
      if (op === "-" && missing) return arg ?? "";
      return v ?? "";
    },
  );
}

function composeEnvironment(): Record<string, string | undefined> {
  const compose = file("docker", "docker-compose.yml");
  const lines = compose.split("\n");
  const start = lines.indexOf("    environment:", lines.indexOf("  app:"));
  const out: Record<string, string | undefined> = {};
  // The .env the instructions create next to docker-compose.yml.
  const heredoc = /cat > \.env <<EOF\n([\s\S]*?)\nEOF/.exec(generateServerConfig({ target: "docker", domain: DOMAIN }));
  if (!heredoc) throw new Error("the docker steps no longer create .env");
  const dotenv = parseDotenv(fillSecrets(heredoc[1]!));
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith("      ")) break;
    if (line.trim().startsWith("#")) continue;
    const m = /^ {6}([A-Z0-9_]+): (.*)$/.exec(line);
    if (!m) throw new Error(`unexpected line in the environment block: ${line}`);
    out[m[1]!] = interpolate(m[2]!.replace(/^"(.*)"$/, "$1"), dotenv);
  }
  return out;
}

function dockerfileEnvironment(): Record<string, string | undefined> {
  const runtime = file("docker", "Dockerfile").split("AS runtime")[1]!;
  const block = /ENV ((?:[A-Z_]+=\S+(?: \\\n\s+)?)+)/.exec(runtime)![1]!;
  return Object.fromEntries([...block.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
}

function flyEnvironment(): Record<string, string | undefined> {
  const toml = file("fly", "fly.toml");
  const section = toml.slice(toml.indexOf("[env]") + 5).split(/\n\[/)[0]!;
  return Object.fromEntries([...section.matchAll(/^\s*([A-Z0-9_]+) = "(.*)"$/gm)].map((m) => [m[1]!, m[2]!]));
}

function renderEnvironment(): Record<string, string | undefined> {
  const yaml = file("render", "render.yaml");
  const out: Record<string, string | undefined> = {};
  for (const entry of yaml.split("- key: ").slice(1)) {
    const key = /^[A-Z0-9_]+/.exec(entry)![0];
    const body = entry.split("\n\n")[0]!;
    if (/^\s+value: /m.test(body)) out[key] = /^\s+value: (.*)$/m.exec(body)![1]!.replace(/^"(.*)"$/, "$1");
    else if (/fromDatabase:/.test(body)) out[key] = PG_URL;
    else if (/generateValue: true/.test(body))
      out[key] = randomBytes(32).toString("base64"); // what Render generates: 256 bits
    else expect(body, key).toMatch(/sync: false/); // asked for at deploy time; may stay unset
  }
  return out;
}

function railwayEnvironment(): Record<string, string | undefined> {
  const block = codeAfter(generateServerConfig({ target: "railway", domain: DOMAIN }), "Set the service's variables");
  return parseDotenv(fillSecrets(block.replace("${{Postgres.DATABASE_URL}}", PG_URL)));
}

function vpsEnvironment(): Record<string, string | undefined> {
  return parseDotenv(file("vps", "licenses.env"));
}

/** licenses.env after the setup script's substitutions. */
function vpsEnvironmentAfterSetup(): Record<string, string | undefined> {
  const setup = codeAfter(generateServerConfig({ target: "vps", domain: DOMAIN }), "## Setup");
  const sed = /sed -i "(.*)" \/etc\/licenses\/licenses\.env/.exec(setup);
  expect(sed, "the setup script fills in licenses.env").not.toBeNull();
  let text = file("vps", "licenses.env");
  for (const command of sed![1]!.split(/;\s*/)) {
    const [, pattern, replacement] = /^s\|(.*)\|(.*)\|$/.exec(command)!;
    const value = fillSecrets(replacement!).replace(/\$\{?DB_PASSWORD\}?/, "generated-password");
    const anchored = pattern!.startsWith("^") || pattern!.endsWith("$");
    text = anchored ? text.replace(new RegExp(pattern!, "m"), value) : text.replace(pattern!, value);
  }
  return parseDotenv(text);
}

const environments: Record<ServerTarget, Array<[string, () => Record<string, string | undefined>]>> = {
  docker: [["Dockerfile + docker-compose.yml with the .env the steps create", () => ({ ...dockerfileEnvironment(), ...composeEnvironment() })]],
  fly: [
    [
      "Dockerfile + fly.toml [env] + the secrets the steps set",
      () => ({ ...dockerfileEnvironment(), ...flyEnvironment(), DATABASE_URL: PG_URL, RECEIPT_SECRET: randomBytes(32).toString("hex") }),
    ],
  ],
  railway: [["the variables the steps set", railwayEnvironment]],
  render: [["render.yaml envVars", renderEnvironment]],
  vps: [
    ["licenses.env as written", vpsEnvironment],
    ["licenses.env after the setup script", vpsEnvironmentAfterSetup],
  ],
};

describe("generated server configurations", () => {
  it("cover every target", () => {
    expect(Object.keys(environments).sort()).toEqual([...SERVER_TARGETS].sort());
  });

  for (const target of SERVER_TARGETS) {
    for (const [what, build] of environments[target]) {
      it(`${target}: ${what} passes the service's environment schema`, () => {
        const vars = build();
        for (const name of Object.keys(vars))
          expect(SETTING_NAMES.includes(name as never) || PLATFORM.has(name), `${target} sets ${name}, which nothing reads`).toBe(true);
        const e = parseEnv(vars);
        expect(e.BASE_URL).toBe(`https://${DOMAIN}`);
        expect(e.DATABASE_URL).toMatch(/^postgresql:\/\//);
        expect(e.TRUST_PROXY).toBe(1);
        expect(e.NODE_ENV).toBe("production");
        // X-Forwarded-For is believed only from the proxy's own addresses, and the service must be reachable by it.
        const proxies = parseTrustedProxies(e.TRUST_PROXY_FROM);
        if (target === "vps") {
          expect(e.HOST).toBe("127.0.0.1");
          expect(proxies.check("127.0.0.1", "ipv4")).toBe(true);
        } else {
          expect(e.HOST, `${target} must listen where its platform's proxy connects`).toBe("0.0.0.0");
          for (const [address, family] of [
            ["10.0.3.7", "ipv4"],
            ["172.18.0.2", "ipv4"],
            ["fdaa:0:1::2", "ipv6"],
          ] as const)
            expect(proxies.check(address, family), `${target}: a proxy at ${address}`).toBe(true);
          expect(proxies.check("203.0.113.9", "ipv4"), `${target}: a public address is no proxy`).toBe(false);
        }
      });
    }
  }

  it("leave optional secrets blank in a way that counts as unset", () => {
    const compose = composeEnvironment();
    expect(compose.SIGNING_KEY).toBe("");
    expect(parseEnv(compose)).toMatchObject({ SIGNING_KEY: undefined, STRIPE_SECRET_KEY: undefined, RESEND_API_KEY: undefined });
    expect(parseEnv(compose).RECEIPT_SECRET).toMatch(/^[0-9a-f]{64}$/);
    expect(parseEnv(vpsEnvironmentAfterSetup()).RECEIPT_SECRET).toMatch(/^[0-9a-f]{64}$/);
    expect(parseEnv(vpsEnvironmentAfterSetup()).DATABASE_URL).toContain(":generated-password@");
  });
});
