// The cluster test (issue 14): three real instances started at the same moment on one fresh
// Postgres database, one DATA_DIR and one JWT_SECRET, behind a real HAProxy with its HTTP/1.0
// health check and X-Forwarded-For, roundrobin. It checks start-up, sessions across instances,
// one single-use code redeemed by 60 readers, kill -9 during a burst of uploads and redemptions,
// and SIGTERM with a slow client; prints its figures; exits 1 with one line per failed check.
// Everything it starts (instances, haproxy — by pid), its temp dir and its database go at the end.
//
// Run:  bun test/cluster/cluster.ts          (a script, not part of `bun test`: it takes a minute)
//       CLUSTER_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres (the default) names the
//       server on which it creates and drops its own database.
// Development only, never in CI:
//       --staggered        start the first instance alone, the others once it is up
//       --check-with-host  health check over HTTP/1.1 with a Host header
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { freePort } from "../helpers/spawn-server";
import { type Haproxy, startHaproxy } from "./haproxy";
import { type ClusterEnvironment, type Instance, killAll, startInstance, waitHealthy } from "./instances";
import { checkKillDuringBurst } from "./kill-during-burst";
import { registerAdmin, registerReaders } from "./people";
import { Report } from "./report";
import { checkSessions } from "./sessions";
import { checkSigtermDrain } from "./sigterm-drain";
import { checkSingleUseCode } from "./single-use-code";
import { checkStartUp, upAndChecked } from "./start-up";
import { tempFiles } from "./storage-audit";

const SERVER_URL = process.env.CLUSTER_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const SHUTDOWN_GRACE_MS = 5000;
const READERS = 60;
const ADMIN = "cluster-admin@example.com";
const flags = new Set(process.argv.slice(2));
const staggered = flags.has("--staggered");
const checkWithHost = flags.has("--check-with-host");

const report = new Report();
const instances: Instance[] = [];
let balancer: Haproxy | undefined;
let cleanedUp = false;

const workDir = mkdtempSync(join(tmpdir(), "bookdist-cluster-"));
const dataDir = join(workDir, "data");
const databaseName = `bookdist_cluster_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
const databaseUrl = (() => {
  const url = new URL(SERVER_URL);
  url.pathname = `/${databaseName}`;
  return url.toString();
})();
const cluster: ClusterEnvironment = {
  databaseUrl,
  dataDir,
  jwtSecret: `cluster-${crypto.randomUUID()}-${crypto.randomUUID()}`,
  shutdownGrace: `${SHUTDOWN_GRACE_MS / 1000}s`,
  extra: {},
};

async function main(): Promise<void> {
  if (staggered || checkWithHost)
    console.log(`cluster: development flags ${[...flags].join(" ")} — not the check CI runs`);
  const server = new SQL(SERVER_URL, { max: 1 });
  try {
    await server.unsafe(`CREATE DATABASE ${databaseName}`);
  } finally {
    await server.close();
  }

  report.section("start-up: three instances at the same moment");
  const ports = [freePort(), freePort(), freePort()];
  balancer = await startHaproxy({
    dir: workDir,
    backends: ports.map((port, i) => ({ name: `i${i + 1}`, port })),
    check: { withHost: checkWithHost },
  });
  report.figure("haproxy", `${balancer.url}, backends ${ports.map((port) => `127.0.0.1:${port}`).join(" ")}`);
  if (staggered) {
    instances.push(await startInstance("i1", cluster, ports[0]));
    await waitHealthy(instances[0]!, 30_000);
    instances.push(
      ...(await Promise.all(ports.slice(1).map((port, i) => startInstance(`i${i + 2}`, cluster, port)))),
    );
  } else {
    // One synchronous spawn after the other: the three processes start within milliseconds.
    instances.push(...(await Promise.all(ports.map((port, i) => startInstance(`i${i + 1}`, cluster, port)))));
  }
  if (!(await checkStartUp(report, instances, balancer))) {
    console.log("cluster: the later checks need three instances UP behind the balancer; skipped");
    return;
  }
  const base = balancer.url;

  report.section("accounts");
  const admin = await registerAdmin(base, ADMIN, { databaseUrl, dataDir });
  const started = performance.now();
  const readers = await registerReaders(base, READERS);
  report.figure(
    `${READERS} readers registered through the balancer`,
    `${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  report.section("sessions across instances");
  await checkSessions(report, base, instances, readers[0]!);

  report.section(`one single-use code, ${READERS} readers`);
  await checkSingleUseCode(report, base, admin, readers.slice(0, READERS));

  report.section("kill -9 during a burst of uploads and redemptions");
  const victim = instances[0]!;
  await checkKillDuringBurst({ report, base, admin, readers, victim, databaseUrl, dataDir });
  // The orchestrator restarts it: on the existing schema, while the others keep running.
  const restarted = await startInstance(victim.name, cluster, victim.port);
  instances[0] = restarted;
  const up = await waitHealthy(restarted, 30_000);
  let states = await balancer.backends();
  for (let i = 0; i < 40 && !states.every(upAndChecked); i++) {
    await Bun.sleep(250);
    states = await balancer.backends();
  }
  report.check(
    `${victim.name} restarts beside the running instances and HAProxy sees it UP again`,
    up && states.every(upAndChecked),
    states.map((state) => `${state.name} ${state.status} ${state.checkStatus}`).join(", "),
  );
  report.figure("temp files left after the restart", String(tempFiles(dataDir).length));

  report.section("SIGTERM with a slow client");
  await checkSigtermDrain({ report, base, admin, victim: instances[1]!, graceMs: SHUTDOWN_GRACE_MS });
}

async function cleanUp(): Promise<void> {
  if (cleanedUp) return;
  cleanedUp = true;
  await killAll(instances);
  await balancer?.stop();
  const server = new SQL(SERVER_URL, { max: 1 });
  try {
    await server.unsafe(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  } catch (error) {
    console.error(`cluster: could not drop database ${databaseName}: ${(error as Error).message}`);
  } finally {
    await server.close();
  }
  rmSync(workDir, { recursive: true, force: true });
}

for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    console.error(`cluster: ${signal}, cleaning up`);
    void cleanUp().then(() => process.exit(130));
  });

let crashed: unknown;
try {
  await main();
} catch (error) {
  crashed = error;
} finally {
  await cleanUp();
}
if (crashed)
  report.check("the cluster test ran to its end", false, (crashed as Error).message ?? String(crashed));
report.summary();
process.exit(report.failed.length === 0 ? 0 : 1);
