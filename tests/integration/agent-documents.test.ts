import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GET as tools } from "@/app/api/tools/route";
import { GET as discover } from "@/app/api/discover/route";
import { GET as openapi } from "@/app/openapi.json/route";
import { GET as agentCard } from "@/app/.well-known/agent-card.json/route";
import { GET as serverCard } from "@/app/.well-known/mcp/server-card.json/route";
import { GET as agentsJson } from "@/app/.well-known/agents.json/route";
import { GET as aiPlugin } from "@/app/.well-known/ai-plugin.json/route";
import { GET as did } from "@/app/.well-known/did.json/route";
import { GET as oacs } from "@/app/oacs/route";
import { GET as llms } from "@/app/llms.txt/route";
import { GET as llmsFull } from "@/app/llms-full.txt/route";
import { disconnectDb } from "@/lib/db";
import { call } from "../helpers/http";

afterAll(() => disconnectDb());

const SPEC_TOOLS: Record<string, { layer: number; required: string[] }> = {
  generate_license_integration: { layer: 1, required: ["language"] },
  explain_licensing: { layer: 1, required: ["topic"] },
  generate_server_config: { layer: 1, required: ["target"] },
  generate_test_license_key: { layer: 1, required: [] },
  browse_marketplace: { layer: 2, required: [] },
  get_product_details: { layer: 2, required: ["product_id"] },
  list_releases: { layer: 2, required: ["product_id"] },
  list_product_reviews: { layer: 2, required: ["product_id"] },
  review_product: { layer: 2, required: ["license_key", "product_id", "rating"] },
  purchase_license: { layer: 2, required: ["buyer_email", "product_id"] },
  check_license_status: { layer: 2, required: ["license_key", "plugin_id"] },
  activate_license: { layer: 2, required: ["license_key", "machine_fingerprint", "plugin_id"] },
  deactivate_license: { layer: 2, required: ["license_key", "machine_fingerprint"] },
  validate_license: { layer: 2, required: ["license_key", "machine_fingerprint", "plugin_id"] },
  get_terms: { layer: 3, required: [] },
  agent_checkout: { layer: 4, required: ["buyer_email", "product_id"] },
  get_receipt: { layer: 5, required: ["license_key"] },
  verify_receipt: { layer: 5, required: ["receipt", "signature"] },
  get_checkout_status: { layer: 4, required: ["session_id"] },
  start_trial: { layer: 2, required: ["buyer_email", "product_id"] },
  get_license_file: { layer: 2, required: ["license_key", "machine_fingerprint"] },
  get_license_credential: { layer: 5, required: ["license_key"] },
  // The Agentic Commerce Protocol's tools, as its MCP binding names them ({meta, id, payload}).
  create_checkout_session: { layer: 4, required: ["meta", "payload"] },
  get_checkout_session: { layer: 4, required: ["id", "meta"] },
  update_checkout_session: { layer: 4, required: ["id", "meta", "payload"] },
  complete_checkout_session: { layer: 4, required: ["id", "meta", "payload"] },
  cancel_checkout_session: { layer: 4, required: ["id", "meta"] },
  delegate_payment: { layer: 4, required: ["meta", "payload"] },
  // An app waiting with a device code: what the buyer's agent looks up and buys for it.
  lookup_device_code: { layer: 4, required: ["user_code"] },
  device_checkout: { layer: 4, required: ["buyer_email", "user_code"] },
};

/** Whether a strict-mode property accepts null (how strict mode says "optional"). */
const acceptsNull = (p: any): boolean =>
  (Array.isArray(p.type) && p.type.includes("null")) || (Array.isArray(p.anyOf) && p.anyOf.some((m: any) => m.type === "null"));
const BASE = "http://localhost:3000";

