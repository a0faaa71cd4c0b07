// The cluster without a shared volume (issue 27): three real instances on one Postgres database
// behind HAProxy, each with its own DATA_DIR, STORAGE=s3 on the tests' single-node Ceph RADOS
// Gateway. Checks that an upload through any instance is downloadable through every other (302
// to a presigned URL, followed), and that kill -9 of an instance during a burst of uploads
// leaves no row naming a blob without its object in the bucket. Prints its figures; exits 1 with
// one line per failed check. Everything it starts goes at the end (by pid), with its database.
//
// Run:  bun test/cluster/cluster-s3.ts   (a script, not part of `bun test`; about a minute)
//       CLUSTER_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres (the default)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client, SQL } from "bun";
import QRCode from "qrcode";
import { sharedCeph } from "../helpers/ceph";
import { freePort } from "../helpers/spawn-server";
import { makeZip } from "../helpers/zip";
import { call, expectStatus, sha256Hex, tricklingUpload } from "./client";
import { type Haproxy, startHaproxy } from "./haproxy";
import { type ClusterEnvironment, type Instance, killAll, startInstance, waitHealthy } from "./instances";
import { registerAdmin } from "./people";
import { Report, tally } from "./report";
import { checkBackendsUp } from "./start-up";

const SERVER_URL = process.env.CLUSTER_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const UPLOADS = 18;
const ARCHIVE_BYTES = 3 * 1024 * 1024;

