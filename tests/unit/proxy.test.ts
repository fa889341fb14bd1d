import { afterEach, describe, expect, it } from "vitest";
import { parseEnv, resetEnv } from "@/lib/env";
import { admitHost, hostAllowed, hostPolicy, isLoopbackHost, parseAllowedHosts, parseHost, serverActionOrigins } from "@/lib/http/host";
import { fromTrustedProxy, isLoopbackAddress, normalizeAddress, parseTrustedProxies, resolveClient, trustedProxies } from "@/lib/http/proxy";
import { clientAddress } from "@/lib/http/rate-limit";

/** The client address behind proxies (TRUST_PROXY, TRUST_PROXY_FROM) and the Host check in front of everything. */

afterEach(() => {
  delete process.env.TRUST_PROXY;
  delete process.env.TRUST_PROXY_FROM;
  delete process.env.ALLOWED_HOSTS;
  delete process.env.BASE_URL;
  delete process.env.PORT;
  resetEnv();
});

describe("client address", () => {
  it("ignores X-Forwarded-For from a peer that is not an allow-listed proxy, whatever TRUST_PROXY says", () => {
    // The attack: a direct request claiming to come from 127.0.0.1 opened the dev mailbox with TRUST_PROXY=1.
    process.env.TRUST_PROXY = "1";
    expect(clientAddress("203.0.113.9", "127.0.0.1")).toBe("203.0.113.9");
    expect(resolveClient("::ffff:203.0.113.9", "127.0.0.1")).toEqual({ address: "203.0.113.9", viaProxy: false });
    expect(clientAddress("10.0.0.5", ["127.0.0.1", "::1"])).toBe("10.0.0.5");
    expect(fromTrustedProxy("203.0.113.9")).toBe(false);
  });

  it("reads X-Forwarded-For from an allow-listed proxy, from the right", () => {
    process.env.TRUST_PROXY = "1";
    // The default list is loopback, in every spelling the socket may report.
    for (const peer of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) {
      expect(resolveClient(peer, "127.0.0.1, 198.51.100.7")).toEqual({ address: "198.51.100.7", viaProxy: true });
    }
    // What the client itself wrote to the left of what our proxy appended is not believed.
    expect(clientAddress("127.0.0.1", "127.0.0.1, 198.51.100.7")).toBe("198.51.100.7");
    expect(clientAddress("127.0.0.1", undefined)).toBe("127.0.0.1");
    expect(clientAddress("127.0.0.1", "")).toBe("127.0.0.1");
    expect(clientAddress("127.0.0.1", "[2001:db8::7]:4711")).toBe("2001:db8::7");
    expect(clientAddress("127.0.0.1", "198.51.100.7:4711")).toBe("198.51.100.7");
    expect(fromTrustedProxy("::ffff:127.0.0.1")).toBe(true);
  });

  it("walks at most TRUST_PROXY hops, each of them an allow-listed proxy", () => {
    process.env.TRUST_PROXY = "2";
    process.env.TRUST_PROXY_FROM = "10.0.0.0/8, fd00::/8";
    // client → 10.1.1.1 (proxy) → 10.2.2.2 (proxy) → us
    expect(clientAddress("10.2.2.2", "198.51.100.7, 10.1.1.1")).toBe("198.51.100.7");
    // A forged entry further left stays unread: only two hops are trusted.
    expect(clientAddress("10.2.2.2", "127.0.0.1, 198.51.100.7, 10.1.1.1")).toBe("198.51.100.7");
    // The hop before the first proxy is not a proxy: it is the client, whatever it claims.
    expect(resolveClient("10.2.2.2", "127.0.0.1, 203.0.113.9")).toEqual({ address: "203.0.113.9", viaProxy: true });
    // IPv6 ranges and IPv4-mapped peers.
    expect(clientAddress("fd00::1", "198.51.100.7, 10.1.1.1")).toBe("198.51.100.7");
    expect(clientAddress("::ffff:10.2.2.2", "198.51.100.7")).toBe("198.51.100.7");
    // Loopback is no longer listed: a local peer is then the client.
    expect(clientAddress("127.0.0.1", "198.51.100.7")).toBe("127.0.0.1");
    // Fewer entries than hops: the leftmost one we reach.
    expect(clientAddress("10.2.2.2", "10.1.1.1")).toBe("10.1.1.1");

    process.env.TRUST_PROXY = "1";
    expect(clientAddress("10.2.2.2", "198.51.100.7, 10.1.1.1")).toBe("10.1.1.1");
    process.env.TRUST_PROXY = "0";
    expect(clientAddress("10.2.2.2", "198.51.100.7")).toBe("10.2.2.2");
  });

  it("refuses an invalid TRUST_PROXY_FROM with a clear error", () => {
    for (const bad of ["10.0.0.300", "10.0.0.0/33", "fd00::/129", "localhost", "10.0.0.0/8/8", "10.0.0.0/x", "fe80::1%eth0"]) {
      expect(() => parseTrustedProxies(`127.0.0.1, ${bad}`), bad).toThrow(/TRUST_PROXY_FROM: ".*" is not an IP address or CIDR range/);
    }
    process.env.TRUST_PROXY_FROM = "127.0.0.1,nonsense";
    expect(() => trustedProxies()).toThrow(/TRUST_PROXY_FROM: "nonsense"/);
    const list = parseTrustedProxies("192.0.2.0/24, [2001:db8::1], ::ffff:198.51.100.0/120");
    expect(list.check("192.0.2.200", "ipv4")).toBe(true);
    expect(list.check("192.0.3.1", "ipv4")).toBe(false);
    expect(list.check("2001:db8::1", "ipv6")).toBe(true);
    expect(list.check("198.51.100.9", "ipv4")).toBe(true);
  });

  it("tells loopback addresses apart in every spelling", () => {
    for (const a of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "0:0:0:0:0:0:0:1", "[::1]:80"])
      expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ["10.0.0.1", "::ffff:10.0.0.7", "fe80::1%lo", "localhost", "", null, undefined, "_hidden", "::2"])
      expect(isLoopbackAddress(a), String(a)).toBe(false);
    expect(normalizeAddress("::FFFF:7F00:1")).toBe("127.0.0.1");
    expect(normalizeAddress("2001:DB8:0::1")).toBe("2001:db8::1");
    expect(normalizeAddress("not an address")).toBeNull();
  });
});

