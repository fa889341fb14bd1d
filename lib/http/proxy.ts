import { BlockList, isIP } from "node:net";
import { liveSetting } from "../env.ts";

/**
 * Who the client is when reverse proxies stand in front of us. X-Forwarded-For is anyone's to write, so it is read
 * only when the socket peer is one of our proxies (TRUST_PROXY_FROM), and then from the right: each trusted proxy
 * vouches for the hop before it, for at most TRUST_PROXY hops (the way Express's `trust proxy` does with a list).
 */

/** The header server.ts stamps when the client address was read from X-Forwarded-For through trusted proxies. */
export const CLIENT_VIA_PROXY_HEADER = "x-ilm-client-via-proxy";

function normalizeUncached(raw: string): string | null {
  let a = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(a)?.[1];
  if (bracketed !== undefined) a = bracketed;
  else if (/^[\d.]+:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(":")); // 192.0.2.1:4711
  a = a.toLowerCase();
  if (isIP(a) === 4) return a;
  if (isIP(a) !== 6) return null;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a)?.[1];
  if (mapped !== undefined) return mapped;
  // ::ffff:7f00:1 and other spellings: the URL parser writes every IPv6 address in one canonical form.
  const canonical = new URL(`http://[${a}]/`).hostname.slice(1, -1);
  const [, high, low] = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical) ?? [];
  if (high !== undefined && low !== undefined) {
    const hi = parseInt(high, 16);
    const lo = parseInt(low, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return canonical;
}

const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

/**
 * Answers of a pure function of an address string, remembered: every request asks about its peer's address (the host
 * check, the client address), the same few addresses come back on every keep-alive request, and a BlockList check
 * builds a SocketAddress each time. Bounded: only strings as long as an address can be (X-Forwarded-For entries are
 * anyone's to write), and past 10,000 of them the memory starts over.
 */
function memo<T>(compute: (raw: string) => T): (raw: string) => T {
  const seen = new Map<string, T>();
  return (raw) => {
    if (raw.length > 64) return compute(raw);
    let value = seen.get(raw);
    if (value === undefined && !seen.has(raw)) {
      value = compute(raw);
      if (seen.size >= 10_000) seen.clear();
      seen.set(raw, value);
    }
    return value as T;
  };
}

const normalizeMemo = memo(normalizeUncached);

/** An address without IPv6 brackets, port or zone, with IPv4-mapped IPv6 written as IPv4; null when not an IP. */
export function normalizeAddress(raw: string | undefined | null): string | null {
  return normalizeMemo(raw ?? "");
}

const loopbackMemo = memo((raw) => {
  if (raw.includes("%")) return false;
  const a = normalizeAddress(raw);
  return a !== null && loopback.check(a, isIP(a) === 4 ? "ipv4" : "ipv6");
});

/** 127.0.0.0/8 and ::1, in any spelling (IPv4-mapped included); a zone id ("fe80::1%eth0") is never loopback. */
export function isLoopbackAddress(raw: string | null | undefined): boolean {
  return loopbackMemo(raw ?? "");
}

/** Parses TRUST_PROXY_FROM ("127.0.0.1,::1,10.0.0.0/8,fd00::/8"); an entry that is not an address or range throws. */
export function parseTrustedProxies(value: string): BlockList {
  const list = new BlockList();
  for (const entry of value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [addr = "", prefix, ...rest] = entry.split("/");
    const address = addr.replace(/^\[(.*)\]$/, "$1").toLowerCase();
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (!family || address.includes("%") || rest.length || !(bits >= 0 && bits <= max)) {
      throw new Error(
        `Invalid environment: TRUST_PROXY_FROM: "${entry}" is not an IP address or CIDR range (e.g. 127.0.0.1, ::1, 10.0.0.0/8, fd00::/8)`,
      );
    }
    list.addSubnet(address, bits, family === 4 ? "ipv4" : "ipv6");
  }
  return list;
}

let cached: { raw: string; list: BlockList } | undefined;

/** The trusted proxies, from TRUST_PROXY_FROM (re-read when it changes); throws on an invalid entry. */
export function trustedProxies(): BlockList {
  const raw = liveSetting("TRUST_PROXY_FROM");
  if (cached?.raw !== raw) cached = { raw, list: parseTrustedProxies(raw) };
  return cached.list;
}

const trustedMemo = new WeakMap<BlockList, (address: string) => boolean>();
function isTrusted(list: BlockList, address: string | null): boolean {
  if (address === null) return false;
  let check = trustedMemo.get(list);
  if (!check) {
    check = memo((a) => list.check(a, isIP(a) === 4 ? "ipv4" : "ipv6"));
    trustedMemo.set(list, check);
  }
  return check(address);
}

export interface ResolvedClient {
  /** The client's address (normalized when it is an IP). */
  address: string;
  /** Whether it was read from X-Forwarded-For, vouched for by trusted proxies, rather than the socket. */
  viaProxy: boolean;
}

/**
 * The client behind the socket peer: with TRUST_PROXY=n, walks X-Forwarded-For from the right while the hop at hand
 * is a trusted proxy, at most n hops. A peer that is not a trusted proxy is the client, whatever the header says.
 */
export function resolveClient(socketAddress: string | undefined, forwardedFor: string | string[] | undefined): ResolvedClient {
  const socket = normalizeAddress(socketAddress);
  const fallback = { address: socket ?? socketAddress ?? "unknown", viaProxy: false };
  const hops = liveSetting("TRUST_PROXY");
  if (hops === 0 || !forwardedFor || socket === null) return fallback;
  const list = trustedProxies();
  const chain = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  let current: string = socket;
  let viaProxy = false;
  for (let i = 0; i < hops && isTrusted(list, normalizeAddress(current)); i++) {
    const previous = chain.pop();
    if (previous === undefined) break;
    current = normalizeAddress(previous) ?? previous;
    viaProxy = true;
  }
  return { address: current, viaProxy };
}

/** Whether the socket peer is one of our proxies (TRUST_PROXY > 0 and the peer in TRUST_PROXY_FROM). */
export function fromTrustedProxy(socketAddress: string | undefined): boolean {
  return liveSetting("TRUST_PROXY") > 0 && isTrusted(trustedProxies(), normalizeAddress(socketAddress));
}
