// A cover sent as JPEG or WebP becomes the PNG every cover is (the stored and served cover is
// always `image/png`). The decoder is sharp (libvips): it runs on libuv's threadpool, so the
// event loop only waits for it, and it reads the file from disk rather than from memory.
//
// What a cover costs is decided before any pixel is decoded: the header's dimensions are held to
// the same caps as a PNG's (file-types.ts), so a 1 KB JPEG that claims 60,000 × 60,000 pixels is
// refused as an oversize PNG is, without allocating for it. libvips's own limitInputPixels stands
// behind that check. One conversion runs at a time: the largest allowed cover decodes to about
// 160 MB (40 MP, 4 bytes a pixel) when its orientation makes libvips hold it whole, and two at
// once should not double that.
//
// The PNG written carries no metadata: EXIF (camera, place, time), XMP and the ICC profile are
// dropped, the pixels converted to sRGB first (a CMYK JPEG from a print workflow comes out right).
// The EXIF orientation is applied to the pixels before the tag goes, so a photo shows upright.
import { open } from "node:fs/promises";
import sharp, { type Metadata } from "sharp";
import { AppError } from "../lib/problems";
import { MAX_COVER_PIXELS, MAX_COVER_SIDE, tooManyPixels } from "./file-types";

/** What a cover upload may be: PNG is stored as sent, the others become PNG. */
export type CoverFormat = "png" | "jpeg" | "webp";

export const notCoverImage = () =>
  new AppError("UNSUPPORTED_MEDIA_TYPE", "The file is not a PNG, JPEG or WebP image.");

const damagedImage = (format: "jpeg" | "webp") =>
  new AppError(
    "UNSUPPORTED_MEDIA_TYPE",
    `The ${format === "jpeg" ? "JPEG" : "WebP"} image is damaged or cannot be decoded.`,
  );

/** The caps a PNG cover's header is held to (file-types.ts), the same both ways round. */
const overCaps = ({ width, height }: { width: number; height: number }) =>
  width > MAX_COVER_SIDE || height > MAX_COVER_SIDE || width * height > MAX_COVER_PIXELS;

/** A decoder that takes too long on one image (a crafted progressive JPEG's many scans) gives up. */
const DECODE_TIMEOUT_SECONDS = 60;

// libvips picks its loader by the file's content. Only the two it is asked for may run: a file
// that sniffs as JPEG or WebP here but as something else to libvips (SVG, TIFF, PDF, HEIF and
// the other loaders it carries) is refused rather than parsed.
sharp.block({ operation: ["VipsForeignLoad"] });
sharp.unblock({ operation: ["VipsForeignLoadJpegFile", "VipsForeignLoadWebpFile"] });
// No cache of decoded images between requests: memory stays what one conversion needs.
sharp.cache(false);

/** The format a cover's first bytes say it is, or null for anything else. */
export async function sniffCover(path: string): Promise<CoverFormat | null> {
  const head = Buffer.alloc(12);
  const handle = await open(path, "r");
  try {
    const { bytesRead } = await handle.read(head, 0, head.byteLength, 0);
    if (bytesRead < head.byteLength) return null;
  } finally {
    await handle.close();
  }
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "png";
  // SOI and the first marker's 0xFF (every JPEG writer puts a marker right after SOI).
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "jpeg";
  if (head.toString("latin1", 0, 4) === "RIFF" && head.toString("latin1", 8, 12) === "WEBP") return "webp";
  return null;
}

/** How much of a JPEG is searched for its frame header: EXIF, XMP and ICC segments come before it. */
const JPEG_HEADER_SEARCH = 1024 * 1024;

/**
 * The width and height a JPEG's or WebP's header declares, read from the file by this module
 * (not by the decoder), or null when there is none where the format puts it. JPEG: the first
 * SOF segment after the segments before it. WebP: the VP8X canvas, or the VP8/VP8L frame.
 */
