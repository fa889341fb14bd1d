import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { env, type Env } from "../env.ts";
import { AppError } from "./errors.ts";
import { fromTrustedProxy, isLoopbackAddress } from "./proxy.ts";

/**
 * Which names this server answers to (DNS rebinding). A page on rebind.attacker.example whose name the attacker
 * re-points at 127.0.0.1 reaches us from the victim's own browser, with the victim's cookies and the victim's
 * address, and with `Host: rebind.attacker.example` (and a matching Origin, so same-origin checks pass): the Host
 * header is the one thing the attacker cannot choose. So every request must name one of:
 *
 * - BASE_URL's host: with BASE_URL's port (its scheme's default when it names none), or with no port at all
 *   (browsers omit default ports; proxies often drop the port);
 * - a name in ALLOWED_HOSTS (host names or IP literals, no ports): on any port;
 * - localhost, 127.0.0.1 or [::1], when BASE_URL itself is a loopback host or the socket peer is a loopback address
 *   (an attacker's page can never send these names), on the listening PORT (or BASE_URL's port when BASE_URL is a
 *   loopback host); no port counts as 80.
 *
 * A request from a trusted proxy (TRUST_PROXY_FROM) may carry X-Forwarded-Host: its first value must pass the same
 * test. From anyone else X-Forwarded-Host is dropped, so Next's server-action Origin check compares against the Host
 * checked here. GET /health is exempt: load balancers probe it by the instance's own address, and it reveals nothing.
 * Anything else gets a 421 problem document, code `host_not_allowed`, before the lean path or Next sees it.
 */

export interface ParsedHost {
  /** Lower-case, without a trailing dot; IPv6 literals in brackets ("[::1]"). */
  name: string;
  /** The explicit port, "" when none (or the http default, 80). */
  port: string;
}

const HOST_SYNTAX = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?)(?::\d{1,5})?$/;

/** A Host header value ("example.com", "example.com:8443", "[::1]:3000"), or null when it is not one. */
function parseHostUncached(value: string): ParsedHost | null {
  if (!HOST_SYNTAX.test(value)) return null;
  try {
    const url = new URL(`http://${value}`);
    return { name: url.hostname.replace(/\.$/, ""), port: url.port };
  } catch {
    return null;
  }
}

// Every request's Host goes through here (the licensing hot path included), and a deployment sees a handful of
// distinct values: remember them rather than build a URL per request. Bounded, since clients choose the header.
const parsedHosts = new Map<string, ParsedHost | null>();

