// A real S3 endpoint for the tests: a single-node Ceph cluster (one monitor, one manager, one
// memstore OSD, the RADOS Gateway) in a temp folder, on 127.0.0.1 and random free ports, with
// authentication between the daemons off and pools of size 1. It starts once per test process
// (~25 s), on first use, and every daemon is killed by pid when the process exits.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { registerSecret } from "./log-audit";
import { requires, requireTool } from "./requires";

export interface Ceph {
  /** http://127.0.0.1:<port> of the RADOS Gateway. */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Creates a bucket (Bun's S3Client cannot); names are unique per call. */
  createBucket(prefix?: string): Promise<string>;
  /** The gateway's pid, for fault tests that stop it (SIGSTOP) or kill it. */
  gatewayPid: number;
}

const CEPH_TOOLS = ["ceph-mon", "ceph-osd", "ceph-mgr", "radosgw", "radosgw-admin", "ceph", "monmaptool"];
const START_DEADLINE_MS = 120_000;

/** Whether the Ceph-backed tests run (see requires.ts). */
export function requireCeph(): boolean {
  const missing = CEPH_TOOLS.filter((name) => Bun.which(name) === null);
  return [
    requires(
      missing.length === 0,
      `${missing.join(", ")} not found (Debian packages ceph-mon ceph-osd ceph-mgr radosgw ceph-common)`,
    ),
    requireTool("curl", "curl"),
  ].every(Boolean);
}

function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

async function run(command: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<string> {
  const child = Bun.spawn(command, { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${command.slice(0, 3).join(" ")} failed (${code}): ${out}${err}`);
  return out;
}

let shared: Promise<Ceph> | undefined;

/** The process's one Ceph, started on first call. */
export function sharedCeph(): Promise<Ceph> {
  shared ??= startCeph();
  return shared;
}

async function startCeph(): Promise<Ceph> {
  const dir = mkdtempSync(join(tmpdir(), "bookdist-ceph-"));
  const daemons: Subprocess[] = [];
  // Killed by pid at exit: memstore keeps nothing worth a clean shutdown. `bun test` does not
  // always emit "exit" and a test process may itself be killed, so a watchdog shell also waits
  // for this process to end and then kills the daemons it was told about and removes the folder.
  const pidsFile = join(dir, "daemon-pids");
  writeFileSync(pidsFile, "");
  const watchdog = Bun.spawn(
    [
      "sh",
      "-c",
      'while kill -0 "$1" 2>/dev/null; do sleep 1; done; for pid in $(cat "$2"); do kill -9 "$pid" 2>/dev/null; done; rm -rf "$3"',
      "ceph-watchdog",
      String(process.pid),
      pidsFile,
      dir,
    ],
    { stdin: "ignore", stdout: "ignore", stderr: "ignore" },
  );
  watchdog.unref();
  process.on("exit", () => {
    for (const daemon of daemons) {
      try {
        process.kill(daemon.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const monPort = freePort();
  const rgwPort = freePort();
  const fsid = crypto.randomUUID();
  for (const sub of ["mon", "osd", "mgr", "run", "log"]) mkdirSync(join(dir, sub), { recursive: true });
  const conf = join(dir, "ceph.conf");
  writeFileSync(
    conf,
    `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
auth cluster required = none
auth service required = none
auth client required = none
auth supported = none
auth allow insecure global id reclaim = true
ms bind msgr1 = false
osd pool default size = 1
osd pool default min size = 1
osd pool default pg autoscale mode = off
osd pool default pg num = 8
osd pool default pgp num = 8
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mon data avail crit = 0
mon max pg per osd = 1000
client mount timeout = 15
rados mon op timeout = 15
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
log file = ${dir}/log/$name.log
[mon.a]
mon data = ${dir}/mon
public addr = v2:127.0.0.1:${monPort}
[osd.0]
osd data = ${dir}/osd
osd objectstore = memstore
memstore device bytes = ${6 * 1024 ** 3}
public addr = 127.0.0.1
cluster addr = 127.0.0.1
[mgr.x]
mgr data = ${dir}/mgr
[client.rgw.x]
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
# radosgw asks for an encrypted monitor connection by default, which needs cephx.
ms mon client mode = crc
`,
  );
  const env = { CEPH_CONF: conf };
  const daemon = (command: string[]) => {
    const child = Bun.spawn([...command, "-f"], {
      stdout: "ignore",
      stderr: "ignore",
      env: { ...process.env, ...env },
    });
    // Not waited on: the test process may exit while they run (the exit hook kills them).
    child.unref();
    daemons.push(child);
    appendFileSync(pidsFile, `${child.pid}\n`);
    return child;
  };

  await run(
    ["monmaptool", "--create", "--add", "a", `v2:127.0.0.1:${monPort}`, "--fsid", fsid, join(dir, "monmap")],
    env,
  );
  await run(
    ["ceph-mon", "--id", "a", "--mkfs", "--monmap", join(dir, "monmap"), "--keyring", "/dev/null"],
    env,
  );
  writeFileSync(join(dir, "mon", "keyring"), "");
  daemon(["ceph-mon", "--id", "a"]);
  const ceph = ["ceph", "--connect-timeout", "15"];
  await run([...ceph, "osd", "create"], env);
  await run([...ceph, "osd", "crush", "add", "osd.0", "1", "root=default", "host=localhost"], env);
  await run(["ceph-osd", "--id", "0", "--mkfs"], env);
  daemon(["ceph-osd", "--id", "0"]);
  daemon(["ceph-mgr", "--id", "x"]);
  const gateway = daemon(["radosgw", "-n", "client.rgw.x"]);

  const endpoint = `http://127.0.0.1:${rgwPort}`;
  const deadline = Date.now() + START_DEADLINE_MS;
  while (true) {
    const answered = await fetch(endpoint, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) break;
    if (Date.now() > deadline || gateway.exitCode !== null) {
      throw new Error(`the RADOS Gateway did not answer within ${START_DEADLINE_MS} ms (logs in ${dir}/log)`);
    }
    await Bun.sleep(300);
  }

  const accessKeyId = "bookdist-test";
  const secretAccessKey = crypto.randomUUID();
  // No log line of the run may hold it (test/helpers/log-audit.ts).
  registerSecret(secretAccessKey);
  await run(
    [
      "radosgw-admin",
      "user",
      "create",
      "--uid=bookdist",
      "--display-name=bookdist",
      `--access-key=${accessKeyId}`,
      `--secret-key=${secretAccessKey}`,
    ],
    env,
  );
  const region = "us-east-1";
  let buckets = 0;
  return {
    endpoint,
    accessKeyId,
    secretAccessKey,
    region,
    gatewayPid: gateway.pid,
    async createBucket(prefix = "bookdist") {
      const name = `${prefix}-${process.pid}-${++buckets}-${Date.now().toString(36)}`;
      // curl signs the request (SigV4); Bun's S3Client has no bucket operations.
      await run(
        [
          "curl",
          "-sSf",
          "--max-time",
          "20",
          "--aws-sigv4",
          `aws:amz:${region}:s3`,
          "--user",
          `${accessKeyId}:${secretAccessKey}`,
          "-H",
          "x-amz-content-sha256: UNSIGNED-PAYLOAD",
          "-X",
          "PUT",
          `${endpoint}/${name}`,
        ],
        {},
      );
      return name;
    },
  };
}
