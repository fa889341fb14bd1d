import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentFor, webhookUrlSchema } from "@/lib/acp/platforms";
import { consumeSignIn, requestSignIn } from "@/lib/auth/sign-in";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";
import { AGENT_PLATFORMS } from "@/lib/operations/agent-platforms";
import { restRoutes } from "@/lib/transports/rest";
import { call, expectProblem, type Reply } from "../helpers/http";

/**
 * Agent platforms as the operator manages them: the key and the webhook secret come once, in the answer that makes
 * them, and never again (not in listings, not in the audit log); the key then authenticates ACP calls until revoked;
 * a malformed, unknown or revoked key is refused, and no key at all is an anonymous agent only while ACP_ANONYMOUS
 * is on. Only the operator reaches any of it; everyone else gets the 404 an unknown path gets.
 */

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const ADMIN_EMAIL = `agents-ops-${run}@example.com`;
const saved = { ADMIN_EMAILS: process.env.ADMIN_EMAILS, ACP_ANONYMOUS: process.env.ACP_ANONYMOUS, NODE_ENV: process.env.NODE_ENV };
const cookies = { admin: "", seller: "" };

async function signIn(email: string): Promise<string> {
  await requestSignIn({ email, purpose: "seller" });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const s = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1] ?? "");
  return `${s.cookieName}=${s.cookieValue}`;
}

function setVar(name: keyof typeof saved, value: string | undefined): void {
  const vars: Record<string, string | undefined> = process.env;
  if (value === undefined) Reflect.deleteProperty(vars, name);
  else vars[name] = value;
}
const restore = (name: keyof typeof saved) => setVar(name, saved[name]);

beforeAll(async () => {
  process.env.ADMIN_EMAILS = ADMIN_EMAIL;
  resetEnv();
  cookies.admin = await signIn(ADMIN_EMAIL);
  cookies.seller = await signIn(`agents-seller-${run}@example.com`);
});
afterAll(async () => {
  restore("ADMIN_EMAILS");
  restore("ACP_ANONYMOUS");
  resetEnv();
  await disconnectDb();
});

async function rest(
  id: string,
  opts: { cookie?: string; params?: Record<string, string>; query?: Record<string, string>; body?: unknown; origin?: string } = {},
): Promise<Reply> {
  const op = AGENT_PLATFORMS.find((o) => o.id === id);
  if (!op?.http) throw new Error(`no agent platform operation ${id}`);
  let path = op.http.path;
  for (const [k, v] of Object.entries(opts.params ?? {})) path = path.replace(`{${k}}`, encodeURIComponent(v));
  const qs = new URLSearchParams(opts.query ?? {}).toString();
  const headers: Record<string, string> = { [CLIENT_ADDRESS_HEADER]: "198.51.100.9" };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.origin) headers.origin = opts.origin;
  return call(restRoutes(op.http.path)[op.http.method], qs ? `${path}?${qs}` : path, {
    method: op.http.method,
    headers,
    params: opts.params,
    ...(opts.body !== undefined ? { json: opts.body } : {}),
  });
}

const asAdmin = (id: string, opts: Parameters<typeof rest>[1] = {}) => rest(id, { cookie: cookies.admin, ...opts });
const bearer = (value: string) => ({ headers: new Headers({ authorization: value }) });

async function register(name: string, webhook_url?: string | null) {
  const r = await asAdmin("registerAgentPlatform", { body: { name, ...(webhook_url !== undefined ? { webhook_url } : {}) } });
  expect(r.status, r.text).toBe(201);
  return r.body as { platform: { id: string; key_prefix: string; webhook_url: string | null }; api_key: string; webhook_secret: string };
}