const report = new Report();
const instances: Instance[] = [];
let balancer: Haproxy | undefined;
let cleanedUp = false;
const workDir = mkdtempSync(join(tmpdir(), "bookdist-cluster-s3-"));
const databaseName = `bookdist_cluster_s3_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
const databaseUrl = (() => {
  const url = new URL(SERVER_URL);
  url.pathname = `/${databaseName}`;
  return url.toString();
})();

/** A GET that follows the 302 to the bucket as a client does; the status and the bytes' hash. */
async function fetchFollowing(
  url: string,
  token: string,
): Promise<{ status: number; hops: number; sha256: string }> {
  const first = await fetch(url, { headers: { Authorization: `Bearer ${token}` }, redirect: "manual" });
  if (first.status !== 302) {
    return { status: first.status, hops: 0, sha256: sha256Hex(new Uint8Array(await first.arrayBuffer())) };
  }
  await first.arrayBuffer();
  // No Authorization to the bucket: the presigned URL is the credential.
  const second = await fetch(first.headers.get("location")!);
  return { status: second.status, hops: 1, sha256: sha256Hex(new Uint8Array(await second.arrayBuffer())) };
}

async function main(): Promise<void> {
  const ceph = await sharedCeph();
  const bucket = await ceph.createBucket("cluster");
  const s3 = new S3Client({
    endpoint: ceph.endpoint,
    bucket,
    accessKeyId: ceph.accessKeyId,
    secretAccessKey: ceph.secretAccessKey,
  });
  const server = new SQL(SERVER_URL, { max: 1 });
  try {
    await server.unsafe(`CREATE DATABASE ${databaseName}`);
  } finally {
    await server.close();
  }
  const jwtSecret = `cluster-${crypto.randomUUID()}-${crypto.randomUUID()}`;
  const clusterOf = (name: string): ClusterEnvironment => ({
    databaseUrl,
    // Its own DATA_DIR: the only thing the instances share is Postgres and the bucket.
    dataDir: join(workDir, `data-${name}`),
    jwtSecret,
    shutdownGrace: "5s",
    extra: {
      STORAGE: "s3",
      S3_BUCKET: bucket,
      S3_ENDPOINT: ceph.endpoint,
      S3_ACCESS_KEY_ID: ceph.accessKeyId,
      S3_SECRET_ACCESS_KEY: ceph.secretAccessKey,
      S3_PREFIX: "cluster/",
      S3_DOWNLOADS: "redirect",
    },
  });

  report.section("start-up: three instances, STORAGE=s3, each its own DATA_DIR");
  const names = ["i1", "i2", "i3"];
  const ports = names.map(() => freePort());
  balancer = await startHaproxy({
    dir: workDir,
    backends: names.map((name, i) => ({ name, port: ports[i]! })),
    check: { withHost: false },
  });
  instances.push(
    ...(await Promise.all(names.map((name, i) => startInstance(name, clusterOf(name), ports[i])))),
  );
  const healthy = await Promise.all(instances.map((instance) => waitHealthy(instance, 60_000)));
  if (!report.check("three instances healthy", healthy.every(Boolean), healthy.join(" "))) return;
  const health = await Promise.all(instances.map((instance) => call(instance.url, "GET", "/health")));
  report.check(
    "/health probes the bucket on each instance",
    health.every((answer) => answer.status === 200 && answer.body.storage === "ok"),
    health.map((answer) => `${answer.status} storage=${answer.body.storage}`).join(", "),
  );
  if (!(await checkBackendsUp(report, instances.length, balancer))) return;

  const admin = await registerAdmin(balancer.url, "cluster-s3-admin@example.com", {
    databaseUrl,
    dataDir: clusterOf("i1").dataDir,
  });

  report.section("an upload through one instance is downloadable through the others");
  const book = await expectStatus(201, balancer.url, "POST", "/book", {
    token: admin.token,
    json: { title: "Shared nothing" },
  });
  const crossResults: string[] = [];
  let crossOk = true;
  for (const [i, uploader] of instances.entries()) {
    const version = await expectStatus(201, uploader.url, "POST", "/bookversion", {
      token: admin.token,
      json: { bookId: book.id, versionCode: i + 1, versionName: `${i + 1}.0` },
    });
    const zip = makeZip({ [`book/${uploader.name}.html`]: `<p>${uploader.name}</p>`.repeat(5000) });
    const form = new FormData();
    form.append("file", new Blob([zip], { type: "application/zip" }), "book.zip");
    const uploaded = await fetch(`${uploader.url}/bookversion/${version.id}/upload`, {
      method: "POST",
      headers: { Authorization: `Bearer ${admin.token}` },
      body: form,
    });
    await uploaded.arrayBuffer();
    for (const reader of instances) {
      if (reader === uploader) continue;
      const got = await fetchFollowing(`${reader.url}/bookversion/${version.id}/download`, admin.token);
      const ok =
        uploaded.status === 200 && got.status === 200 && got.hops === 1 && got.sha256 === sha256Hex(zip);
      crossOk &&= ok;
      crossResults.push(`${uploader.name}→${reader.name} ${ok ? "ok" : `${got.status}/${got.hops}`}`);
    }
  }
  report.check(
    "uploaded through each, downloaded through the other two (302, followed)",
    crossOk,
    crossResults.join(", "),
  );

  report.section(`kill -9 of one instance during ${UPLOADS} trickling uploads`);
  const victim = instances[0]!;
  const versions = await Promise.all(
    Array.from({ length: UPLOADS }, (_, n) =>
      expectStatus(201, balancer!.url, "POST", "/bookversion", {
        token: admin.token,
        json: { bookId: book.id, versionCode: 100 + n, versionName: `burst ${n}` },
      }),
    ),
  );
  const statuses: string[] = [];
  const uploads = versions.map(async (version, n) => {
    const bytes = n % 3 === 0 ? await QRCode.toBuffer(`cover ${n}`, { width: 120 }) : null;
    const zip = makeZip({ "book/x.html": `${n} ${crypto.randomUUID()} `.repeat(ARCHIVE_BYTES / 48) });
    const { body, contentType } = tricklingUpload(zip, "book.zip", "application/zip", {
      chunkBytes: 256 * 1024,
      pauseMs: 40,
    });
    // Straight to the instances in turn, so the victim surely has uploads in flight.
    const target = instances[n % instances.length]!;
    try {
      const answer = await call(target.url, "POST", `/bookversion/${version.id}/upload`, {
        token: admin.token,
        body,
        headers: { "Content-Type": contentType },
      });
      statuses.push(String(answer.status));
    } catch {
      statuses.push("cut");
    }
    return bytes;
  });
  await Bun.sleep(400);
  victim.server.kill("SIGKILL");
  await Promise.all(uploads);
  report.figure("answers", tally(statuses));

  const db = new SQL(databaseUrl, { max: 1 });
  try {
    const named: { sha256: string }[] = await db.unsafe(
      `SELECT archive_sha256 AS sha256 FROM book_version WHERE archive_sha256 IS NOT NULL
       UNION SELECT cover_sha256 FROM book WHERE cover_sha256 IS NOT NULL
       UNION SELECT sha256 FROM blob`,
    );
    const missing: string[] = [];
    for (const { sha256 } of named)
      if (!(await s3.file(`cluster/blobs/${sha256}`).exists())) missing.push(sha256);
    report.check(
      "no row names a blob without its object in the bucket",
      missing.length === 0,
      `${named.length} blobs named, ${missing.length} missing${missing.length ? `: ${missing.slice(0, 3).join(", ")}` : ""}`,
    );
    const acknowledged = statuses.filter((status) => status === "200").length;
    const recorded: { n: number }[] = await db.unsafe(
      "SELECT count(*)::int AS n FROM book_version WHERE version_code >= 100 AND archive_sha256 IS NOT NULL",
    );
    report.check(
      "every acknowledged upload is recorded",
      recorded[0]!.n >= acknowledged,
      `${acknowledged} answered 200, ${recorded[0]!.n} recorded`,
    );
  } finally {
    await db.close();
  }
  const survivors = instances.slice(1);
  const afterKill = await Promise.all(
    survivors.map((instance) =>
      fetchFollowing(`${instance.url}/book/${book.id}/newest-book-version`, admin.token),
    ),
  );
  report.check(
    "the survivors still serve the newest version",
    afterKill.every((got) => got.status === 200),
    afterKill.map((got) => String(got.status)).join(" "),
  );
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
    console.error(`cluster-s3: could not drop database ${databaseName}: ${(error as Error).message}`);
  } finally {
    await server.close();
  }
  rmSync(workDir, { recursive: true, force: true });
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void cleanUp().then(() => process.exit(130));
  });
}
try {
  await main();
} catch (error) {
  report.check("the run", false, (error as Error).message);
} finally {
  await cleanUp();
}
report.summary();
// Exiting kills the Ceph daemons (test/helpers/ceph.ts's exit hook).
process.exit(report.failed.length === 0 ? 0 : 1);
