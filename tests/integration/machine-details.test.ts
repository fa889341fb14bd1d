import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as mcpPost } from "@/app/api/mcp/route";
import { openApiDocument } from "@/lib/api/openapi";
import { disconnectDb, getDb } from "@/lib/db";
import { flushValidations } from "@/lib/licensing/validation-log";
import { post, startLeanServer } from "../helpers/lean-server";
import { fingerprint, newLicense } from "../helpers/licenses";

// What an app says about its machine on /activate (name, platform, version), bounded and cleaned; "last seen" from
// /validate on every transport.
let lean: Awaited<ReturnType<typeof startLeanServer>>;
let mcp: Client;
let license: Awaited<ReturnType<typeof newLicense>>["license"];
let pluginId = "";

beforeAll(async () => {
  lean = await startLeanServer();
  const made = await newLicense({ maxMachines: 5 });
  license = made.license;
  pluginId = made.product.pluginId;
  mcp = new Client({ name: "machine-details", version: "1.0.0" });
  const fetchRoute = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    return request.method === "POST" ? mcpPost(request) : new Response(null, { status: 405 });
  };
  await mcp.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", "http://localhost:3000"), { fetch: fetchRoute }));
});
afterAll(async () => {
  await mcp.close();
  await lean.close();
  await disconnectDb();
});

const activate = (fp: string, extra: Record<string, unknown> = {}) =>
  post(lean.base, "/activate", { license_key: license.key, machine_fingerprint: fp, plugin_id: pluginId, ...extra });
const activatedEvents = async (fp: string) =>
  (await getDb().licenseEvent.findMany({ where: { licenseId: license.id, type: "activated" } })).filter(
    (e) => (e.detail as { fingerprint?: string }).fingerprint === fp,
  );
const machine = (fp: string) => getDb().activation.findFirst({ where: { licenseId: license.id, fingerprint: fp } });

describe("machine details on /activate", () => {
  it("stores name, platform and version; tabs and line breaks become spaces, whitespace collapses, blank is absent", async () => {
    const fp = fingerprint();
    const r = await activate(fp, { machine_name: "  Studio\tMac\r\n  Pro ", platform: "macOS 15.1\narm64", app_version: "   " });
    expect(r.status, r.text).toBe(200);
    expect(r.body.code).toBe("ACTIVATED");
    expect(await machine(fp)).toMatchObject({ machineName: "Studio Mac Pro", platform: "macOS 15.1 arm64", appVersion: null });
    expect(await activatedEvents(fp)).toMatchObject([{ detail: { fingerprint: fp, machine_name: "Studio Mac Pro", app_version: null } }]);
  });

  it("refuses oversized values (never cuts them) and control characters, with 400 invalid_body, and activates nothing", async () => {
    const fp = fingerprint();
    for (const extra of [
      { machine_name: "x".repeat(101) },
      { platform: "p".repeat(65) },
      { app_version: "1".repeat(65) },
      { machine_name: "Evil\u001b[31mRed" },
      { machine_name: "nul\u0000name" },
      { machine_name: 42 },
    ]) {
      const r = await activate(fp, extra);
      expect(r.status, JSON.stringify(extra)).toBe(400);
      expect(r.body.code).toBe("invalid_body");
    }
    expect(await machine(fp)).toBeNull();
    const ok = await activate(fp, { machine_name: "y".repeat(100), platform: "p".repeat(64), app_version: "v".repeat(64) });
    expect(ok.status, ok.text).toBe(200);
    expect((await machine(fp))?.machineName).toHaveLength(100);
  });

  it("re-activating a known machine updates what changed and last seen, takes no seat, and keeps what was not sent", async () => {
    const fp = fingerprint();
    await activate(fp, { machine_name: "Render box", platform: "linux-x64", app_version: "1.0.0" });
    const first = (await machine(fp))!;
    await getDb().activation.update({ where: { id: first.id }, data: { lastValidatedAt: new Date("2026-01-01T00:00:00Z") } });
    const again = await activate(fp, { app_version: "1.1.0" });
    expect(again.body.code).toBe("ALREADY_ACTIVATED");
    const after = (await machine(fp))!;
    expect(after).toMatchObject({ machineName: "Render box", platform: "linux-x64", appVersion: "1.1.0" });
    expect(after.lastValidatedAt!.getTime()).toBeGreaterThan(Date.parse("2026-01-02T00:00:00Z"));
    expect((await getDb().license.findUniqueOrThrow({ where: { id: license.id } })).activeMachines).toBe(
      await getDb().activation.count({ where: { licenseId: license.id } }),
    );
    expect(await activatedEvents(fp)).toHaveLength(1);
  });

  it("/validate updates last seen, buffered, on the lean path and over MCP; activate_license takes the details", async () => {
    const fp = fingerprint();
    const viaTool = await mcp.callTool({
      name: "activate_license",
      arguments: { license_key: license.key, machine_fingerprint: fp, plugin_id: pluginId, machine_name: "Agent box", platform: "linux-arm64" },
    });
    expect(viaTool.isError ?? false).toBe(false);
    const m = (await machine(fp))!;
    expect(m).toMatchObject({ machineName: "Agent box", platform: "linux-arm64" });
    const old = new Date("2026-01-01T00:00:00Z");
    await getDb().activation.update({ where: { id: m.id }, data: { lastValidatedAt: old } });

    const r = await post(lean.base, "/validate", { license_key: license.key, machine_fingerprint: fp, plugin_id: pluginId });
    expect(r.body.code).toBe("VALID");
    await flushValidations();
    const leanSeen = (await machine(fp))!.lastValidatedAt!;
    expect(leanSeen.getTime()).toBeGreaterThan(old.getTime());

    await getDb().activation.update({ where: { id: m.id }, data: { lastValidatedAt: old } });
    const tool = await mcp.callTool({
      name: "validate_license",
      arguments: { license_key: license.key, machine_fingerprint: fp, plugin_id: pluginId },
    });
    expect(tool.isError ?? false).toBe(false);
    await flushValidations();
    expect((await machine(fp))!.lastValidatedAt!.getTime()).toBeGreaterThan(old.getTime());
  });

  it("OpenAPI lists the optional fields on /activate only; the activate_license tool's schema has them", async () => {
    const doc = openApiDocument() as any;
    const schemaOf = (path: string) => JSON.stringify(doc.paths[path].post.requestBody.content["application/json"].schema);
    expect(schemaOf("/activate")).toContain("machine_name");
    expect(schemaOf("/activate")).toContain("app_version");
    expect(schemaOf("/validate")).not.toContain("machine_name");
    const activateSchema = doc.paths["/activate"].post.requestBody.content["application/json"].schema;
    const resolved = activateSchema.$ref ? doc.components.schemas[activateSchema.$ref.split("/").pop()] : activateSchema;
    expect(resolved.required).toEqual(expect.arrayContaining(["license_key", "machine_fingerprint", "plugin_id"]));
    expect(resolved.required).not.toContain("machine_name");
    expect(resolved.properties.machine_name.maxLength).toBe(100);
    const { tools } = await mcp.listTools();
    const tool = tools.find((t) => t.name === "activate_license")!;
    expect(Object.keys(tool.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["machine_name", "platform", "app_version"]));
    expect(tool.inputSchema.required).not.toContain("platform");
  });
});
