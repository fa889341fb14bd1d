import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_APP_ID } from "../inputs.ts";
import { publicKeyLines, type IntegrationContext, type IntegrationFile } from "./common.ts";

/**
 * The integration code lives as real source files under `sdks/` at the repository root, where their own
 * compilers and linters see them (tests/unit/integration-sources.test.ts). Each is a working program for the
 * placeholder values below; the generator reads it and fills in this request's values, nothing more.
 */
export const SOURCE_SERVER_URL = "http://localhost:3000";
export const SOURCE_APP_ID = DEFAULT_APP_ID;

/** How one LICENSE_PUBLIC_KEYS entry is written in a language, and how a comment after it is. */
export interface KeyEntrySyntax {
  line: (keyId: string, key: string) => string;
  comment: (text: string) => string;
}

/** The source files' own context: the placeholder server, app id and key entry the generator replaces. */
const SOURCE_CONTEXT: IntegrationContext = {
  appId: SOURCE_APP_ID,
  serverUrl: SOURCE_SERVER_URL,
  appIdGiven: false,
  publicKeys: [{ keyId: "did:web:localhost%3A3000#ed25519-1", key: "" }],
  publicKeysGiven: false,
};

// The server runs from the repository root (`npm start`, the tests); next.config.ts traces the folder into builds.
const ROOT = join(process.cwd(), "sdks");
const cache = new Map<string, string>();

/** A file under sdks/, as it is in the repository. */
export function integrationSource(path: string): string {
  let text = cache.get(path);
  if (text === undefined) {
    text = readFileSync(join(ROOT, path), "utf8");
    cache.set(path, text);
  }
  return text;
}

function replaceAll(text: string, from: string, to: string): string {
  return text.split(from).join(to);
}

/**
 * A source file with this request's values: its LICENSE_PUBLIC_KEYS placeholder entry (when `keys` says how entries
 * are written) becomes the request's entries, then every occurrence of the placeholder server URL and app id becomes
 * the request's. Every value has been checked (inputs.ts), so it can go into any string literal as it is.
 */
export function filledSource(path: string, ctx: IntegrationContext, keys?: KeyEntrySyntax): string {
  let text = integrationSource(path);
  if (keys) {
    const placeholder = publicKeyLines(SOURCE_CONTEXT, keys.line, keys.comment);
    const parts = text.split(`${placeholder}\n`);
    // A missing or repeated entry means the source file and its language module disagree: a bug, not an input.
    if (parts.length !== 2) throw new Error(`sdks/${path}: expected one LICENSE_PUBLIC_KEYS placeholder line ${JSON.stringify(placeholder)}`);
    text = parts.join(`${publicKeyLines(ctx, keys.line, keys.comment)}\n`);
  }
  text = replaceAll(text, SOURCE_SERVER_URL, ctx.serverUrl);
  return replaceAll(text, SOURCE_APP_ID, ctx.appId);
}

/** A file of the generated Markdown, read from `sdks/<source>` and filled in. */
export function sourceFile(path: string, lang: string, source: string, ctx: IntegrationContext, keys?: KeyEntrySyntax): IntegrationFile {
  return { path, lang, code: filledSource(source, ctx, keys) };
}

/** The part of a file from its first line that starts with `marker` (a Cargo.toml's [dependencies], say). */
export function fromLine(text: string, marker: string): string {
  const at = text.split("\n").findIndex((l) => l.startsWith(marker));
  if (at < 0) throw new Error(`no line starting with ${marker}`);
  return text.split("\n").slice(at).join("\n");
}
