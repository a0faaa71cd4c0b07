// Covers as publishers have them: real JPEG and WebP files (test/fixtures/covers, made with
// ImageMagick, cwebp and exiftool: see its README) are stored as PNG. The stored PNG is read back
// with test/helpers/png.ts, written from the PNG specification, not with the library that wrote it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Book } from "../../src/routes/books/books.schemas";
import type { LocalBlobStore } from "../../src/storage/blob-store";
import { decodePng, makePng } from "../helpers/png";
import { bodyAs, expectProblem, jsonOf } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { multipartFile } from "../helpers/zip";

const FIXTURES = join(import.meta.dir, "../fixtures/covers");
const fixture = async (name: string) => new Uint8Array(await Bun.file(join(FIXTURES, name)).arrayBuffer());
const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const OVERSIZE = "The image is larger than 10000 × 10000 pixels or has more than 40000000 pixels.";
const NOT_AN_IMAGE = "The file is not a PNG, JPEG or WebP image.";
/** Chunks that would carry metadata into the stored PNG. */
const METADATA_CHUNKS = ["eXIf", "iCCP", "tEXt", "zTXt", "iTXt", "tIME"];

/** Every file under the blob root, temp files included. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The JPEG with its first SOF segment's height and width replaced (nothing else changed). */
function withJpegSize(jpeg: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(jpeg);
  const view = new DataView(out.buffer);
  for (let at = 2; at + 4 < out.length; ) {
    const marker = view.getUint16(at);
    const length = view.getUint16(at + 2);
    // SOF0–SOF15, less DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xffc0 && marker <= 0xffcf && ![0xffc4, 0xffc8, 0xffcc].includes(marker)) {
      view.setUint16(at + 5, height);
      view.setUint16(at + 7, width);
      return out;
    }
    at += 2 + length;
  }
  throw new Error("no SOF segment");
}

/** The lossless WebP with its VP8L header's size replaced (14 bits each, stored minus one). */
function withWebpLosslessSize(webp: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(webp);
  const view = new DataView(out.buffer);
  if (new TextDecoder().decode(out.subarray(12, 16)) !== "VP8L" || out[20] !== 0x2f)
    throw new Error("not a simple lossless WebP");
  const bits = view.getUint32(21, true);
  view.setUint32(21, ((bits & ~0xfffffff) | (width - 1) | ((height - 1) << 14)) >>> 0, true);
  return out;
}

