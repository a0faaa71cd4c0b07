// Builds PNG files byte by byte, so a test can make any header, any image data and any damage.
// Whether one is a real PNG is not this file's word: png.test's callers decode them with pngjs.
// `decodePng` reads back the plain PNGs the app writes (a converted cover), written from the
// specification so that the test's oracle is not the library that wrote them.
import { deflateSync, inflateSync } from "node:zlib";
import { concat } from "./zip";

export interface PngShape {
  width: number;
  height: number;
  /** 0 gray, 2 RGB, 3 palette, 4 gray + alpha, 6 RGBA */
  colorType: number;
  bitDepth: number;
  /** 1: Adam7 */
  interlace?: number;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** The filtered scanlines of `shape` (every filter byte 0): what IDAT must inflate to. */
export function scanlines(shape: PngShape, fill: (i: number) => number = () => 0): Uint8Array {
  const bits = CHANNELS[shape.colorType]! * shape.bitDepth;
  const passes: Array<[number, number]> =
    shape.interlace === 1
      ? ADAM7.map(([x0, y0, dx, dy]) => [
          Math.ceil((shape.width - x0) / dx),
          Math.ceil((shape.height - y0) / dy),
        ])
      : [[shape.width, shape.height]];
  const rows: Uint8Array[] = [];
  for (const [width, height] of passes) {
    if (width <= 0 || height <= 0) continue;
    const rowBytes = Math.ceil((width * bits) / 8);
    for (let y = 0; y < height; y++) {
      const row = new Uint8Array(1 + rowBytes);
      for (let i = 1; i <= rowBytes; i++) row[i] = fill(i) & 0xff;
      rows.push(row);
    }
  }
  return concat(rows);
}

export function chunk(type: string, data: Uint8Array = new Uint8Array()): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, Bun.hash.crc32(out.subarray(4, 8 + data.length)));
  return out;
}

export function ihdr(shape: PngShape): Uint8Array<ArrayBuffer> {
  const data = new Uint8Array(13);
  const view = new DataView(data.buffer);
  view.setUint32(0, shape.width);
  view.setUint32(4, shape.height);
  data[8] = shape.bitDepth;
  data[9] = shape.colorType;
  data[12] = shape.interlace ?? 0;
  return chunk("IHDR", data);
}

const SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A PNG of `shape`: its header, a grey palette for colour type 3, then `zlibData` (default: the
 * shape's scanlines, deflated) in IDAT chunks of at most `idatSize` bytes, then IEND.
 */
export function makePng(
  shape: PngShape,
  options: { zlibData?: Uint8Array; idatSize?: number; palette?: boolean } = {},
): Uint8Array<ArrayBuffer> {
  const data = options.zlibData ?? deflateSync(scanlines(shape));
  const idatSize = options.idatSize ?? 64 * 1024;
  const idats: Uint8Array[] = [];
  for (let at = 0; at < data.length; at += idatSize)
    idats.push(chunk("IDAT", data.subarray(at, at + idatSize)));
  const palette =
    (options.palette ?? shape.colorType === 3)
      ? [
          chunk(
            "PLTE",
            new Uint8Array(256 * 3).map((_, i) => Math.floor(i / 3)),
          ),
        ]
      : [];
  return concat([SIGNATURE, ihdr(shape), ...palette, ...idats, chunk("IEND")]);
}

export interface DecodedPng {
  width: number;
  height: number;
  colorType: number;
  /** Every chunk's type in file order. */
  chunkTypes: string[];
  /** The pixel at (x, y) as [red, green, blue, alpha]. */
  rgba(x: number, y: number): [number, number, number, number];
}

/** Decodes an 8-bit, non-interlaced grey, RGB, grey + alpha or RGBA PNG; throws on anything else. */
export function decodePng(bytes: Uint8Array): DecodedPng {
  if (!SIGNATURE.every((byte, i) => bytes[i] === byte)) throw new Error("not a PNG signature");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunkTypes: string[] = [];
  const idat: Uint8Array[] = [];
  let header: DataView | undefined;
  for (let at = 8; at < bytes.length; ) {
    const length = view.getUint32(at);
    const type = new TextDecoder().decode(bytes.subarray(at + 4, at + 8));
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (Bun.hash.crc32(bytes.subarray(at + 4, at + 8 + length)) !== view.getUint32(at + 8 + length))
      throw new Error(`bad CRC in ${type}`);
    chunkTypes.push(type);
    if (type === "IHDR") header = new DataView(data.buffer, data.byteOffset, data.byteLength);
    if (type === "IDAT") idat.push(data);
    at += 12 + length;
    if (type === "IEND") break;
  }
  if (!header) throw new Error("no IHDR");
  const width = header.getUint32(0);
  const height = header.getUint32(4);
  const [bitDepth, colorType, , , interlace] = [8, 9, 10, 11, 12].map((i) => header!.getUint8(i));
  const channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[colorType!];
  if (bitDepth !== 8 || interlace !== 0 || channels === undefined)
    throw new Error(`unsupported PNG: depth ${bitDepth}, colour type ${colorType}, interlace ${interlace}`);
  const raw = inflateSync(concat(idat));
  const stride = width * channels;
  if (raw.length !== height * (stride + 1)) throw new Error("image data of the wrong size");
  const pixels = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let i = 0; i < stride; i++) {
      const x = raw[y * (stride + 1) + 1 + i]!;
      const a = i >= channels ? pixels[y * stride + i - channels]! : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + i]! : 0;
      const c = y > 0 && i >= channels ? pixels[(y - 1) * stride + i - channels]! : 0;
      const p = a + b - c;
      const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
      const paeth = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      const predictor = [0, a, b, (a + b) >> 1, paeth][filter];
      if (predictor === undefined) throw new Error(`unknown filter ${filter}`);
      pixels[y * stride + i] = (x + predictor) & 0xff;
    }
  }
  return {
    width,
    height,
    colorType: colorType!,
    chunkTypes,
    rgba(x, y) {
      const at = y * stride + x * channels;
      const v = (i: number) => pixels[at + i]!;
      if (channels === 1) return [v(0), v(0), v(0), 255];
      if (channels === 2) return [v(0), v(0), v(0), v(1)];
      if (channels === 3) return [v(0), v(1), v(2), 255];
      return [v(0), v(1), v(2), v(3)];
    },
  };
}
