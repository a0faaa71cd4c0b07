// `bun run db copy --to <postgres url>` at a publisher's size: seeds a SQLite deployment to S2
// (bench/scale-seed.ts; `--s1` for a quick look) in a temp DATA_DIR, copies it into a fresh
// database of the Postgres server BENCH_DATABASE_URL names (default: the local one as postgres),
// and prints the rows, the copy's wall time and its peak RSS (VmHWM of the copying process, read
// from /proc every 20 ms). Both are removed afterwards.
//
//   bun bench/db-copy.ts [--s1]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childEnv } from "../test/helpers/child-env";
import { createPostgresDatabase } from "./lib";
import { countsOf, SIZES, seedScale } from "./scale-seed";

const size = process.argv.includes("--s1") ? SIZES.S1 : SIZES.S2;
const serverUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const dataDir = mkdtempSync(join(tmpdir(), "bookdist-copy-bench-"));
const target = await createPostgresDatabase(serverUrl, "bookdist_copy_bench");
try {
  const seeded = await seedScale(`sqlite:${join(dataDir, "bookdist.sqlite")}`, size);
  console.log(`${size.name}: ${JSON.stringify(countsOf(size))}; seeded in ${seeded.seconds.toFixed(1)} s`);

  const started = performance.now();
  const child = Bun.spawn(["bun", "src/db-cli.ts", "copy", "--to", target.url], {
    cwd: join(import.meta.dir, ".."),
    env: childEnv({ DATA_DIR: dataDir }),
    stdout: "inherit",
    stderr: "pipe",
  });
  let peakKb = 0;
  const sampler = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0));
    } catch {
      // exited
    }
  }, 20);
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  const lines = stderr.trim().split("\n");
  console.log(
    lines.filter((line) => !line.startsWith("copying ") || / (\d+)\/\1 rows$/.test(line)).join("\n"),
  );
  if (code !== 0) throw new Error(`the copy failed (${code})`);
  console.log(`copy of ${size.name}: ${seconds.toFixed(1)} s, peak RSS ${(peakKb / 1024).toFixed(1)} MiB`);
} finally {
  await target.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