describe("covers sent as JPEG or WebP", () => {
  let t: TestApp;
  let admin: { token: string };
  beforeAll(async () => {
    t = await createTestApp({ env: { MAX_COVER_BYTES: "64KiB" } });
    admin = await t.admin();
  });
  afterAll(() => t.close());

  const newBook = async (title: string) =>
    (await bodyAs(await t.call("POST", "/book", { token: admin.token, json: { title } }), Book)).id;
  const upload = (bytes: Uint8Array, id: number, filename = "cover", contentType?: string) =>
    t.call("POST", `/book/${id}/cover`, {
      token: admin.token,
      body: multipartFile(bytes, { filename, contentType }) as RequestInit["body"],
    });

  /** Uploads the file, then downloads the stored cover and checks the book tells its truth. */
  async function storedCover(bytes: Uint8Array, filename: string) {
    const id = await newBook(filename);
    const response = await upload(bytes, id, filename);
    expect(response.status).toBe(200);
    const book = await bodyAs(response, Book);
    const download = await t.call("GET", `/book/${id}/cover`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("image/png");
    const stored = new Uint8Array(await download.arrayBuffer());
    expect(book.cover).toMatchObject({
      contentType: "image/png",
      size: stored.length,
      sha256: sha256(stored),
    });
    expect(download.headers.get("etag")).toBe(`"${sha256(stored)}"`);
    const png = decodePng(stored);
    expect({ width: book.cover?.width, height: book.cover?.height }).toEqual({
      width: png.width,
      height: png.height,
    });
    expect(png.chunkTypes.filter((type) => METADATA_CHUNKS.includes(type))).toEqual([]);
    return { png, stored };
  }

  test("a JPEG is stored as a PNG of the same size and picture", async () => {
    const { png } = await storedCover(await fixture("cover.jpg"), "cover.jpg");
    expect([png.width, png.height]).toEqual([48, 64]);
    // Red above, blue below, as ImageMagick drew it (JPEG is lossy: near, not equal).
    const [r1, g1, b1] = png.rgba(24, 8);
    const [r2, g2, b2] = png.rgba(24, 56);
    expect(r1).toBeGreaterThan(200);
    expect(Math.max(g1, b1)).toBeLessThan(60);
    expect(b2).toBeGreaterThan(200);
    expect(Math.max(r2, g2)).toBeLessThan(60);
  });

  test("a JPEG's EXIF orientation is applied and its EXIF (camera, GPS) is not stored", async () => {
    // Stored 64 × 48 (red left, blue right), EXIF Orientation 6: shown turned 90° clockwise.
    const source = await fixture("cover-rotated.jpg");
    expect(new TextDecoder("latin1").decode(source)).toContain("bookdist fixture camera");
    const { png, stored } = await storedCover(source, "photo.jpeg");
    expect([png.width, png.height]).toEqual([48, 64]);
    expect(png.rgba(24, 8)[0]).toBeGreaterThan(200);
    expect(png.rgba(24, 56)[2]).toBeGreaterThan(200);
    const text = new TextDecoder("latin1").decode(stored);
    expect(text).not.toContain("bookdist fixture camera");
    expect(text).not.toContain("Exif");
  });

  test("a lossless WebP with alpha and a lossy WebP are stored as PNGs of the same size", async () => {
    const { png } = await storedCover(await fixture("cover.webp"), "cover.webp");
    expect([png.width, png.height]).toEqual([40, 56]);
    const [r, g, b, a] = png.rgba(20, 28);
    expect([r, g, b]).toEqual([0, 255, 0]);
    expect(Math.abs(a - 128)).toBeLessThanOrEqual(1);

    const lossy = await storedCover(await fixture("cover-lossy.webp"), "cover.webp");
    expect([lossy.png.width, lossy.png.height]).toEqual([40, 56]);
  });

  test("the same JPEG twice is one blob; a PNG is still stored byte for byte", async () => {
    const jpeg = await fixture("cover.jpg");
    const first = await storedCover(jpeg, "a.jpg");
    const second = await storedCover(jpeg, "b.jpg");
    expect(sha256(second.stored)).toBe(sha256(first.stored));
    // A PNG is not re-encoded: the converted PNG uploaded again comes back as sent.
    const again = await storedCover(first.stored, "a.png");
    expect(sha256(again.stored)).toBe(sha256(first.stored));
  });

  test("a JPEG or WebP whose header claims too many pixels is refused as an oversize PNG is, nothing stored", async () => {
    const root = (t.deps.blobs as LocalBlobStore).root;
    const before = filesUnder(root).length;
    const id = await newBook("Bomb");
    const oversizePng = await upload(makePng({ width: 10_001, height: 1, colorType: 0, bitDepth: 8 }), id);
    const pngProblem = await expectProblem(oversizePng, 415, "UNSUPPORTED_MEDIA_TYPE");
    expect(pngProblem.detail).toBe(OVERSIZE);

    const jpeg = await fixture("cover.jpg");
    for (const [width, height] of [
      [60_000, 60_000],
      [10_001, 10],
      [8_000, 8_000],
    ] as const) {
      const started = performance.now();
      const response = await upload(withJpegSize(jpeg, width, height), id, "bomb.jpg");
      const problem = await expectProblem(response, 415, "UNSUPPORTED_MEDIA_TYPE");
      expect(problem.detail).toBe(pngProblem.detail);
      // Refused from the header: no 3.6 billion pixels decoded.
      expect(performance.now() - started).toBeLessThan(2_000);
    }
    const webp = withWebpLosslessSize(await fixture("cover.webp"), 16_384, 16_384);
    const response = await upload(webp, id, "bomb.webp");
    const webpProblem = await expectProblem(response, 415, "UNSUPPORTED_MEDIA_TYPE");
    expect(webpProblem.detail).toBe(OVERSIZE);

    expect(filesUnder(root).length).toBe(before);
    const book = await bodyAs(await t.call("GET", `/book/${id}`, { token: admin.token }), Book);
    expect(book.cover).toBeNull();
  });

  test("a GIF, a text file and a truncated JPEG are 415 whatever their name; nothing stored", async () => {
    const root = (t.deps.blobs as LocalBlobStore).root;
    const before = filesUnder(root).length;
    const id = await newBook("Not a cover");
    const gif = await upload(await fixture("cover.gif"), id, "cover.png", "image/png");
    expect((await expectProblem(gif, 415, "UNSUPPORTED_MEDIA_TYPE")).detail).toBe(NOT_AN_IMAGE);
    const text = await upload(new TextEncoder().encode("just some words, not a picture"), id, "cover.jpg");
    expect((await expectProblem(text, 415, "UNSUPPORTED_MEDIA_TYPE")).detail).toBe(NOT_AN_IMAGE);
    const jpeg = await fixture("cover-rotated.jpg");
    const truncated = await upload(jpeg.subarray(0, jpeg.length - 120), id, "cut.jpg");
    expect((await expectProblem(truncated, 415, "UNSUPPORTED_MEDIA_TYPE")).detail).toBe(
      "The JPEG image is damaged or cannot be decoded.",
    );
    expect(filesUnder(root).length).toBe(before);
  });

  test("the OpenAPI document's cover upload names the accepted types", async () => {
    const doc = (await jsonOf(await t.call("GET", "/v3/api-docs"))) as {
      paths: Record<
        string,
        Record<
          string,
          { description: string; requestBody: { content: Record<string, { encoding?: unknown }> } }
        >
      >;
    };
    const operation = doc.paths["/book/{id}/cover"]!.post!;
    const multipart = operation.requestBody.content["multipart/form-data"];
    expect(multipart?.encoding).toEqual({ file: { contentType: "image/png, image/jpeg, image/webp" } });
    expect(operation.description).toContain("a PNG, JPEG or WebP image");
    expect(operation.description).toContain("stored as a PNG");
  });
});
