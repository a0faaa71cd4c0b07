// Builds PNG files byte by byte, so a test can make any header, any image data and any damage.
// Whether one is a real PNG is not this file's word: png.test's callers decode them with pngjs.
import { deflateSync } from "node:zlib";
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