describe("host check", () => {
  const policy = (vars: Record<string, string>) => hostPolicy(parseEnv(vars));

  it("refuses a name that points at us but is not ours (DNS rebinding)", () => {
    const local = policy({ BASE_URL: "http://localhost:3000", PORT: "3000" });
    // The attack: the victim's browser, on this machine, sends the attacker's name.
    expect(hostAllowed("rebind.attacker.example:3000", true, local)).toBe(false);
    expect(hostAllowed("rebind.attacker.example", true, local)).toBe(false);
    expect(hostAllowed(undefined, true, local)).toBe(false);
    expect(hostAllowed("", true, local)).toBe(false);
    for (const junk of ["localhost:3000/x", "evil@localhost:3000", "localhost:3000 ", "local host", "localhost:99999", "[::1", "*.localhost"]) {
      expect(hostAllowed(junk, true, local), junk).toBe(false);
    }
    // Our own names, on the port we listen on.
    for (const ok of ["localhost:3000", "LOCALHOST:3000", "localhost.:3000", "127.0.0.1:3000", "[::1]:3000", "[0:0::1]:3000"]) {
      expect(hostAllowed(ok, false, local), ok).toBe(true);
    }
    expect(hostAllowed("localhost:3001", true, local)).toBe(false);
    expect(hostAllowed("127.0.0.1", true, local)).toBe(false); // port 80
    expect(hostAllowed("localhost", true, local)).toBe(true); // BASE_URL's own name without a port
  });

  it("accepts BASE_URL's host on its port, ALLOWED_HOSTS on any port, and loopback names only from loopback peers", () => {
    const p = policy({ BASE_URL: "https://licenses.acme.io", PORT: "3000", ALLOWED_HOSTS: "licenses.internal, 10.0.0.8, ::1" });
    expect(hostAllowed("licenses.acme.io", false, p)).toBe(true);
    expect(hostAllowed("licenses.acme.io:443", false, p)).toBe(true);
    expect(hostAllowed("Licenses.ACME.io", false, p)).toBe(true);
    expect(hostAllowed("licenses.acme.io:8443", false, p)).toBe(false);
    expect(hostAllowed("acme.io", false, p)).toBe(false);
    expect(hostAllowed("licenses.acme.io.evil.example", false, p)).toBe(false);
    expect(hostAllowed("licenses.internal:3000", false, p)).toBe(true);
    expect(hostAllowed("10.0.0.8:3000", false, p)).toBe(true);
    // localhost: from this machine, on the listening port.
    expect(hostAllowed("localhost:3000", true, p)).toBe(true);
    expect(hostAllowed("127.0.0.1:3000", false, p)).toBe(false);
    expect(hostAllowed("localhost:443", true, p)).toBe(false);
    // ...unless listed.
    expect(hostAllowed("[::1]:8080", false, p)).toBe(true);

    const withPort = policy({ BASE_URL: "http://shop.example:8080/", PORT: "3000" });
    expect(hostAllowed("shop.example:8080", false, withPort)).toBe(true);
    expect(hostAllowed("shop.example", false, withPort)).toBe(true); // a proxy that drops the port
    expect(hostAllowed("shop.example:3000", false, withPort)).toBe(false);

    // BASE_URL on loopback (development, the test suites): every loopback name, on PORT or BASE_URL's port.
    const lo = policy({ BASE_URL: "http://127.0.0.1:3211", PORT: "3212" });
    expect(hostAllowed("127.0.0.1:3212", false, lo)).toBe(true);
    expect(hostAllowed("localhost:3211", false, lo)).toBe(true);
    expect(hostAllowed("localhost:3213", false, lo)).toBe(false);
  });

  it("refuses an invalid ALLOWED_HOSTS with a clear error", () => {
    for (const bad of ["https://a.example", "a.example:8443", "a.example/x", "*.a.example", "a b", "[::1]:80"]) {
      expect(() => parseAllowedHosts(`ok.example, ${bad}`), bad).toThrow(/ALLOWED_HOSTS: ".*" is not a host name/);
    }
    expect([...parseAllowedHosts(" A.example. ,, 2001:db8::1 ,[::1]")]).toEqual(["a.example", "[2001:db8::1]", "[::1]"]);
  });

  it("derives Next's server-action origins from the same settings", () => {
    expect(serverActionOrigins(parseEnv({ BASE_URL: "https://licenses.acme.io", ALLOWED_HOSTS: "licenses.internal" }))).toEqual([
      "licenses.acme.io",
      "licenses.internal",
    ]);
    expect(serverActionOrigins(parseEnv({ BASE_URL: "http://localhost:3100" }))).toEqual(["localhost:3100"]);
  });

  it("admits requests by Host and trusted X-Forwarded-Host, exempts /health, and drops untrusted X-Forwarded-Host", () => {
    process.env.BASE_URL = "https://licenses.acme.io";
    process.env.PORT = "3000";
    resetEnv();
    const req = (host: string | undefined, peer: string, url = "/", extra: Record<string, string> = {}) => ({
      headers: { ...(host === undefined ? {} : { host }), ...extra } as Record<string, string | undefined>,
      url,
      socket: { remoteAddress: peer } as never,
    });

    const attack = admitHost(req("rebind.attacker.example:3000", "127.0.0.1", "/api/dev/mailbox"));
    expect(attack).toMatchObject({ status: 421, code: "host_not_allowed" });
    expect(attack?.detail).toContain("rebind.attacker.example:3000");
    expect(admitHost(req("rebind.attacker.example:3000", "127.0.0.1", "/auth/verify?token=x"))?.status).toBe(421);
    expect(admitHost(req(undefined, "127.0.0.1", "/"))?.status).toBe(421);
    expect(admitHost(req("licenses.acme.io", "203.0.113.9", "/"))).toBeNull();
    // Load balancers probe by the instance's address.
    expect(admitHost(req("172.17.0.3:3000", "172.17.0.1", "/health"))).toBeNull();
    expect(admitHost(req("172.17.0.3:3000", "172.17.0.1", "/health?deep=1"))).toBeNull();
    expect(admitHost(req("172.17.0.3:3000", "172.17.0.1", "/healthz"))?.status).toBe(421);

    // X-Forwarded-Host from a client is dropped (Next would compare a server action's Origin with it).
    const direct = req("licenses.acme.io", "203.0.113.9", "/", { "x-forwarded-host": "rebind.attacker.example" });
    expect(admitHost(direct)).toBeNull();
    expect(direct.headers["x-forwarded-host"]).toBeUndefined();
    // From a trusted proxy it must name us too.
    process.env.TRUST_PROXY = "1";
    const proxied = req("127.0.0.1:3000", "127.0.0.1", "/", { "x-forwarded-host": "licenses.acme.io" });
    expect(admitHost(proxied)).toBeNull();
    expect(proxied.headers["x-forwarded-host"]).toBe("licenses.acme.io");
    expect(admitHost(req("127.0.0.1:3000", "127.0.0.1", "/", { "x-forwarded-host": "rebind.attacker.example, licenses.acme.io" }))?.status).toBe(421);
  });

  it("knows the loopback names", () => {
    for (const h of ["localhost", "localhost:3000", "127.0.0.1:80", "[::1]:3000", "LocalHost."]) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ["rebind.attacker.example", "127.0.0.2:3000", "localhost.attacker.example", "", null, "x.localhost"])
      expect(isLoopbackHost(h), String(h)).toBe(false);
    expect(parseHost("[::1]:3000")).toEqual({ name: "[::1]", port: "3000" });
  });
});