describe("GET /api/tools", () => {
  it("is the OpenAI-function manifest of the spec's tools", async () => {
    const r = await call(tools, "/api/tools");
    expect(r.status).toBe(200);
    const m = r.body;
    expect(m).toMatchObject({ schema_version: "v1", auth: { type: "none" }, name_for_model: expect.stringMatching(/^[a-z_]+$/) });
    expect(m.mcp).toMatchObject({ endpoint: `${BASE}/api/mcp`, transport: "streamable-http", protocol_version: "2024-11-05" });
    expect(m.mcp.config_snippet.mcpServers).toBeDefined();
    expect(Object.values(m.mcp.config_snippet.mcpServers)[0]).toMatchObject({ url: `${BASE}/api/mcp` });
    expect(m._links).toBeDefined();
    expect(m.tools.map((t: any) => t.function.name).sort()).toEqual(Object.keys(SPEC_TOOLS).sort());
    for (const t of m.tools) {
      expect(t.type).toBe("function");
      expect(t.function.strict).toBe(true);
      expect(t.function.description.length).toBeGreaterThan(40);
      const p = t.function.parameters;
      expect(p.type).toBe("object");
      expect(p.properties).toEqual(expect.any(Object));
      // Strict mode lists every argument as required; the optional ones accept null (read as "not given").
      expect([...p.required].sort()).toEqual(Object.keys(p.properties).sort());
      const spec = SPEC_TOOLS[t.function.name]!.required;
      expect(
        Object.keys(p.properties)
          .filter((k) => !acceptsNull(p.properties[k]))
          .sort(),
        t.function.name,
      ).toEqual(spec);
    }
    const param = (tool: string, name: string) => m.tools.find((t: any) => t.function.name === tool).function.parameters.properties[name];
    expect(param("browse_marketplace", "limit")).toMatchObject({ minimum: 1, maximum: 20, type: ["integer", "null"] });
    expect(param("browse_marketplace", "limit").description).toContain("default 10");
    expect(param("browse_marketplace", "category").enum.filter(Boolean)).toEqual([
      "audio-plugins",
      "desktop-apps",
      "game-assets",
      "3d-vfx",
      "dev-tools",
      "creative-tools",
    ]);
    expect(param("generate_test_license_key", "prefix").description).toMatch(/at least 2 characters; at most 4 characters/);
    expect(param("generate_license_integration", "language").enum.sort()).toEqual([
      "c",
      "cpp",
      "csharp",
      "electron",
      "juce",
      "python",
      "rust",
      "tauri",
    ]);
    expect(param("explain_licensing", "topic").enum.sort()).toEqual([
      "anti_tamper",
      "comparison",
      "key_revocation",
      "machine_binding",
      "offline_validation",
      "pricing",
      "server_setup",
      "trial_keys",
    ]);
    expect(param("generate_server_config", "target").enum.filter(Boolean).sort()).toEqual(["docker", "fly", "railway", "render", "vps"]);
    expect(param("verify_receipt", "receipt").type).toBe("object");
  });
});