describe("registering an agent platform", () => {
  it("answers the key and the webhook secret once; the key authenticates; listings and the audit log never show either", async () => {
    const made = await register(`Agent Co ${run}`, "https://agent.example.com/acp/webhooks");
    expect(made.api_key).toMatch(/^acpk_[A-Za-z0-9_-]{43}$/);
    expect(made.webhook_secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(made.platform).toMatchObject({
      key_prefix: made.api_key.slice(0, 12),
      webhook_url: "https://agent.example.com/acp/webhooks",
      revoked_at: null,
    });

    // Only the key's hash is stored.
    const row = await getDb().agentPlatform.findUniqueOrThrow({ where: { id: made.platform.id } });
    expect(row.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(made.api_key);

    expect(await agentFor(bearer(`Bearer ${made.api_key}`))).toEqual({ platformId: made.platform.id, name: `Agent Co ${run}` });
    expect(await agentFor(bearer(`bearer   ${made.api_key}`))).toMatchObject({ platformId: made.platform.id });

    const list = await asAdmin("listAgentPlatforms");
    expect(list.status).toBe(200);
    expect(list.body.platforms).toContainEqual(
      expect.objectContaining({ id: made.platform.id, deliveries: { pending: 0, sent: 0, failed: 0, last_sent_at: null } }),
    );
    expect(list.text).not.toContain(made.api_key);
    expect(list.text).not.toContain(made.webhook_secret);

    const audit = await getDb().auditEntry.findMany({ where: { targetId: made.platform.id } });
    expect(audit.map((a) => [a.action, a.actorEmail])).toEqual([["agent_platform.register", ADMIN_EMAIL]]);
    expect(JSON.stringify(audit)).not.toContain(made.api_key);
    expect(JSON.stringify(audit)).not.toContain(made.webhook_secret);
  });

  it("takes no webhook URL, or null; names are one line of 2 to 100 characters", async () => {
    expect((await register(`No Hook ${run}`)).platform.webhook_url).toBeNull();
    expect((await register(`Null Hook ${run}`, null)).platform.webhook_url).toBeNull();
    expectProblem(await asAdmin("registerAgentPlatform", { body: { name: "x" } }), 400, "invalid_body");
    expectProblem(await asAdmin("registerAgentPlatform", { body: { name: "Two\nlines" } }), 400, "invalid_body");
    expectProblem(await asAdmin("registerAgentPlatform", { body: { name: `Extra ${run}`, api_key: "mine" } }), 400, "invalid_body");
  });

  it("accepts https webhook URLs only (http to this machine outside production) and none with credentials", async () => {
    for (const bad of [
      "http://agent.example.com/hooks",
      "ftp://agent.example.com/hooks",
      "https://user:pass@agent.example.com/hooks",
      "https://agent.example.com/hooks#frag",
      "not a url",
      "http://10.0.0.1/hooks",
    ]) {
      expectProblem(await asAdmin("registerAgentPlatform", { body: { name: `Bad ${run}`, webhook_url: bad } }), 400, "invalid_body");
    }
    // NODE_ENV is "test" here: a receiver on this machine may be plain http.
    expect(webhookUrlSchema.safeParse("http://127.0.0.1:4000/hooks").success).toBe(true);
    expect(webhookUrlSchema.safeParse("http://localhost:4000/hooks").success).toBe(true);
    setVar("NODE_ENV", "production");
    resetEnv();
    try {
      expect(webhookUrlSchema.safeParse("http://127.0.0.1:4000/hooks").success).toBe(false);
      expect(webhookUrlSchema.safeParse("https://agent.example.com/hooks").success).toBe(true);
    } finally {
      restore("NODE_ENV");
      resetEnv();
    }
  });
});

describe("agentFor: the caller of an ACP endpoint", () => {
  it("refuses malformed, unknown and revoked keys whatever ACP_ANONYMOUS says", async () => {
    const made = await register(`Revocable ${run}`);
    for (const anonymous of ["on", "off"]) {
      process.env.ACP_ANONYMOUS = anonymous;
      resetEnv();
      for (const header of [
        "Bearer",
        "Bearer nope",
        "Basic abc",
        `Token ${made.api_key}`,
        `Bearer ${made.api_key}x`,
        `Bearer acpk_${"A".repeat(43)}`,
      ]) {
        await expect(agentFor(bearer(header)), header).rejects.toMatchObject({ code: "unauthorized", status: 401 });
      }
    }
    restore("ACP_ANONYMOUS");
    resetEnv();
    expect((await agentFor(bearer(`Bearer ${made.api_key}`))).platformId).toBe(made.platform.id);
    const revoked = await asAdmin("revokeAgentPlatform", { params: { id: made.platform.id }, body: { reason: "Key leaked in a log" } });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.platform.revoked_at).toEqual(expect.any(String));
    await expect(agentFor(bearer(`Bearer ${made.api_key}`))).rejects.toMatchObject({ code: "unauthorized", status: 401 });
  });

  it("without a key: an anonymous agent while ACP_ANONYMOUS is on, 401 when off", async () => {
    process.env.ACP_ANONYMOUS = "on";
    resetEnv();
    expect(await agentFor({ headers: new Headers() })).toEqual({ platformId: null, name: "anonymous agent" });
    process.env.ACP_ANONYMOUS = "off";
    resetEnv();
    const refused = await agentFor({ headers: new Headers() }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "unauthorized", status: 401 });
    expect((refused as { extra: { headers?: Record<string, string> } }).extra.headers?.["WWW-Authenticate"]).toMatch(/^Bearer/);
    restore("ACP_ANONYMOUS");
    resetEnv();
  });
});

