// README.md's HAProxy configuration ("## Several instances", its ```haproxy block), as it stands but
// for addresses and ports: `haproxy -c` takes it, and HAProxy run with it passes a request to two
// real instances on one Postgres database (instances share a database, so this needs
// TEST_DATABASE_URL) and marks both healthy through `option httpchk GET /health`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { childEnv } from "../helpers/child-env";
import { createTestDatabase, type TestDatabase } from "../helpers/databases";
import { onlyIn, requireTool, startsRealServer } from "../helpers/requires";
import { freePort, projectRoot, type SpawnedServer, spawnServer } from "../helpers/spawn-server";

/** The ```haproxy block of the README's "## Several instances" section. */
export function haproxyBlock(readme: string): string {
  const section = readme.split(/^## /m).find((part) => part.startsWith("Several instances\n"));
  if (section === undefined) throw new Error('README.md has no "## Several instances" section');
  const block = /^```haproxy\n([\s\S]*?)^```$/m.exec(section)?.[1];
  if (block === undefined) throw new Error("Several instances has no ```haproxy block");
  return block;
}

/** The block with its listener on 127.0.0.1:`port` and its two servers on the given ports. */
export function onThisMachine(config: string, port: number, serverPorts: [number, number]): string {
  const servers = [...config.matchAll(/^\s*server \S+ (\S+)/gm)].map((match) => match[1] as string);
  if (servers.length !== 2)
    throw new Error(`expected two servers in the README's HAProxy block, found ${servers.length}`);
  let local = config.replace(/^(\s*bind )\S+/m, `$1127.0.0.1:${port}`);
  servers.forEach((address, index) => {
    local = local.replace(address, `127.0.0.1:${serverPorts[index]}`);
  });
  return local;
}

const haproxy = Bun.which("haproxy") ?? (Bun.which("/usr/sbin/haproxy") ? "/usr/sbin/haproxy" : null);
const hasHaproxy = requireTool(haproxy ?? "haproxy", "haproxy");
const realServer = startsRealServer();
const onPostgres = onlyIn(
  Boolean(process.env.TEST_DATABASE_URL),
  "needs TEST_DATABASE_URL: two instances share one Postgres database",
);
const readme = readFileSync(join(projectRoot, "README.md"), "utf8");

describe("the README's HAProxy configuration", () => {
  test("is whole: global, defaults, a frontend, and a backend checking /health on two servers", () => {
    const config = haproxyBlock(readme);
    for (const section of [/^global$/m, /^defaults$/m, /^frontend \S+$/m, /^backend \S+$/m])
      expect(config).toMatch(section);
    expect(config).toMatch(/^\s*bind \S+/m);
    expect(config).toMatch(/^\s*option httpchk GET \/health$/m);
    expect(config).toMatch(/^\s*option forwardfor$/m);
  });

  test.if(hasHaproxy)("haproxy -c accepts it", () => {
    const dir = mkdtempSync(join(tmpdir(), "bookdist-haproxy-check-"));
    try {
      const path = join(dir, "haproxy.cfg");
      writeFileSync(path, onThisMachine(haproxyBlock(readme), freePort(), [freePort(), freePort()]));
      const check = Bun.spawnSync([haproxy ?? "haproxy", "-c", "-f", path], {
        env: childEnv(),
        stderr: "pipe",
        stdout: "pipe",
      });
      expect({ exitCode: check.exitCode, output: `${check.stdout}${check.stderr}` }).toMatchObject({
        exitCode: 0,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.if(hasHaproxy && realServer && onPostgres)(
  "HAProxy with the README's configuration in front of two instances",
  () => {
    let dir: string;
    let database: TestDatabase;
    const instances: SpawnedServer[] = [];
    let balancer: Subprocess;
    let balancerOutput = "";
    let url: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "bookdist-haproxy-"));
      database = await createTestDatabase();
      const env = { DATABASE_URL: database.url, TRUSTED_PROXIES: "127.0.0.1" };
      instances.push(await spawnServer({ dataDir: dir, env }));
      instances.push(await spawnServer({ dataDir: dir, env }));
      const port = freePort();
      url = `http://127.0.0.1:${port}`;
      const path = join(dir, "haproxy.cfg");
      writeFileSync(
        path,
        onThisMachine(haproxyBlock(readme), port, [instances[0]!.port, instances[1]!.port]),
      );
      balancer = Bun.spawn([haproxy ?? "haproxy", "-f", path, "-db"], {
        env: childEnv(),
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      void (async () => {
        for await (const chunk of balancer.stderr as ReadableStream<Uint8Array>)
          balancerOutput += new TextDecoder().decode(chunk);
      })();
      // Until HAProxy listens and its health checks (inter 2s, rise 2) have marked a server up.
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const ok = await fetch(`${url}/health`).then(
          (response) => response.ok,
          () => false,
        );
        if (ok) return;
        await Bun.sleep(250);
      }
      throw new Error(`no healthy answer through HAProxy within 20 s:\n${balancerOutput}`);
    }, 60_000);

    afterAll(async () => {
      balancer?.kill("SIGTERM");
      await balancer?.exited;
      for (const instance of instances) {
        instance.kill("SIGTERM");
        await instance.exited;
      }
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    test("a request goes through to an instance, and requests reach both", async () => {
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      expect(((await health.json()) as { status: string }).status).toBe("ok");
      // Both servers are up once each has passed `rise 2` checks: roundrobin then answers from each.
      const served = () =>
        instances.map((instance) => instance.output().split('"route":"/book/count"').length - 1);
      const deadline = Date.now() + 15_000;
      while (served().some((count) => count === 0) && Date.now() < deadline) {
        expect((await fetch(`${url}/book/count`)).status).toBe(401);
        await Bun.sleep(200);
      }
      expect(served().every((count) => count > 0)).toBe(true);
    }, 30_000);
  },
);