describe("GET /api/discover", () => {
  it("has every field of the discovery payload, the DID as identity and the spec's layers", async () => {
    const d = (await call(discover, "/api/discover")).body;
    for (const k of [
      "name",
      "tagline",
      "url",
      "identity",
      "version",
      "updated",
      "contact",
      "summary",
      "protocols",
      "capabilities",
      "discovery",
      "quickstart",
      "pricing",
      "_links",
    ]) {
      expect(d, k).toHaveProperty(k);
    }
    expect(d.version).toBe("0.3.0");
    expect(d.url).toBe(BASE);
    const didDoc = (await call(did, "/.well-known/did.json")).body;
    expect(d.identity).toBe(didDoc.id);
    expect(Object.keys(d.protocols).sort()).toEqual(["a2a", "did", "mcp", "openai_plugin", "openapi"]);
    expect(d.protocols.mcp).toMatchObject({
      endpoint: `${BASE}/api/mcp`,
      transport: "streamable-http",
      protocol_version: "2024-11-05",
      description: expect.any(String),
      config_snippet: expect.any(Object),
    });
    expect(d.protocols.a2a).toMatchObject({
      agent_card: `${BASE}/.well-known/agent-card.json`,
      endpoint: `${BASE}/api/a2a`,
      transport: "JSONRPC",
      protocol_versions: ["1.0", "0.3"],
    });
    expect(d.capabilities.overview).toEqual(expect.any(String));
    expect(d.capabilities.layers.map((l: any) => [l.layer, l.name])).toEqual([
      [1, "Discovery"],
      [2, "Operational"],
      [3, "Terms"],
      [4, "Checkout"],
      [5, "Receipts"],
    ]);
    for (const l of d.capabilities.layers) {
      const expected = Object.entries(SPEC_TOOLS)
        .filter(([, v]) => v.layer === l.layer)
        .map(([k]) => k);
      expect([...l.tools].sort(), `layer ${l.layer}`).toEqual(expected.sort());
    }
    expect(d.discovery.how_agents_find_us.length).toBeGreaterThan(2);
    expect(d.discovery.no_registry_needed).toEqual(expect.any(String));
    for (const q of ["browse", "purchase", "verify"]) {
      expect(d.quickstart[q]).toMatchObject({
        description: expect.any(String),
        mcp: { method: "tools/call", params: { name: expect.any(String), arguments: expect.any(Object) } },
        rest: expect.any(String),
      });
      expect(Object.keys(SPEC_TOOLS)).toContain(d.quickstart[q].mcp.params.name);
    }
    expect(d.pricing).toMatchObject({
      model: "percentage",
      transaction_fee_percent: 5,
      monthly_fee: 0,
      setup_fee: 0,
      sdk: "free, MIT license",
      self_hosting: "free",
      currency: "usd",
    });
    expect(Object.keys(d._links).sort()).toEqual(
      [
        "self",
        "mcp",
        "tools",
        "catalog",
        "terms",
        "receipt",
        "checkout",
        "marketplace",
        "categories",
        "openapi",
        "agents",
        "agent_card",
        "mcp_card",
        "ai_plugin",
        "did",
        "llms_txt",
        "llms_full",
        "source",
      ].sort(),
    );
    for (const v of Object.values(d._links)) expect(String(v).startsWith(BASE)).toBe(true);
  });
});

