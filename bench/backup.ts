// Backup and restore times (issue 29): `bun run admin backup <dir>` and `bun run admin restore
// <dir>` as an operator runs them, on a SQLite deployment seeded to a publisher's size (S2 of
// issue 26 by default, `--s1` for a quick run) plus 64 blobs of 1 MiB, idle and then while a
// running server answers a /health loop (each writes a probe file), with `sqlite3 .backup` beside it as a baseline.
// Run: bun bench/backup.ts   (loopback only; needs sqlite3 for the baseline column)
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { adminCli, fmt, freePort, startBookdist, tempDir } from "./lib";
import { SIZES, seedScale } from "./scale-seed";

const size = process.argv.includes("--s1") ? SIZES.S1 : SIZES.S2;
const BLOBS = 64;
const MiB = 1024 * 1024;

const work = tempDir("bookdist-bench-backup-");
const dataDir = join(work, "data");
const databaseUrl = `sqlite:${join(dataDir, "bookdist.sqlite")}`;
mkdirSync(dataDir, { recursive: true, mode: 0o700 });
const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, DATABASE_URL: databaseUrl };

const dirSize = (path: string) =>
  Number(Bun.spawnSync(["du", "-sb", path]).stdout.toString().split("\t")[0] ?? 0);

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

try {
  console.log(`seeding ${size.name} …`);
  const seeded = await seedScale(databaseUrl, size);
  for (let i = 0; i < BLOBS; i++) {
    const bytes = crypto.getRandomValues(new Uint8Array(MiB));
    const sha = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
    mkdirSync(join(dataDir, "blobs", sha.slice(0, 2)), { recursive: true });
    writeFileSync(join(dataDir, "blobs", sha.slice(0, 2), sha), bytes);
  }
  writeFileSync(join(dataDir, "jwt-secret"), "bench-secret-0123456789abcdefghijklmnop", { mode: 0o600 });
  const dbBytes = statSync(join(dataDir, "bookdist.sqlite")).size;
  console.log(
    `seeded in ${fmt(seeded.seconds)} s: database ${fmt(dbBytes / MiB)} MiB, blobs ${fmt(dirSize(join(dataDir, "blobs")) / MiB)} MiB`,
  );

  const sqlite3 = Bun.which("sqlite3");
  if (sqlite3) {
    const baseline = await timed(async () => {
      const done = Bun.spawn([
        sqlite3,
        join(dataDir, "bookdist.sqlite"),
        `.backup '${join(work, "baseline.sqlite")}'`,
      ]);
      await done.exited;
    });
    console.log(`baseline sqlite3 .backup of the database alone: ${fmt(baseline, 2)} s`);
  }

  const idleDir = join(work, "backup-idle");
  const idle = await timed(() => adminCli(["backup", idleDir], env));
  console.log(`backup, server stopped: ${fmt(idle, 2)} s (${fmt(dirSize(idleDir) / MiB)} MiB written)`);

  const restoredDir = join(work, "restored");
  const restore = await timed(() =>
    adminCli(["restore", idleDir], { ...env, DATA_DIR: restoredDir, DATABASE_URL: undefined }),
  );
  console.log(`restore into an empty DATA_DIR: ${fmt(restore, 2)} s`);

  // While the server runs and answers /health, one request after another.
  const server = await startBookdist({
    port: freePort(),
    dataDir,
    env: { DATABASE_URL: databaseUrl, THROTTLE: "off" },
  });
  let stop = false;
  let requests = 0;
  const load = (async () => {
    while (!stop) {
      await fetch(`${server.url}/health`).then((r) => r.arrayBuffer());
      requests++;
    }
  })();
  const busyDir = join(work, "backup-busy");
  const busy = await timed(() => adminCli(["backup", busyDir], env));
  stop = true;
  await load;
  await server.stop();
  console.log(`backup while the server serves: ${fmt(busy, 2)} s (${requests} requests answered meanwhile)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
