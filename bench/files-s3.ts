// The S3 driver's figures for bench/files.ts (issue 27), against the single-node Ceph RADOS
// Gateway of the tests: app CPU time per 256 MiB archive download with STORAGE=local, STORAGE=s3
// S3_DOWNLOADS=proxy and S3_DOWNLOADS=redirect (curl follows the 302 to the bucket), and a 1 GiB
// upload's throughput and the server's peak RSS with STORAGE=s3.
// Run: bun bench/files-s3.ts   (alone, ~2 min; or as the last part of bench/files.ts)
import { join } from "node:path";
import { requireCeph, sharedCeph } from "../test/helpers/ceph";
import { fmt, freePort, json, median, peakRssMiB, startBookdist, tempDir } from "./lib";
import { writeLargeZip } from "./make-zip-file";

const MiB = 1024 * 1024;
const RUNS = 5;
/** Linux counts CPU time in clock ticks of 10 ms (USER_HZ = 100). */
const TICK_MS = 10;

/** User + system CPU time of a process (all its threads) so far, in ms. */
async function cpuMs(pid: number): Promise<number> {
  const stat = await Bun.file(`/proc/${pid}/stat`).text();
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

function curl(args: string[]): string {
  const result = Bun.spawnSync(["curl", "-sS", "--fail", ...args], { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`curl: ${result.stderr.toString()}`);
  return result.stdout.toString();
}

interface Figures {
  label: string;
  cpuMsPerDownload: number;
  downloadMBs: number;
  upload?: { mibPerSecond: number; peakRssMiB: number; rssBeforeMiB: number };
}

async function measure(
  label: string,
  env: Record<string, string>,
  archive: string,
  bigArchive: string | null,
  work: string,
): Promise<Figures> {
  const server = await startBookdist({ port: freePort(), dataDir: join(work, `data-${label}`), env });
  try {
    const post = (path: string, body: unknown, token?: string) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      });
    const admin = await json(
      await post("/authentication/register", {
        email: "bench-admin@example.com",
        password: "bench-password",
      }),
    );
    await server.admin("grant", "bench-admin@example.com");
    const book = await json(await post("/book", { title: "Benchmark" }, admin.token));
    const version = async (versionCode: number) =>
      json(
        await post(
          "/bookversion",
          { bookId: book.id, versionCode, versionName: String(versionCode) },
          admin.token,
        ),
      );
    const upload = (id: number, path: string) =>
      curl([
        "-o",
        "/dev/null",
        "-H",
        `Authorization: Bearer ${admin.token}`,
        "-F",
        `file=@${path};type=application/zip`,
        `${server.url}/bookversion/${id}/upload`,
      ]);

    let uploadFigures: Figures["upload"];
    if (bigArchive) {
      const big = await version(2);
      const rssBefore = await peakRssMiB(server.process.pid);
      const started = performance.now();
      upload(big.id, bigArchive);
      const seconds = (performance.now() - started) / 1000;
      uploadFigures = {
        mibPerSecond: 1024 / seconds,
        peakRssMiB: await peakRssMiB(server.process.pid),
        rssBeforeMiB: rssBefore,
      };
    }
    const small = await version(1);
    upload(small.id, archive);

    const cpu: number[] = [];
    const speeds: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const before = await cpuMs(server.process.pid);
      const out = curl([
        "-L",
        "-o",
        "/dev/null",
        "-w",
        "%{speed_download} %{size_download}",
        "-H",
        `Authorization: Bearer ${admin.token}`,
        `${server.url}/bookversion/${small.id}/download`,
      ]);
      cpu.push((await cpuMs(server.process.pid)) - before);
      const [speed, size] = out.split(" ").map(Number);
      if (size !== 256 * MiB) throw new Error(`${label}: downloaded ${size} bytes`);
      speeds.push(speed! / 1e6);
    }
    return { label, cpuMsPerDownload: median(cpu), downloadMBs: median(speeds), upload: uploadFigures };
  } finally {
    await server.stop();
  }
}

/** The S3 lines of the files benchmark; null when Ceph is not installed. */
export async function benchS3(archive: string, bigArchive: string, work: string): Promise<string[] | null> {
  if (!requireCeph()) return null;
  const ceph = await sharedCeph();
  const s3 = async (downloads: string) => ({
    STORAGE: "s3",
    S3_BUCKET: await ceph.createBucket("bench"),
    S3_ENDPOINT: ceph.endpoint,
    S3_ACCESS_KEY_ID: ceph.accessKeyId,
    S3_SECRET_ACCESS_KEY: ceph.secretAccessKey,
    S3_DOWNLOADS: downloads,
  });
  const local = await measure("local", {}, archive, null, work);
  const proxy = await measure("s3-proxy", await s3("proxy"), archive, bigArchive, work);
  const redirect = await measure("s3-redirect", await s3("redirect"), archive, null, work);
  const line = (f: Figures) =>
    `  ${f.label.padEnd(12)} app CPU ${fmt(f.cpuMsPerDownload).padStart(6)} ms per download, ${fmt(f.downloadMBs)} MB/s`;
  return [
    `download 256 MiB with STORAGE=s3 (Ceph RGW on loopback; median of ${RUNS}; CPU = utime+stime of the server, 10 ms ticks):`,
    line(local),
    line(proxy),
    `${line(redirect)} (curl follows the 302 to the bucket)`,
    "upload 1 GiB with STORAGE=s3 (spooled, checked, then multipart to the bucket):",
    `  bookdist                                ${fmt(proxy.upload!.mibPerSecond)} MiB/s, server peak RSS ${fmt(proxy.upload!.peakRssMiB)} MiB (before: ${fmt(proxy.upload!.rssBeforeMiB)} MiB; target < 192)`,
  ];
}

if (import.meta.main) {
  const work = tempDir("bookdist-bench-s3-");
  const archive = join(work, "archive-256.zip");
  const bigArchive = join(work, "archive-1g.zip");
  try {
    await writeLargeZip(archive, 256 * MiB);
    await writeLargeZip(bigArchive, 1024 * MiB);
    const lines = await benchS3(archive, bigArchive, work);
    console.log(lines ? `\n${lines.join("\n")}` : "Ceph is not installed: no S3 figures");
  } finally {
    Bun.spawnSync(["rm", "-rf", work]);
  }
}
