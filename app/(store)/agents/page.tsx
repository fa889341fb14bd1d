import type { Metadata } from "next";
import { discoveryLinks, mcpConfigSnippet, TAGLINE } from "@/lib/agents/documents";
import { LAYERS, tools, toolParameters } from "@/lib/agents/tools";
import { VERSIONS } from "@/lib/versions";
import { absoluteUrl, paths } from "@/lib/urls";
import { card, container, focusRing, textLink } from "@/components/ui/styles";

export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: "For AI agents",
  description: "Connect an AI agent to the marketplace: MCP endpoint, tool list, discovery documents. No API key needed.",
};

function argumentsOf(params: Record<string, unknown>): Array<{ name: string; required: boolean; detail: string }> {
  const props = (params.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((params.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, p]) => ({
    name,
    required: required.has(name),
    detail: p.enum ? (p.enum as string[]).join(" | ") : Array.isArray(p.type) ? p.type.join(",") : typeof p.type === "string" ? p.type : "object",
  }));
}

export default function AgentsPage() {
  const links = discoveryLinks();
  const docs: Array<[string, string, string]> = [
    ["llms.txt", links.llms_txt, "A map of the service for language models"],
    ["llms-full.txt", links.llms_full, "The full reference in one text file"],
    ["Discovery payload", links.self, "Protocols, capability layers and every link, as JSON"],
    ["Tool manifest", links.tools, "The tools in OpenAI function format"],
    ["OpenAPI 3.1", links.openapi, "Every REST endpoint with schemas"],
    ["A2A agent card", links.agent_card, "/.well-known/agent-card.json"],
    ["MCP server card", links.mcp_card, "/.well-known/mcp/server-card.json"],
    ["agents.json", links.agents, "Flows an agent can follow over HTTP"],
    ["DID document", links.did, "The service's did:web identity"],
  ];
  return (
    <div className={`${container} py-10 sm:py-14`}>
      <header className="max-w-3xl">
        <p className="text-sm font-semibold text-indigo-700">For AI agents</p>
        <h1 className="mt-2 text-3xl font-semibold tracking-tight text-slate-900 sm:text-4xl">Connect your agent in one line</h1>
        <p className="mt-4 text-lg text-slate-600">
          {TAGLINE} Everything is open: no account and no API key. Agents can browse, buy for a buyer, and check licenses over MCP or REST.
        </p>
      </header>

      <section aria-labelledby="mcp-heading" className={`${card} mt-10 p-6`}>
        <h2 id="mcp-heading" className="text-lg font-semibold text-slate-900">
          MCP endpoint
        </h2>
        <p className="mt-2 text-sm text-slate-600">
          Streamable HTTP at <code className="rounded bg-slate-100 px-1.5 py-0.5 text-slate-900">{absoluteUrl(paths.mcp)}</code>, protocol{" "}
          {VERSIONS.mcpProtocol} and newer revisions. Add it to your client:
        </p>
        {/* Focusable, so keyboard users can scroll the snippet where it is wider than a phone's screen. */}
        <pre
          tabIndex={0}
          role="region"
          aria-label="MCP client configuration"
          className={`mt-4 overflow-x-auto rounded-xl bg-slate-900 p-4 text-sm text-slate-100 ${focusRing}`}
        >
          <code>{JSON.stringify(mcpConfigSnippet(), null, 2)}</code>
        </pre>
      </section>

      <section aria-labelledby="docs-heading" className="mt-10">
        <h2 id="docs-heading" className="text-lg font-semibold text-slate-900">
          Discovery documents
        </h2>
        <ul className="mt-4 grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
          {docs.map(([name, href, text]) => (
            <li key={href} className={`${card} p-4`}>
              <a href={href} className={textLink}>
                {name}
              </a>
              <p className="mt-1 text-sm text-slate-600">{text}</p>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="tools-heading" className="mt-12">
        <h2 id="tools-heading" className="text-lg font-semibold text-slate-900">
          The {tools().length} tools
        </h2>
        {LAYERS.map((layer) => (
          <div key={layer.layer} className="mt-6">
            <h3 className="text-base font-semibold text-slate-900">
              Layer {layer.layer}: {layer.name}
            </h3>
            <p className="text-sm text-slate-600">{layer.summary}</p>
            <ul className="mt-3 space-y-3">
              {tools()
                .filter((t) => t.layer === layer.layer)
                .map((t) => (
                  <li key={t.name} className={`${card} p-4`}>
                    <p className="font-mono text-sm font-semibold text-slate-900">{t.name}</p>
                    <p className="mt-1 text-sm text-slate-700">{t.description}</p>
                    {argumentsOf(toolParameters(t)).length > 0 && (
                      <ul className="mt-2 flex flex-wrap gap-2 text-xs">
                        {argumentsOf(toolParameters(t)).map((a) => (
                          <li key={a.name} className="rounded-md bg-slate-100 px-2 py-1 text-slate-700">
                            <span className="font-mono font-semibold text-slate-900">{a.name}</span>
                            {a.required ? "*" : ""}: <span className="break-all">{a.detail}</span>
                          </li>
                        ))}
                      </ul>
                    )}
                  </li>
                ))}
            </ul>
          </div>
        ))}
      </section>
    </div>
  );
}