describe("managing a platform", () => {
  it("sets and clears the webhook URL, rotates the secret (shown once), revokes once; each audited", async () => {
    const made = await register(`Managed ${run}`);
    const id = made.platform.id;
    const set = await asAdmin("updateAgentPlatform", { params: { id }, body: { webhook_url: "https://hooks.example.net/acp" } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.platform.webhook_url).toBe("https://hooks.example.net/acp");
    expectProblem(
      await asAdmin("updateAgentPlatform", { params: { id }, body: { webhook_url: "http://hooks.example.net/acp" } }),
      400,
      "invalid_body",
    );
    const cleared = await asAdmin("updateAgentPlatform", { params: { id }, body: { webhook_url: null } });
    expect(cleared.body.platform.webhook_url).toBeNull();

    const rotated = await asAdmin("rotateAgentPlatformWebhookSecret", { params: { id } });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.webhook_secret).toMatch(/^whsec_/);
    expect(rotated.body.webhook_secret).not.toBe(made.webhook_secret);
    expect((await getDb().agentPlatform.findUniqueOrThrow({ where: { id } })).webhookSecret).toBe(rotated.body.webhook_secret);
    // The key is unchanged by a secret rotation.
    expect((await agentFor(bearer(`Bearer ${made.api_key}`))).platformId).toBe(id);

    expectProblem(await asAdmin("revokeAgentPlatform", { params: { id }, body: { reason: "x" } }), 400, "invalid_body");
    const [a, b] = await Promise.all([
      asAdmin("revokeAgentPlatform", { params: { id }, body: { reason: "Contract ended" } }),
      asAdmin("revokeAgentPlatform", { params: { id }, body: { reason: "Contract ended" } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expectProblem(await asAdmin("rotateAgentPlatformWebhookSecret", { params: { id } }), 409, "agent_platform_revoked");
    expectProblem(await asAdmin("updateAgentPlatform", { params: { id }, body: { webhook_url: null } }), 409, "agent_platform_revoked");

    const audit = await getDb().auditEntry.findMany({ where: { targetId: id }, orderBy: { createdAt: "asc" } });
    expect(audit.map((e) => e.action)).toEqual([
      "agent_platform.register",
      "agent_platform.update",
      "agent_platform.update",
      "agent_platform.rotate_secret",
      "agent_platform.revoke",
    ]);
    expect(audit.every((e) => e.actorEmail === ADMIN_EMAIL)).toBe(true);
    expect(JSON.stringify(audit)).not.toContain(rotated.body.webhook_secret);
  });

  it("answers 404 for a platform that does not exist", async () => {
    expectProblem(await asAdmin("rotateAgentPlatformWebhookSecret", { params: { id: "ap_missing" } }), 404, "agent_platform_not_found");
    expectProblem(
      await asAdmin("revokeAgentPlatform", { params: { id: "ap_missing" }, body: { reason: "Gone away" } }),
      404,
      "agent_platform_not_found",
    );
    expectProblem(
      await asAdmin("updateAgentPlatform", { params: { id: "ap_missing" }, body: { webhook_url: null } }),
      404,
      "agent_platform_not_found",
    );
  });
});

describe("only the operator", () => {
  it("gets a 404 problem for every agent platform operation when not the operator, and writes need our own origin", async () => {
    const made = await register(`Guarded ${run}`);
    const calls: Array<[string, Parameters<typeof rest>[1]]> = [
      ["listAgentPlatforms", {}],
      ["registerAgentPlatform", { body: { name: `Intruder ${run}` } }],
      ["updateAgentPlatform", { params: { id: made.platform.id }, body: { webhook_url: null } }],
      ["rotateAgentPlatformWebhookSecret", { params: { id: made.platform.id } }],
      ["revokeAgentPlatform", { params: { id: made.platform.id }, body: { reason: "Intruder" } }],
      ["listWebhookDeliveries", {}],
    ];
    for (const [id, opts] of calls) {
      expectProblem(await rest(id, opts), 404, "route_not_found");
      expectProblem(await rest(id, { ...opts, cookie: cookies.seller }), 404, "route_not_found");
    }
    const foreign = await rest("registerAgentPlatform", { cookie: cookies.admin, origin: "https://evil.example", body: { name: `Forged ${run}` } });
    expect(foreign.status).toBe(403);
    expect(await getDb().agentPlatform.count({ where: { name: { in: [`Intruder ${run}`, `Forged ${run}`] } } })).toBe(0);
    expect((await getDb().agentPlatform.findUniqueOrThrow({ where: { id: made.platform.id } })).revokedAt).toBeNull();
  });
});
