// Files benchmark (issue "Files"): download throughput of a 256 MiB archive through the service
// (authenticated, entitlement checked) against a bare Bun.serve and nginx serving the same file,
// and a 1 GiB upload's peak server RSS and throughput against a bare Bun.serve piping to disk.
// With Ceph installed it ends with the S3 driver's figures (bench/files-s3.ts).
// Run: bun bench/files.ts   (loopback only; a few minutes; needs curl, and nginx for its column)
import { Database } from "bun:sqlite";
import { chmodSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { benchS3 } from "./files-s3";
import { fmt, freePort, json, median, peakRssMiB, startBookdist, tempDir, waitForHttp } from "./lib";
import { writeLargeZip } from "./make-zip-file";

const MiB = 1024 * 1024;
const DOWNLOAD_SIZE = 256 * MiB;
const UPLOAD_SIZE = 1024 * MiB;
const RUNS = 5;
const ports = { bookdist: freePort(), bareDownload: freePort(), bareUpload: freePort(), nginx: freePort() };

const work = tempDir("bookdist-bench-files-");
const files = join(work, "files");
mkdirSync(files);
const archive = join(files, "archive-256.zip");
const bigArchive = join(work, "archive-1g.zip");

function curl(args: string[]): string {
  const result = Bun.spawnSync(["curl", "-sS", "--fail", ...args], { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`curl ${args.join(" ")}: ${result.stderr.toString()}`);
  return result.stdout.toString();
}

/** MB/s (decimal, as curl reports) of downloading `url` to /dev/null, median of RUNS. */
function downloadSpeed(url: string, headers: string[] = []): number {
  const speeds: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const out = curl([
      "-o",
      "/dev/null",
      "-w",
      "%{speed_download} %{size_download}",
      ...headers.flatMap((h) => ["-H", h]),
      url,
    ]);
    const [speed, size] = out.split(" ").map(Number);
    if (size !== DOWNLOAD_SIZE) throw new Error(`downloaded ${size} bytes from ${url}`);
    speeds.push(speed! / 1e6);
  }
  return median(speeds);
}

function startNginx(root: string, port: number) {
  const prefix = join(work, "nginx");
  mkdirSync(join(prefix, "logs"), { recursive: true });
  const conf = join(prefix, "nginx.conf");
  Bun.write(
    conf,
    `daemon off; worker_processes 1; error_log stderr; pid ${prefix}/nginx.pid;
events {}
http { access_log off; sendfile on; types { application/zip zip; }
  server { listen 127.0.0.1:${port}; root ${root}; } }
`,
  );
  return Bun.spawn(["nginx", "-p", prefix, "-c", conf], { stdout: "inherit", stderr: "inherit" });
}

function hasCommand(name: string): boolean {
  return Bun.spawnSync(["sh", "-c", `command -v ${name}`]).exitCode === 0;
}

console.log(`preparing ${DOWNLOAD_SIZE / MiB} MiB and ${UPLOAD_SIZE / MiB} MiB zip archives in ${work}`);
await writeLargeZip(archive, DOWNLOAD_SIZE);
await writeLargeZip(bigArchive, UPLOAD_SIZE);
// nginx's workers run as an unprivileged user: let them read the archive.
for (const path of [work, files]) chmodSync(path, 0o755);
chmodSync(archive, 0o644);

const dataDir = join(work, "data");
const server = await startBookdist({
  port: ports.bookdist,
  dataDir,
});
const results: string[] = [];
try {
  const post = (path: string, body: unknown, token?: string) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  const admin = await json(
    await post("/authentication/register", { email: "bench-admin@example.com", password: "bench-password" }),
  );
  await server.admin("grant", "bench-admin@example.com");
  const reader = await json(
    await post("/authentication/register", { email: "bench-reader@example.com", password: "bench-password" }),
  );
  const book = await json(await post("/book", { title: "Benchmark" }, admin.token));
  const small = await json(
    await post("/bookversion", { bookId: book.id, versionCode: 1, versionName: "1" }, admin.token),
  );
  const large = await json(
    await post("/bookversion", { bookId: book.id, versionCode: 2, versionName: "2" }, admin.token),
  );

  // 1 GiB upload first, so the server's peak RSS (VmHWM) is the upload's.
  const rssBefore = await peakRssMiB(server.process.pid);
  const started = performance.now();
  curl([
    "-o",
    "/dev/null",
    "-H",
    `Authorization: Bearer ${admin.token}`,
    "-F",
    `file=@${bigArchive};type=application/zip`,
    `${server.url}/bookversion/${large.id}/upload`,
  ]);
  const uploadSeconds = (performance.now() - started) / 1000;
  const uploadPeak = await peakRssMiB(server.process.pid);
  const serviceUpload = UPLOAD_SIZE / MiB / uploadSeconds;

  curl([
    "-o",
    "/dev/null",
    "-H",
    `Authorization: Bearer ${admin.token}`,
    "-F",
    `file=@${archive};type=application/zip`,
    `${server.url}/bookversion/${small.id}/upload`,
  ]);
  // The reader's entitlement: an activation row, as redemption would make it.
  const db = new Database(join(dataDir, "bookdist.sqlite"));
  const now = Date.now();
  db.run("INSERT INTO activation (book_id, user_uuid, created_at, updated_at) VALUES (?, ?, ?, ?)", [
    book.id,
    reader.user.uuid,
    now,
    now,
  ]);
  db.close();
  // The archive of version 2 is the 1 GiB one; download version 1 (256 MiB) by id.
  const serviceUrl = `${server.url}/bookversion/${small.id}/download`;
  const serviceSpeed = downloadSpeed(serviceUrl, [`Authorization: Bearer ${reader.token}`]);

  const bareDownload = Bun.spawn(
    ["bun", join(import.meta.dir, "bare-servers.ts"), "download", String(ports.bareDownload), archive],
    { stdout: "ignore" },
  );
  await waitForHttp(`http://127.0.0.1:${ports.bareDownload}/`);
  let bareSpeed: number;
  try {
    bareSpeed = downloadSpeed(`http://127.0.0.1:${ports.bareDownload}/`);
  } finally {
    bareDownload.kill();
  }

  let nginxSpeed: number | null = null;
  if (hasCommand("nginx")) {
    const nginx = startNginx(files, ports.nginx);
    await waitForHttp(`http://127.0.0.1:${ports.nginx}/archive-256.zip`);
    try {
      nginxSpeed = downloadSpeed(`http://127.0.0.1:${ports.nginx}/archive-256.zip`);
    } finally {
      nginx.kill();
    }
  }

  const uploadDir = join(work, "bare-upload");
  mkdirSync(uploadDir);
  const bareUpload = Bun.spawn(
    [
      "bun",
      join(import.meta.dir, "bare-servers.ts"),
      "upload",
      String(ports.bareUpload),
      join(uploadDir, "body"),
    ],
    { stdout: "ignore" },
  );
  await waitForHttp(`http://127.0.0.1:${ports.bareUpload}/`);
  const bareStarted = performance.now();
  curl([
    "-o",
    "/dev/null",
    // -T streams the file from disk; --data-binary @file would read all of it into curl's memory.
    "-X",
    "POST",
    "-T",
    bigArchive,
    "-H",
    "Content-Type: application/octet-stream",
    `http://127.0.0.1:${ports.bareUpload}/`,
  ]);
  const bareUploadSpeed = UPLOAD_SIZE / MiB / ((performance.now() - bareStarted) / 1000);
  bareUpload.kill();

  results.push(
    `download ${DOWNLOAD_SIZE / MiB} MiB (median of ${RUNS}, MB/s):`,
    `  bookdist (Bearer, entitlement checked)  ${fmt(serviceSpeed)}`,
    `  bare Bun.serve(Bun.file)                ${fmt(bareSpeed)}`,
    `  nginx (sendfile on)                     ${nginxSpeed === null ? "not installed (apt-get install nginx-light)" : fmt(nginxSpeed)}`,
    `  ratio bookdist / bare Bun               ${fmt(serviceSpeed / bareSpeed, 2)}   (target ≥ 0.90)`,
    ...(nginxSpeed === null
      ? []
      : [`  ratio bookdist / nginx                  ${fmt(serviceSpeed / nginxSpeed, 2)}`]),
    `upload ${UPLOAD_SIZE / MiB} MiB (multipart, streamed to the blob store):`,
    `  bookdist                                ${fmt(serviceUpload)} MiB/s, server peak RSS ${fmt(uploadPeak)} MiB (before: ${fmt(rssBefore)} MiB; target < 128)`,
    `  bare Bun.serve piping the body to disk  ${fmt(bareUploadSpeed)} MiB/s`,
    `  ratio bookdist / bare Bun               ${fmt(serviceUpload / bareUploadSpeed, 2)}`,
  );
  // The S3 driver's columns (Ceph's RADOS Gateway of the tests; skipped without it).
  results.push(...((await benchS3(archive, bigArchive, work)) ?? ["S3: Ceph not installed, no S3 figures"]));
  console.log(`\n${results.join("\n")}`);
  const stored = statSync(join(dataDir, "blobs")).isDirectory();
  if (!stored) throw new Error("no blob folder");
} finally {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