export async function declaredSize(
  path: string,
  format: "jpeg" | "webp",
): Promise<{ width: number; height: number } | null> {
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(format === "jpeg" ? JPEG_HEADER_SEARCH : 30);
    const { bytesRead } = await handle.read(head, 0, head.byteLength, 0);
    const bytes = head.subarray(0, bytesRead);
    return format === "jpeg" ? jpegSize(bytes) : webpSize(bytes);
  } finally {
    await handle.close();
  }
}

function jpegSize(bytes: Buffer): { width: number; height: number } | null {
  for (let at = 2; at + 9 <= bytes.length; ) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    // Fill bytes before a marker.
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = bytes.readUInt16BE(at + 2);
    // SOF0–SOF15, less DHT (C4), JPG (C8) and DAC (CC): precision, height, width.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    // Start of scan before any frame header: not a JPEG to take.
    if (marker === 0xda || length < 2) return null;
    at += 2 + length;
  }
  return null;
}

function webpSize(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.length < 30) return null;
  const chunk = bytes.toString("latin1", 12, 16);
  if (chunk === "VP8X") return { width: 1 + bytes.readUIntLE(24, 3), height: 1 + bytes.readUIntLE(27, 3) };
  if (chunk === "VP8L" && bytes[20] === 0x2f) {
    const bits = bytes.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
  }
  // A key frame: its 3-byte tag, the start code, then 14-bit width and height (2 scale bits each).
  if (chunk === "VP8 " && bytes[23] === 0x9d && bytes[24] === 0x01 && bytes[25] === 0x2a)
    return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  return null;
}

let queue: Promise<unknown> = Promise.resolve();

/** Runs `task` after every conversion started before it: one at a time in this process. */
function oneAtATime<T>(task: () => Promise<T>): Promise<T> {
  const run = queue.then(task, task);
  queue = run.catch(() => {});
  return run;
}

/**
 * The upload's conversion step (blob-store.ts `convert`): a PNG stays as it is (false; its own
 * check follows), a JPEG or WebP is decoded and written to `outputPath` as a PNG without metadata
 * (true), anything else is refused (415). A header over the caps is refused (415) before decoding,
 * a file the decoder cannot read whole (damaged, truncated) is refused too.
 */
export async function convertCoverToPng(path: string, _size: number, outputPath: string): Promise<boolean> {
  const format = await sniffCover(path);
  if (format === null) throw notCoverImage();
  if (format === "png") return false;
  // What the header claims is what the decoder would allocate: refused before it sees the file.
  const declared = await declaredSize(path, format);
  if (!declared || declared.width === 0 || declared.height === 0) throw damagedImage(format);
  if (overCaps(declared)) throw tooManyPixels();
  await oneAtATime(() => decodeToPng(path, format, outputPath));
  return true;
}

async function decodeToPng(path: string, format: "jpeg" | "webp", outputPath: string): Promise<void> {
  const image = sharp(path, {
    // libvips's own cap, the second line behind the header check below.
    limitInputPixels: MAX_COVER_PIXELS,
    // Any decoder warning (a truncated or damaged scan) refuses the file.
    failOn: "warning",
    sequentialRead: true,
    // An animated WebP: its first frame.
    pages: 1,
  });
  const damaged = (error: unknown) =>
    error instanceof Error && /pixel limit/i.test(error.message) ? tooManyPixels() : damagedImage(format);
  let header: Metadata;
  try {
    // Header only: nothing is decoded yet (over limitInputPixels, libvips refuses here already).
    header = await image.metadata();
  } catch (error) {
    throw damaged(error);
  }
  if (header.format !== format) throw notCoverImage();
  const { width, height } = header;
  if (!width || !height) throw notCoverImage();
  // The side cap is the same both ways, so an orientation that swaps width and height changes nothing.
  if (overCaps({ width, height })) throw tooManyPixels();
  try {
    // No keepMetadata/withMetadata: sharp writes sRGB pixels and no EXIF, XMP or ICC chunk.
    await image
      .autoOrient()
      .png({ compressionLevel: 6, adaptiveFiltering: false })
      .timeout({ seconds: DECODE_TIMEOUT_SECONDS })
      .toFile(outputPath);
  } catch (error) {
    throw damaged(error);
  }
}