describe("well-known documents", () => {
  it("A2A agent card", async () => {
    const c = (await call(agentCard, "/.well-known/agent-card.json")).body;
    for (const k of ["name", "description", "supportedInterfaces", "version", "capabilities", "defaultInputModes", "defaultOutputModes", "skills"])
      expect(c, k).toHaveProperty(k);
    // The A2A endpoint, for A2A 1.0 clients (supportedInterfaces) and 0.3 clients (url, preferredTransport, protocolVersion).
    expect(c.supportedInterfaces.map((i: any) => [i.url, i.protocolBinding, i.protocolVersion])).toEqual([
      [`${BASE}/api/a2a`, "JSONRPC", "1.0"],
      [`${BASE}/api/a2a`, "JSONRPC", "0.3"],
    ]);
    expect(c).toMatchObject({ url: `${BASE}/api/a2a`, preferredTransport: "JSONRPC", protocolVersion: "0.3.0" });
    const manifest = (await call(tools, "/api/tools")).body;
    expect(c.skills.map((s: any) => s.id)).toEqual(manifest.tools.map((t: any) => t.function.name));
    for (const s of c.skills) {
      expect(s).toMatchObject({ id: expect.any(String), name: expect.any(String), description: expect.any(String) });
      expect(s.tags.length).toBeGreaterThan(0);
    }
  });

  it("MCP server card", async () => {
    const c = (await call(serverCard, "/.well-known/mcp/server-card.json")).body;
    expect(c).toMatchObject({
      name: expect.any(String),
      version: "0.3.0",
      description: expect.any(String),
      capabilities: { tools: expect.any(Object) },
    });
    expect(c.remotes[0]).toMatchObject({ type: "streamable-http", url: `${BASE}/api/mcp` });
    expect(c.remotes[0].supportedProtocolVersions).toContain("2024-11-05");
    expect(c.tools.map((t: any) => t.name).sort()).toEqual(Object.keys(SPEC_TOOLS).sort());
    for (const t of c.tools) {
      expect(t.inputSchema.type).toBe("object");
      expect([...(t.inputSchema.required ?? [])].sort(), t.name).toEqual(SPEC_TOOLS[t.name]!.required);
    }
    // The MCP schemas are the full ones: limits and defaults as keywords, the key's real pattern.
    const arg = (tool: string, name: string) => c.tools.find((t: any) => t.name === tool).inputSchema.properties[name];
    expect(arg("browse_marketplace", "limit")).toMatchObject({ minimum: 1, maximum: 20, default: 10 });
    expect(arg("generate_test_license_key", "prefix")).toMatchObject({ minLength: 2, maxLength: 4 });
    expect(arg("activate_license", "license_key").pattern).toBe("^[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}$");
    expect(arg("activate_license", "license_key").maxLength).toBeUndefined();
    expect(arg("activate_license", "machine_fingerprint").pattern).toBe("^[0-9a-fA-F]{64}$");
    expect(c.capabilities.tools).toEqual({ listChanged: false });
  });

  it("ai-plugin.json points at the OpenAPI description with no auth; agents.json flows name real operations", async () => {
    const p = (await call(aiPlugin, "/.well-known/ai-plugin.json")).body;
    expect(p).toMatchObject({ schema_version: "v1", auth: { type: "none" }, api: { type: "openapi", url: `${BASE}/openapi.json` } });
    const doc = (await call(openapi, "/openapi.json")).body;
    const ids = new Set(Object.values(doc.paths).flatMap((ops: any) => Object.values(ops).map((o: any) => o.operationId)));
    const a = (await call(agentsJson, "/.well-known/agents.json")).body;
    for (const flow of a.flows) for (const action of flow.actions) expect(ids.has(action.operationId), action.operationId).toBe(true);
    // Beside the hosted checkout, the agent's own purchase over the Agentic Commerce Protocol (issue 34).
    const flows = Object.fromEntries(
      a.flows.map((f: { id: string; actions: Array<{ operationId: string }> }) => [f.id, f.actions.map((x) => x.operationId)]),
    );
    expect(flows.buy_license).toContain("createCheckout");
    expect(flows.buy_license_acp).toEqual(
      expect.arrayContaining([
        "createAcpCheckoutSession",
        "updateAcpCheckoutSession",
        "delegatePayment",
        "completeAcpCheckoutSession",
        "getAcpCheckoutSession",
        "cancelAcpCheckoutSession",
      ]),
    );
  });

  it("the OACS capability spec is what the catalog points to", async () => {
    const o = (await call(oacs, "/oacs")).body;
    expect(o.oacs_version).toBe("0.1");
    expect(o.catalog.url).toBe(`${BASE}/api/catalog`);
    expect(o.catalog.product_schema.properties).toHaveProperty("checkout_url");
  });
});

describe("GET /openapi.json", () => {
  it("is OpenAPI 3.1.0, version 0.3.0, with every REST path of the spec, and passes redocly's recommended rules", async () => {
    const r = await call(openapi, "/openapi.json");
    const doc = r.body;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("0.3.0");
    const expected: Array<[string, string]> = [
      ["get", "/api/terms"],
      ["get", "/api/receipt"],
      ["post", "/api/receipt"],
      ["post", "/api/checkout/create"],
      ["get", "/api/marketplace/listings"],
      ["get", "/api/marketplace/product/{id}"],
      ["get", "/api/marketplace/categories"],
      ["get", "/.well-known/did.json"],
      ["post", "/validate"],
      ["post", "/activate"],
      ["post", "/deactivate"],
      ["get", "/api/discover"],
      ["get", "/api/catalog"],
      ["get", "/api/tools"],
      ["get", "/health"],
      ["get", "/api/checkout/{session_id}"],
    ];
    for (const [method, path] of expected) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.responses["200"].content).toBeDefined();
    }
    const validate = doc.paths["/validate"].post;
    expect(validate.requestBody.content["application/json"].schema.required.sort()).toEqual(["license_key", "machine_fingerprint", "plugin_id"]);
    expect(Object.keys(validate.responses["200"].content["application/json"].schema.properties)).toEqual(
      expect.arrayContaining(["valid", "expires_at", "machine_bound", "trial", "trial_days_remaining"]),
    );

    const dir = mkdtempSync(join(tmpdir(), "openapi-"));
    const file = join(dir, "openapi.json");
    writeFileSync(file, r.text);
    const lint = spawnSync("npx", ["--no-install", "redocly", "lint", file, "--format=json"], { encoding: "utf8", timeout: 120_000 });
    const report = JSON.parse(lint.stdout.slice(lint.stdout.indexOf("{")));
    const errors = report.problems.filter((p: any) => p.severity === "error");
    expect(errors, JSON.stringify(errors, null, 2)).toEqual([]);
    expect(lint.status).toBe(0);
  });
});

