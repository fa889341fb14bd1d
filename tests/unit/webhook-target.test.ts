import { afterEach, describe, expect, it } from "vitest";
import { checkWebhookTarget, nonPublicReason } from "@/lib/seller-webhooks/target";

/**
 * The address classifier behind the webhook SSRF guard (lib/seller-webhooks/target.ts): every non-public IPv4 and
 * IPv6 range, IPv4 inside IPv6, and what the URL parser makes of odd IPv4 spellings. No DNS: names are checked in the
 * integration test.
 */

describe("nonPublicReason", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "carrier-grade NAT (shared)"],
    ["100.127.255.255", "carrier-grade NAT (shared)"],
    ["0.0.0.0", "unspecified (this network)"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.10", "documentation"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.9", "documentation"],
    ["198.18.0.1", "benchmarking"],
    ["192.0.0.8", "IETF protocol assignment"],
  ])("IPv4 %s is %s", (ip, reason) => {
    expect(nonPublicReason(ip)).toBe(reason);
  });

  it.each([
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["fe80::1", "link-local"],
    ["febf:ffff::1", "link-local"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["fec0::1", "site-local"],
    ["100::1", "discard-only"],
    ["2001::1", "IETF protocol assignment (Teredo, ORCHID, …)"],
    ["::ffff:127.0.0.1", "loopback (IPv4 inside IPv6)"],
    ["::ffff:7f00:1", "loopback (IPv4 inside IPv6)"],
    ["::ffff:a9fe:a9fe", "link-local (IPv4 inside IPv6)"],
    ["::ffff:0:10.0.0.1", "private (IPv4 inside IPv6)"],
    ["::127.0.0.1", "loopback (IPv4 inside IPv6)"],
    ["64:ff9b::a9fe:a9fe", "link-local (IPv4 inside IPv6)"],
    ["64:ff9b:1::1", "local-use NAT64"],
    ["2002:7f00:1::1", "loopback (IPv4 inside IPv6)"],
    ["2002:c0a8:101::1", "private (IPv4 inside IPv6)"],
    ["4000::1", "reserved"],
    ["fe80::1%eth0", "link-local"],
  ])("IPv6 %s is %s", (ip, reason) => {
    expect(nonPublicReason(ip)).toBe(reason);
  });

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "169.255.0.1",
    "2606:4700::1111",
    "2a00:1450:4001::1",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ])("%s is public", (ip) => {
    expect(nonPublicReason(ip)).toBeNull();
  });

  it("refuses what is not an address", () => {
    expect(nonPublicReason("example.com")).toBe("not an address");
    expect(nonPublicReason("")).toBe("not an address");
    expect(nonPublicReason("1.2.3")).toBe("not an address");
  });
});

describe("checkWebhookTarget without DNS", () => {
  const saved = process.env.WEBHOOK_ALLOW_PRIVATE;
  afterEach(() => {
    if (saved === undefined) Reflect.deleteProperty(process.env, "WEBHOOK_ALLOW_PRIVATE");
    else process.env.WEBHOOK_ALLOW_PRIVATE = saved;
  });

  it.each([
    ["https://0x7f.1/", "127.0.0.1 is a loopback"],
    ["https://2130706433/", "127.0.0.1 is a loopback"],
    ["https://0177.0.0.01/", "127.0.0.1 is a loopback"],
    ["https://0xa9.0xfe.0xa9.0xfe/", "169.254.169.254 is a link-local"],
    ["https://[::ffff:127.0.0.1]/", "loopback (IPv4 inside IPv6)"],
    ["https://LOCALHOST./", "localhost"],
    ["https://a.b.localhost/", "localhost"],
    ["https://u:p@93.184.216.34/", "user name or password"],
    ["https://93.184.216.34/#x", "fragment"],
    ["gopher://93.184.216.34/", "http or https"],
    ["not a url", "not a URL"],
  ])("refuses %s (%s)", async (url, why) => {
    process.env.WEBHOOK_ALLOW_PRIVATE = "off";
    await expect(checkWebhookTarget(url)).rejects.toMatchObject({
      code: "webhook_target_refused",
      status: 400,
      detail: expect.stringContaining(why),
    });
  });

  it("takes a public address, normalised", async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE = "off";
    await expect(checkWebhookTarget("https://93.184.216.34:8443/hooks?x=1")).resolves.toBe("https://93.184.216.34:8443/hooks?x=1");
  });

  it("takes private targets when the operator allows them", async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE = "on";
    await expect(checkWebhookTarget("http://127.0.0.1:9/x")).resolves.toBe("http://127.0.0.1:9/x");
    await expect(checkWebhookTarget("https://u:p@127.0.0.1/")).rejects.toMatchObject({ code: "webhook_target_refused" });
  });
});