export function parseHost(value: string | undefined | null): ParsedHost | null {
  if (!value) return null;
  let parsed = parsedHosts.get(value);
  if (parsed === undefined) {
    parsed = parseHostUncached(value);
    if (parsedHosts.size >= 256) parsedHosts.clear();
    parsedHosts.set(value, parsed);
  }
  return parsed;
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** localhost, 127.0.0.1 or [::1] (any port). */
export function isLoopbackHost(value: string | undefined | null): boolean {
  const host = parseHost(value);
  return host !== null && LOOPBACK_NAMES.has(host.name);
}

export interface HostPolicy {
  baseName: string;
  /** BASE_URL's explicit port, or its scheme's default. */
  basePort: string;
  baseIsLoopback: boolean;
  /** ALLOWED_HOSTS, parsed. */
  names: Set<string>;
  listenPort: string;
}

/** Parses ALLOWED_HOSTS: comma-separated host names or IP literals, without ports; anything else throws. */
export function parseAllowedHosts(value: string | undefined): Set<string> {
  const names = new Set<string>();
  for (const entry of (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    // A bare IPv6 literal is accepted too.
    const spelled = isIP(entry) === 6 ? `[${entry}]` : entry;
    const host = parseHost(spelled);
    if (!host || /:\d+$/.test(spelled.replace(/^\[[^\]]*\]/, ""))) {
      throw new Error(`Invalid environment: ALLOWED_HOSTS: "${entry}" is not a host name (no scheme, port or path; e.g. licenses.example.com)`);
    }
    names.add(host.name);
  }
  return names;
}

const policies = new WeakMap<Env, HostPolicy>();

/** The names this deployment answers to, from BASE_URL, ALLOWED_HOSTS and PORT; throws on an invalid ALLOWED_HOSTS. */
export function hostPolicy(e: Env = env()): HostPolicy {
  let policy = policies.get(e);
  if (!policy) {
    const base = new URL(e.BASE_URL);
    const baseName = base.hostname.replace(/\.$/, "");
    policy = {
      baseName,
      basePort: base.port || (base.protocol === "https:" ? "443" : "80"),
      baseIsLoopback: LOOPBACK_NAMES.has(baseName),
      names: parseAllowedHosts(e.ALLOWED_HOSTS),
      listenPort: String(e.PORT),
    };
    policies.set(e, policy);
  }
  return policy;
}

/** Whether a Host (or X-Forwarded-Host) value names this deployment; see the rules above. */
export function hostAllowed(value: string | undefined, peerIsLoopback: boolean, policy: HostPolicy = hostPolicy()): boolean {
  const host = parseHost(value);
  if (!host) return false;
  if (host.name === policy.baseName && (host.port === "" || host.port === policy.basePort)) return true;
  if (policy.names.has(host.name)) return true;
  if (LOOPBACK_NAMES.has(host.name) && (policy.baseIsLoopback || peerIsLoopback)) {
    const port = host.port || "80";
    return port === policy.listenPort || (policy.baseIsLoopback && port === policy.basePort);
  }
  return false;
}

/** Origins (host[:port], as Next matches them) whose server actions Next accepts besides the request's own host. */
export function serverActionOrigins(e: Env = env()): string[] {
  const policy = hostPolicy(e);
  return [...new Set([new URL(e.BASE_URL).host, ...policy.names])];
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)?.split(",")[0]?.trim();

/**
 * Admits a request by its Host (and, from a trusted proxy, X-Forwarded-Host), or returns the 421 to answer with.
 * Drops X-Forwarded-Host from anyone but a trusted proxy.
 */
export function admitHost(req: Pick<IncomingMessage, "headers" | "url" | "socket">): AppError | null {
  const peer = req.socket.remoteAddress;
  const forwarded = req.headers["x-forwarded-host"];
  if (forwarded !== undefined && !fromTrustedProxy(peer)) delete req.headers["x-forwarded-host"];
  const url = req.url ?? "/";
  if (url === "/health" || url.startsWith("/health?")) return null;
  const peerIsLoopback = isLoopbackAddress(peer);
  const policy = hostPolicy();
  const host = req.headers.host;
  const forwardedHost = req.headers["x-forwarded-host"] === undefined ? undefined : first(req.headers["x-forwarded-host"]);
  let refused: string | undefined;
  if (!hostAllowed(host, peerIsLoopback, policy)) refused = host ?? "";
  else if (forwardedHost !== undefined && !hostAllowed(forwardedHost, peerIsLoopback, policy)) refused = forwardedHost;
  if (refused === undefined) return null;
  return new AppError(
    "host_not_allowed",
    421,
    `This server does not answer to the host ${JSON.stringify(refused.slice(0, 100))}; its address is ${env().BASE_URL}. (Operators: see ALLOWED_HOSTS.)`,
  );
}

/**
 * Our own origin as a request addressed it, for same-origin checks: BASE_URL's scheme with the Host the front door
 * admitted (or X-Forwarded-Host, which it keeps only from a trusted proxy). Never the address Next listens on
 * (`http://localhost:PORT` inside Next whatever the request named), which would let `Origin: http://localhost:PORT`
 * pass for a request sent to another name.
 */
export function addressedOrigin(headers: Pick<Headers, "get">): string {
  const host = headers.get("x-forwarded-host")?.split(",")[0]?.trim() || headers.get("host");
  return host ? `${new URL(env().BASE_URL).protocol}//${host}` : new URL(env().BASE_URL).origin;
}