describe("text documents", () => {
  it("llms.txt follows the format: H1, blockquote summary, sections of links", async () => {
    const r = await call(llms, "/llms.txt");
    expect(r.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const lines = r.text.split("\n");
    expect(lines[0]).toMatch(/^# \S/);
    expect(lines.find((l) => l.trim() !== "" && !l.startsWith("# "))).toMatch(/^> \S/);
    const sections = lines.filter((l) => l.startsWith("## "));
    expect(sections.length).toBeGreaterThanOrEqual(3);
    const links = lines.filter((l) => /^- \[[^\]]+\]\(http[^)]+\)/.test(l));
    expect(links.length).toBeGreaterThan(10);
    expect(r.text).toContain(`${BASE}/api/mcp`);
  });

  it("llms-full.txt documents every tool and endpoint", async () => {
    const r = await call(llmsFull, "/llms-full.txt");
    expect(r.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    for (const name of Object.keys(SPEC_TOOLS)) expect(r.text).toContain(`#### ${name}`);
    for (const p of ["POST /validate", "GET /api/catalog", "POST /api/checkout/create"]) expect(r.text).toContain(p);
    expect(r.text).toContain("TOO_MANY_MACHINES");
    // The six ACP endpoints, each with its reference, and how the binding answers a refusal (issue 34).
    for (const p of [
      "POST /api/acp/checkout_sessions",
      "GET /api/acp/checkout_sessions/{checkout_session_id}",
      "POST /api/acp/checkout_sessions/{checkout_session_id}",
      "POST /api/acp/checkout_sessions/{checkout_session_id}/complete",
      "POST /api/acp/checkout_sessions/{checkout_session_id}/cancel",
      "POST /api/acp/agentic_commerce/delegate_payment",
    ])
      expect(r.text).toContain(`### ${p}\n`);
    expect(r.text).toContain("## Agentic Commerce Protocol (2026-04-17)");
    expect(r.text).toContain("JSON-RPC error {code: -32000, message, data: ACP's Error object}");
    expect(r.text).toContain("capabilities: {interventions: {supported: []}}");
    expect(r.text).not.toContain("acp_error");
  });
});

describe("generate_license_integration for this deployment", () => {
  it("embeds the service's published Ed25519 keys, so offline verification works as generated", async () => {
    const { callTool, toolByName } = await import("@/lib/agents/tools");
    const tool = toolByName("generate_license_integration")!;
    const ctx = { transport: "mcp" as const, client: "127.0.0.1", requestId: "t", headers: new Headers(), origin: "http://localhost:3000" };
    const { signingKeys } = await import("@/lib/identity/service-keys");
    const { current } = await signingKeys();
    const out = await callTool(tool, { language: "python", app_id: "com.example.app" }, ctx);
    expect(out.text).toContain(current.raw.toString("base64url"));
    expect(out.text).toContain(`did:web:localhost%3A3000#${current.id}`);
    const elsewhere = await callTool(tool, { language: "python", server_url: "https://licenses.example.org" }, ctx);
    expect(elsewhere.text).not.toContain(current.raw.toString("base64url"));
  });
});
