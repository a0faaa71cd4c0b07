import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import QRCode from "qrcode";
import { AppError } from "../../src/lib/problems";
import { inspectApk, inspectPng, inspectZip, readZipEntry } from "../../src/storage/file-types";
import { FIXTURES } from "../helpers/android-tools";
import { requireTool } from "../helpers/requires";

const APK_DIR = FIXTURES;
const apks = readdirSync(APK_DIR).filter((name) => name.endsWith(".apk"));
// The archives under test are made by Info-ZIP, as people make them; the APKs need no tool.
const hasZip = requireTool("zip", "zip");

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "bookdist-file-types-"));
  writeFileSync(join(dir, "a.txt"), "hello\n");
  writeFileSync(join(dir, "b.txt"), Array.from({ length: 2000 }, (_, i) => `line ${i}`).join("\n"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function put(name: string, bytes: Uint8Array | string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

/** Builds an archive with Info-ZIP, the same tool people make archives with. */
function zip(name: string, files: string[], extraArgs: string[] = []): string {
  const path = join(dir, name);
  const result = Bun.spawnSync(["zip", "-q", "-X", ...extraArgs, path, ...files], { cwd: dir });
  if (result.exitCode !== 0) throw new Error(`zip failed: ${result.stderr.toString()}`);
  return path;
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const sizeOf = (path: string) => statSync(path).size;

describe("inspectPng", () => {
  const inspectPngAt = (path: string) => inspectPng(path, sizeOf(path));
  test("reads the dimensions of a real PNG", async () => {
    const path = put("qr.png", await QRCode.toBuffer("x", { width: 200 }));
    expect(await inspectPngAt(path)).toEqual({ width: 200, height: 200 });
  });

  test("refuses a text file named .png", async () => {
    const error = await refusal(inspectPngAt(put("fake.png", "definitely not an image")));
    expect(error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(error.message).toBe("The file is not a PNG image.");
  });

  test("refuses an empty file and a bare signature", async () => {
    await refusal(inspectPngAt(put("empty.png", "")));
    await refusal(
      inspectPngAt(put("sig.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))),
    );
  });

  test("refuses a PNG whose header was tampered with", async () => {
    const bytes = new Uint8Array(await QRCode.toBuffer("x"));
    bytes[19] = (bytes[19] ?? 0) ^ 0xff; // width changed, CRC no longer matches
    await refusal(inspectPngAt(put("tampered.png", bytes)));
  });
});

describe("inspectZip", () => {
  test.if(hasZip)("lists the entries of an Info-ZIP archive", async () => {
    const path = zip("plain.zip", ["a.txt", "b.txt"]);
    const directory = await inspectZip(path, sizeOf(path));
    expect(directory.entries.map((entry) => entry.name)).toEqual(["a.txt", "b.txt"]);
    const [a, b] = directory.entries;
    expect(a).toMatchObject({ method: 0, uncompressedSize: 6, compressedSize: 6, localHeaderOffset: 0 });
    expect(b?.method).toBe(8);
    expect(b?.uncompressedSize).toBe(sizeOf(join(dir, "b.txt")));
    expect(directory.centralDirectoryOffset + directory.centralDirectorySize).toBeLessThan(sizeOf(path));
  });

  test.if(hasZip)("finds the end record behind an archive comment", async () => {
    const path = join(dir, "commented.zip");
    const result = Bun.spawnSync(["zip", "-q", "-X", "-z", path, "a.txt"], {
      cwd: dir,
      stdin: new TextEncoder().encode("a comment that mentions PK\x05\x06 on purpose\n.\n"),
    });
    expect(result.exitCode).toBe(0);
    const directory = await inspectZip(path, sizeOf(path));
    expect(directory.entries.map((entry) => entry.name)).toEqual(["a.txt"]);
  });

  test.if(hasZip)("reads ZIP64 end records and extra fields", async () => {
    const path = zip("zip64.zip", ["a.txt", "b.txt"], ["-fz"]);
    const directory = await inspectZip(path, sizeOf(path));
    expect(directory.entries.map((entry) => entry.name)).toEqual(["a.txt", "b.txt"]);
    expect(directory.entries[1]?.uncompressedSize).toBe(sizeOf(join(dir, "b.txt")));
    const text = await readZipEntry(path, directory.entries[1]!);
    expect(Buffer.from(text).equals(readFileSync(join(dir, "b.txt")))).toBe(true);
  });

  test.if(hasZip)("refuses a truncated archive", async () => {
    const whole = readFileSync(zip("whole.zip", ["a.txt", "b.txt"]));
    for (const cut of [1, 10, 30, whole.length / 2]) {
      const path = put("truncated.zip", whole.subarray(0, whole.length - cut));
      const error = await refusal(inspectZip(path, sizeOf(path)));
      expect(error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
      expect(error.message).toBe("The file is not a zip archive.");
    }
  });

  test.if(hasZip)("refuses an archive whose end record lies about the directory", async () => {
    const bytes = new Uint8Array(readFileSync(zip("liar.zip", ["a.txt", "b.txt"])));
    const view = new DataView(bytes.buffer);
    const eocd = bytes.length - 22;
    expect(view.getUint32(eocd, true)).toBe(0x06054b50);
    view.setUint32(eocd + 16, view.getUint32(eocd + 16, true) + 40, true); // directory offset
    const path = put("liar.zip", bytes);
    await refusal(inspectZip(path, sizeOf(path)));
  });

  test.if(hasZip)("refuses a size that does not match the file", async () => {
    const path = zip("sized.zip", ["a.txt"]);
    await refusal(inspectZip(path, sizeOf(path) + 100));
  });

  test("refuses files that are not archives", async () => {
    const text = put("text.zip", "PK but not really a zip archive, just text that goes on for a while");
    await refusal(inspectZip(text, sizeOf(text)));
    const png = put("image.zip", await QRCode.toBuffer("x"));
    await refusal(inspectZip(png, sizeOf(png)));
  });
});

describe("inspectApk", () => {
  test.each(apks)("accepts the real APK %s", async (name) => {
    const path = join(APK_DIR, name);
    const directory = await inspectApk(path, sizeOf(path));
    expect(directory.entries.some((entry) => entry.name === "AndroidManifest.xml")).toBe(true);
  });

  test.if(hasZip)("refuses a zip without AndroidManifest.xml", async () => {
    const path = zip("no-manifest.zip", ["a.txt"]);
    const error = await refusal(inspectApk(path, sizeOf(path)));
    expect(error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(error.message).toBe("The file is not an Android package (no AndroidManifest.xml).");
  });

  test("refuses a text file named .apk", async () => {
    const path = put("fake.apk", "not an apk");
    expect((await refusal(inspectApk(path, sizeOf(path)))).message).toBe("The file is not a zip archive.");
  });
});

describe("readZipEntry", () => {
  test.each(apks)("returns the binary manifest of %s", async (name) => {
    const path = join(APK_DIR, name);
    const directory = await inspectApk(path, sizeOf(path));
    const manifest = directory.entries.find((entry) => entry.name === "AndroidManifest.xml")!;
    const bytes = await readZipEntry(path, manifest);
    expect(bytes.byteLength).toBe(manifest.uncompressedSize);
    expect(Array.from(bytes.subarray(0, 4))).toEqual([0x03, 0x00, 0x08, 0x00]);
  });

  test.if(hasZip)("reads stored and deflated entries exactly", async () => {
    const path = zip("read.zip", ["a.txt", "b.txt"]);
    const [a, b] = (await inspectZip(path, sizeOf(path))).entries;
    expect(new TextDecoder().decode(await readZipEntry(path, a!))).toBe("hello\n");
    expect(Buffer.from(await readZipEntry(path, b!)).equals(readFileSync(join(dir, "b.txt")))).toBe(true);
  });

  test.if(hasZip)("refuses an entry larger than the limit", async () => {
    const path = zip("limit.zip", ["b.txt"]);
    const [b] = (await inspectZip(path, sizeOf(path))).entries;
    const error = await refusal(readZipEntry(path, b!, 1024));
    expect(error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  test.if(hasZip)("refuses an entry whose data was corrupted", async () => {
    const bytes = new Uint8Array(readFileSync(zip("corrupt.zip", ["a.txt"])));
    bytes[30 + "a.txt".length] = 0x58; // first byte of the stored data; the CRC no longer matches
    const path = put("corrupt.zip", bytes);
    const [a] = (await inspectZip(path, sizeOf(path))).entries;
    await refusal(readZipEntry(path, a!));
  });
});
