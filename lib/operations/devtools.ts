import { z } from "zod";
import { explainLicensing } from "../agents/devtools/explain.ts";
import { generateLicenseIntegration } from "../agents/devtools/integration.ts";
import { INTEGRATION_LANGUAGES, LICENSING_TOPICS, SERVER_TARGETS } from "../agents/devtools/options.ts";
import { generateServerConfig } from "../agents/devtools/server-config.ts";
import { generateTestLicenseKey } from "../agents/devtools/test-key.ts";
import { env } from "../env.ts";
import { serviceDid } from "../identity/did.ts";
import { signingKeys } from "../identity/service-keys.ts";
import { operation } from "./define.ts";

const markdown = z.string().describe("Markdown");
const asText = (s: string) => s;

/** Help for developers integrating licensing: offered to agents as tools (layer 1), not as REST endpoints. */
export const DEVTOOLS = [
  operation({
    id: "generateLicenseIntegration",
    summary: "Generate license integration code",
    tag: "Agents",
    auth: "public",
    readOnly: true,
    input: {
      body: z.object({
        language: z.enum(INTEGRATION_LANGUAGES).describe("Target language or framework"),
        app_id: z.string().max(200).optional().describe("The product's plugin_id, a reverse-domain identifier such as com.example.app"),
        server_url: z.string().max(300).optional().describe("License validation server URL; defaults to this deployment"),
      }),
    },
    output: markdown,
    handler: async (a) => {
      // Code for this deployment embeds its published keys, so offline verification works as generated.
      const ours = !a.server_url || a.server_url.replace(/\/+$/, "") === env().BASE_URL;
      const public_keys = ours
        ? Object.fromEntries((await signingKeys()).all.map((k) => [`${serviceDid()}#${k.id}`, k.raw.toString("base64url")]))
        : undefined;
      return generateLicenseIntegration({ language: a.language, app_id: a.app_id, server_url: a.server_url, public_keys });
    },
    tools: [
      {
        name: "generate_license_integration",
        title: "Generate license integration code",
        layer: 1,
        description:
          "Generate complete, idiomatic code that adds this service's machine-bound licensing to an app: computes the machine fingerprint, activates on first run, validates on every start, keeps running offline on a signed license file it verifies with the embedded Ed25519 public key, and handles every error. The Python and Electron (Node) code also checks for updates the license is entitled to and downloads them verified (size, SHA-256, Ed25519 signature) before writing them. Returns Markdown with setup steps and fenced code blocks. For this deployment the current public keys are embedded already.",
        text: asText,
      },
    ],
  }),
  operation({
    id: "explainLicensing",
    summary: "Explain a licensing topic",
    tag: "Agents",
    auth: "public",
    readOnly: true,
    input: { body: z.object({ topic: z.enum(LICENSING_TOPICS).describe("What to explain") }) },
    output: markdown,
    handler: (a) => explainLicensing(a.topic),
    tools: [
      {
        name: "explain_licensing",
        title: "Explain a licensing topic",
        layer: 1,
        description:
          "Explain how a part of licensing works on this service, with the endpoints and codes to use: machine binding, offline validation, trials, revocation, anti-tamper, server setup, pricing, or a comparison with other licensing services.",
        text: asText,
      },
    ],
  }),
  operation({
    id: "generateServerConfig",
    summary: "Generate deployment configuration",
    tag: "Agents",
    auth: "public",
    readOnly: true,
    input: {
      body: z.object({
        target: z.enum(SERVER_TARGETS).describe("Where to deploy"),
        domain: z.string().max(253).optional().describe("Public host name, e.g. licenses.example.com"),
      }),
    },
    output: markdown,
    handler: (a) => generateServerConfig({ target: a.target, domain: a.domain }),
    tools: [
      {
        name: "generate_server_config",
        title: "Generate deployment configuration",
        layer: 1,
        description:
          "Generate deployable configuration for self-hosting this service (Dockerfile and compose, fly.toml, railway.json, render.yaml, or systemd plus a reverse proxy), with PostgreSQL for production.",
        text: asText,
      },
    ],
  }),
  operation({
    id: "generateTestLicenseKey",
    summary: "Generate a test license key",
    tag: "Agents",
    auth: "public",
    readOnly: true,
    input: {
      body: z.object({
        prefix: z
          .string()
          .min(2)
          .max(4)
          .regex(/^[A-Za-z0-9]+$/, "must be letters and digits")
          .optional()
          .describe("2 to 4 characters to start the key with"),
      }),
    },
    output: z.object({ license_key: z.string(), test: z.literal(true), note: z.string() }),
    handler: (a) => generateTestLicenseKey({ prefix: a.prefix }),
    tools: [
      {
        name: "generate_test_license_key",
        title: "Generate a test license key",
        layer: 1,
        description:
          "Generate a key in the XXXX-XXXX-XXXX-XXXX format for tests and UI mock-ups. It is clearly a test key and never validates as a real license.",
        text: (k) => `${k.license_key}\n\n${k.note}`,
      },
    ],
  }),
];
