// What reading an APK's metadata adds to an upload: inspectApkMetadata (zip directory, binary
// manifest, signing block) on a large APK signed by apksigner, next to hashing the same file once
// (which every upload does anyway). Prints figures; not a test.
//   bun bench/apk-metadata.ts            (APK_MIB=256 by default; needs apksigner and keytool)
import { rmSync } from "node:fs";
import { join } from "node:path";
import { inspectApkMetadata } from "../src/storage/apk-metadata";
import { ApkWorkshop } from "../test/helpers/android-tools";
import { concat } from "../test/helpers/zip";

const MIB = 1024 * 1024;
const size = Number(process.env.APK_MIB ?? 256) * MIB;
const workshop = new ApkWorkshop();
try {
  // A fixture with a large stored asset, written by makeZip's format but streamed from parts.
  const base = await workshop.build({ signer: null });
  const big = join(workshop.dir, "big-unsigned.apk");
  await writeWithAsset(base.path, big, size);
  const key = workshop.key("RSA");
  let started = performance.now();
  const signed = Bun.spawnSync([
    "apksigner",
    "sign",
    "--ks",
    key.path,
    "--ks-pass",
    `pass:${key.password}`,
    "--out",
    join(workshop.dir, "big.apk"),
    big,
  ]);
  if (signed.exitCode !== 0) throw new Error(signed.stderr.toString());
  const path = join(workshop.dir, "big.apk");
  const fileSize = Bun.file(path).size;
  console.log(
    `APK: ${(fileSize / MIB).toFixed(1)} MiB, signed by apksigner in ${(performance.now() - started).toFixed(0)} ms`,
  );

  const rssBefore = process.memoryUsage().rss;
  const times: number[] = [];
  let metadata: Awaited<ReturnType<typeof inspectApkMetadata>> | undefined;
  for (let i = 0; i < 20; i++) {
    started = performance.now();
    metadata = await inspectApkMetadata(path, fileSize);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const rssAfter = process.memoryUsage().rss;
  console.log(
    `inspectApkMetadata: median ${times[10]!.toFixed(2)} ms, max ${times.at(-1)!.toFixed(2)} ms over 20 runs; RSS +${((rssAfter - rssBefore) / MIB).toFixed(1)} MiB; signer ${metadata!.signatureScheme} ${metadata!.signerSha256?.slice(0, 16)}…`,
  );

  started = performance.now();
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  hasher.digest("hex");
  console.log(
    `for scale, SHA-256 of the whole file (done on every upload): ${(performance.now() - started).toFixed(0)} ms`,
  );
} finally {
  workshop.dispose();
}

/** Copies `source`'s entries and adds one stored asset of `assetSize` bytes, without holding it in memory. */
async function writeWithAsset(source: string, target: string, assetSize: number) {
  const { inspectZip, readZipEntry } = await import("../src/storage/file-types");
  const directory = await inspectZip(source, Bun.file(source).size);
  const writer = Bun.file(target).writer();
  const centrals: Uint8Array[] = [];
  let offset = 0;
  const add = (name: string, crc: number, length: number, chunks: () => Iterable<Uint8Array>) => {
    const nameBytes = new TextEncoder().encode(name);
    const local = new Uint8Array(30 + nameBytes.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, length, true);
    lv.setUint32(22, length, true);
    lv.setUint16(26, nameBytes.length, true);
    local.set(nameBytes, 30);
    writer.write(local);
    for (const chunk of chunks()) writer.write(chunk);
    const central = new Uint8Array(46 + nameBytes.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, length, true);
    cv.setUint32(24, length, true);
    cv.setUint16(28, nameBytes.length, true);
    cv.setUint32(42, offset, true);
    central.set(nameBytes, 46);
    centrals.push(central);
    offset += local.length + length;
  };
  for (const entry of directory.entries) {
    const data = await readZipEntry(source, entry);
    add(entry.name, Bun.hash.crc32(data), data.length, () => [data]);
  }
  const block = new Uint8Array(MIB);
  crypto.getRandomValues(block.subarray(0, 65536));
  for (let at = 65536; at < MIB; at *= 2) block.copyWithin(at, 0, at);
  let crc = 0;
  for (let done = 0; done < assetSize; done += MIB) crc = Bun.hash.crc32(block, crc);
  add("assets/big.bin", crc, assetSize, function* () {
    for (let done = 0; done < assetSize; done += MIB) yield block;
  });
  const centralBytes = concat(centrals);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, centrals.length, true);
  ev.setUint16(10, centrals.length, true);
  ev.setUint32(12, centralBytes.length, true);
  ev.setUint32(16, offset, true);
  writer.write(centralBytes);
  writer.write(end);
  await writer.end();
  rmSync(source, { force: true });
}
