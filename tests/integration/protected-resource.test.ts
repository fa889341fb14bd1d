import { afterAll, describe, expect, it } from "vitest";
import { GET as metadata, POST as metadataPost } from "@/app/.well-known/oauth-protected-resource/route";
import { GET as mcpMetadata } from "@/app/.well-known/oauth-protected-resource/api/mcp/route";
import { GET as openapi } from "@/app/openapi.json/route";
import { disconnectDb } from "@/lib/db";
import { SELLER_SCOPES } from "@/lib/seller-api/tokens";
import { call } from "../helpers/http";

/** RFC 9728 Protected Resource Metadata: what an MCP client (or any OAuth-aware client) reads to learn how to authenticate. */
const BASE = "http://localhost:3000";
const WELL_KNOWN = "/.well-known/oauth-protected-resource";

/** RFC 9728 §3.1: the metadata URL of a resource inserts the well-known path between its host and its path. */
function metadataUrlOf(resource: string): string {
  const u = new URL(resource);
  return `${u.origin}${WELL_KNOWN}${u.pathname === "/" ? "" : u.pathname}`;
}

afterAll(async () => {
  await disconnectDb();
});

describe("GET /.well-known/oauth-protected-resource", () => {
  it("describes the seller API: the base URL as resource, Bearer in the header, the token scopes, no authorization server", async () => {
    const r = await call(metadata, WELL_KNOWN);
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(r.headers.get("cache-control")).toMatch(/^public, max-age=\d+/);
    expect(r.body).toMatchObject({
      resource: BASE,
      resource_name: expect.stringContaining("seller API"),
      resource_documentation: `${BASE}/openapi.json`,
      bearer_methods_supported: ["header"],
      scopes_supported: [...SELLER_SCOPES],
      token_type: "seller_api_token",
      token_prefix: "ilmsk_",
      token_management_uri: `${BASE}/dashboard/api-tokens`,
    });
    expect(r.body.token_issuance).toMatch(/dashboard/);
    expect(Object.keys(r.body.scope_descriptions).sort()).toEqual([...SELLER_SCOPES].sort());
    // Tokens come from the dashboard: naming an authorization server would send clients to an OAuth flow that does not exist.
    expect(r.body).not.toHaveProperty("authorization_servers");
    // §3.3: the resource is the identifier the metadata URL was built from, or clients must not use the document.
    expect(metadataUrlOf(r.body.resource)).toBe(`${BASE}${WELL_KNOWN}`);
  });

  it("is a public document other origins may read, and refuses other methods", async () => {
    const r = await call(metadata, WELL_KNOWN, { headers: { origin: "https://agent.example" } });
    expect(r.status).toBe(200);
    const post = await call(metadataPost, WELL_KNOWN, { method: "POST" });
    expect(post.status).toBe(405);
  });
});

describe("GET /.well-known/oauth-protected-resource/api/mcp (the path-suffixed form MCP clients try first)", () => {
  it("names the MCP endpoint as resource, with the same token facts", async () => {
    const [root, mcp] = await Promise.all([call(metadata, WELL_KNOWN), call(mcpMetadata, `${WELL_KNOWN}/api/mcp`)]);
    expect(mcp.status, mcp.text).toBe(200);
    expect(mcp.body.resource).toBe(`${BASE}/api/mcp`);
    expect(metadataUrlOf(mcp.body.resource)).toBe(`${BASE}${WELL_KNOWN}/api/mcp`);
    expect(mcp.body.resource_name).toMatch(/MCP/);
    const { resource: _a, resource_name: _b, ...rest } = mcp.body;
    const { resource: _c, resource_name: _d, ...rootRest } = root.body;
    expect(rest).toEqual(rootRest);
  });

  it("is described in /openapi.json as a public operation", async () => {
    const doc = await call(openapi, "/openapi.json");
    for (const path of [WELL_KNOWN, `${WELL_KNOWN}/api/mcp`]) {
      const op = doc.body.paths[path]?.get;
      expect(op, path).toBeDefined();
      expect(op.security ?? []).toEqual([]);
    }
  });
});
