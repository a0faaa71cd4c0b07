// The client address (README, Configuration; finding 6): unit tests of the parsing and keying, then
// the real server (its own process, TCP peer 127.0.0.1) with and without TRUSTED_PROXIES.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config";
import { resolveClientAddress } from "../../src/http/client-address";
import { type AddressRange, AddressSet, parseAddressRange, throttleBucketOf } from "../../src/lib/ip-address";
import { startsRealServer } from "../helpers/requires";
import { type SpawnedServer, spawnServer } from "../helpers/spawn-server";

const rangesOf = (...entries: string[]) =>
  new AddressSet(entries.map((e) => parseAddressRange(e) as AddressRange));

describe("client address rules", () => {
  test("IPv6 clients are counted by /64, IPv4-mapped IPv6 as IPv4", () => {
    expect(throttleBucketOf("2001:db8:1:2::1")).toBe(throttleBucketOf("2001:db8:1:2:ffff:ffff:ffff:ffff"));
    expect(throttleBucketOf("2001:db8:1:2::1")).not.toBe(throttleBucketOf("2001:db8:1:3::1"));
    expect(throttleBucketOf("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(throttleBucketOf("203.0.113.9")).toBe("203.0.113.9");
  });

  test("the right-most hop that is not a trusted proxy; forged left-most hops change nothing", () => {
    const trusted = rangesOf("10.0.0.0/8", "2001:db8:ffff::/48");
    expect(resolveClientAddress("10.0.0.1", ["6.6.6.6", " 203.0.113.9"], trusted)).toBe("203.0.113.9");
    expect(resolveClientAddress("10.0.0.1", ["203.0.113.9", "10.1.1.1"], trusted)).toBe("203.0.113.9");
    expect(resolveClientAddress("10.0.0.1", ["[2001:db8::1]:4711"], trusted)).toBe("2001:db8::1");
    // An untrusted peer's headers are not read at all.
    expect(resolveClientAddress("198.51.100.7", ["203.0.113.9"], trusted)).toBe("198.51.100.7");
    // Garbage ends the walk at the last good address: no client picks its own bucket.
    expect(resolveClientAddress("10.0.0.1", ["203.0.113.9", "unknown"], trusted)).toBe("10.0.0.1");
  });

  test("TRUSTED_PROXIES: one clear line per bad entry", () => {
    const result = parseConfig({ TRUSTED_PROXIES: "10.0.0.0/8, 2001:db8::/32, proxy.local, 10.0.0.0/33" });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.problems).toEqual([
        'TRUSTED_PROXIES: "proxy.local" is not an IP address or CIDR range such as 10.0.0.1, 10.0.0.0/8 or 2001:db8::/32',
        'TRUSTED_PROXIES: "10.0.0.0/33" has a prefix length outside 0–32',
      ]);
    const ok = parseConfig({ TRUSTED_PROXIES: "127.0.0.1, ::1, 10.0.0.0/8" });
    expect(ok.ok && ok.config.trustedProxies.length).toBe(3);
  });
});

/** 10 failed logins of one unknown name allowed per client, then 429. */
describe.if(startsRealServer())("the real server's login throttle by client address", () => {
  let dataDirs: string[] = [];
  let servers: SpawnedServer[] = [];
  const start = async (env: Record<string, string>) => {
    const dataDir = mkdtempSync(join(tmpdir(), "bookdist-xff-"));
    dataDirs.push(dataDir);
    const server = await spawnServer({ dataDir, env: { THROTTLE: "on", LOG_LEVEL: "warn", ...env } });
    servers.push(server);
    return server;
  };
  afterAll(async () => {
    for (const server of servers) {
      server.kill("SIGTERM");
      await server.exited;
    }
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
    servers = [];
    dataDirs = [];
  });

  const failLogin = (server: SpawnedServer, forwardedFor: string, name = "nobody@example.com") =>
    fetch(`${server.url}/authentication/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Forwarded-For": forwardedFor },
      body: JSON.stringify({ email: name, password: "wrong password" }),
    }).then((response) => response.status);

  const tenFailures = async (server: SpawnedServer, forwardedFor: (i: number) => string, name?: string) => {
    for (let i = 0; i < 10; i++) expect(await failLogin(server, forwardedFor(i), name)).toBe(401);
  };

  describe("TRUSTED_PROXIES=127.0.0.1", () => {
    let server: SpawnedServer;
    beforeAll(async () => {
      server = await start({ TRUSTED_PROXIES: "127.0.0.1" });
    });

    test("distinct X-Forwarded-For clients get separate buckets", async () => {
      await tenFailures(server, () => "203.0.113.1", "a@example.com");
      expect(await failLogin(server, "203.0.113.1", "a@example.com")).toBe(429);
      expect(await failLogin(server, "203.0.113.2", "a@example.com")).toBe(401);
    });

    test("a forged left-most entry does not escape the bucket", async () => {
      await tenFailures(server, (i) => `198.51.100.${i}, 203.0.113.3`, "b@example.com");
      expect(await failLogin(server, "192.0.2.77, 203.0.113.3", "b@example.com")).toBe(429);
    });

    test("two IPv6 clients in one /64 share a bucket; the next /64 does not", async () => {
      await tenFailures(server, (i) => `2001:db8:1:2::${i + 1}`, "c@example.com");
      expect(await failLogin(server, "2001:db8:1:2:abcd::1", "c@example.com")).toBe(429);
      expect(await failLogin(server, "2001:db8:1:3::1", "c@example.com")).toBe(401);
    });
  });

  describe("without TRUSTED_PROXIES", () => {
    test("X-Forwarded-For is ignored: every client is the TCP peer", async () => {
      const server = await start({});
      await tenFailures(server, (i) => `203.0.113.${i + 10}`, "d@example.com");
      expect(await failLogin(server, "203.0.113.99", "d@example.com")).toBe(429);
    });
  });
});
