// A cover's image data, checked before it is accepted: its chunks follow one another to IEND,
// each with a matching CRC, and its IDAT data inflates to exactly the size its header declares.
// The header alone is what a client allocates for; the data is what its decoder then inflates:
// without this check a small file whose data inflates to gigabytes (a PNG "bomb") passes as a
// cover and is handed to every device that shows the book.
//
// Not decoded further: the filter byte of each row, ancillary chunks and colour profiles are the
// decoder's business and cost it no more than the declared size.
import { open } from "node:fs/promises";
import { crc32, createInflate } from "node:zlib";
import { AppError } from "../lib/problems";

export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlace: number;
}

/** Channels per pixel of each colour type, and the bit depths the PNG specification allows it. */
const COLOR_TYPES: Record<number, { channels: number; depths: number[] }> = {
  0: { channels: 1, depths: [1, 2, 4, 8, 16] },
  2: { channels: 3, depths: [8, 16] },
  3: { channels: 1, depths: [1, 2, 4, 8] },
  4: { channels: 2, depths: [8, 16] },
  6: { channels: 4, depths: [8, 16] },
};
const PALETTE = 3;

/** Adam7's passes: first column, first row, column step, row step. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

const IDAT = 0x49444154;
const IEND = 0x49454e44;
const PLTE = 0x504c5445;
/** The largest chunk length the specification allows (2^31 − 1). */
const MAX_CHUNK = 0x7fffffff;
/** How much of a chunk one read takes; also the inflater's output chunk. */
const PIECE = 256 * 1024;

const damaged = () =>
  new AppError(
    "UNSUPPORTED_MEDIA_TYPE",
    "The PNG image data is damaged or does not inflate to the size its header declares.",
  );

/**
 * The bytes the image data inflates to (filter bytes included), or null for a header the
 * specification does not allow (unknown colour type, bit depth, compression, filter or interlace).
 */
export function imageDataSize(header: PngHeader, compression: number, filter: number): number | null {
  const type = COLOR_TYPES[header.colorType];
  if (!type?.depths.includes(header.bitDepth)) return null;
  if (compression !== 0 || filter !== 0 || (header.interlace !== 0 && header.interlace !== 1)) return null;
  const bitsPerPixel = type.channels * header.bitDepth;
  const rowBytes = (width: number) => 1 + Math.ceil((width * bitsPerPixel) / 8);
  if (header.interlace === 0) return header.height * rowBytes(header.width);
  let total = 0;
  for (const [x0, y0, dx, dy] of ADAM7) {
    const width = Math.ceil((header.width - x0) / dx);
    const height = Math.ceil((header.height - y0) / dy);
    if (width > 0 && height > 0) total += height * rowBytes(width);
  }
  return total;
}

/**
 * Walks the chunks after IHDR (which ends at byte 33) to IEND and inflates the IDAT data as it
 * goes, on zlib's worker threads (a 40 MP cover inflates a few hundred megabytes; the event loop
 * only hands over 256 KiB pieces). Refuses (415) as soon as the data inflates past `expected`, and
 * at the end unless it inflated to exactly `expected` and the zlib stream ended. Memory: a piece
 * of input and one of output.
 */
export async function checkImageData(
  path: string,
  fileSize: number,
  header: PngHeader,
  expected: number,
): Promise<void> {
  const handle = await open(path, "r");
  const inflater = new BoundedInflate(expected);
  try {
    let at = 33;
    let seenPalette = false;
    let idat: "before" | "in" | "after" = "before";
    const head = Buffer.alloc(8);
    const tail = Buffer.alloc(4);
    while (true) {
      if (at + 12 > fileSize) throw damaged();
      await readFully(handle, head, at);
      const length = head.readUInt32BE(0);
      const type = head.readUInt32BE(4);
      if (length > MAX_CHUNK || at + 12 + length > fileSize) throw damaged();
      if (type === IDAT) {
        if (idat === "after" || (header.colorType === PALETTE && !seenPalette)) throw damaged();
        idat = "in";
      } else if (idat === "in") {
        idat = "after";
      }
      if (type === PLTE) seenPalette = true;
      // The CRC covers the type and the data; the data is read in pieces and IDAT's inflated.
      let crc = crc32(head.subarray(4, 8));
      for (let done = 0; done < length; ) {
        const piece = Buffer.allocUnsafe(Math.min(PIECE, length - done));
        await readFully(handle, piece, at + 8 + done);
        crc = crc32(piece, crc);
        if (type === IDAT) await inflater.write(piece);
        done += piece.byteLength;
      }
      await readFully(handle, tail, at + 8 + length);
      if (tail.readUInt32BE(0) !== crc >>> 0) throw damaged();
      at += 12 + length;
      if (type === IEND) break;
    }
    if (idat === "before") throw damaged();
    await inflater.end();
  } finally {
    inflater.destroy();
    await handle.close();
  }
}

async function readFully(handle: Awaited<ReturnType<typeof open>>, buffer: Buffer, position: number) {
  const { bytesRead } = await handle.read(buffer, 0, buffer.byteLength, position);
  if (bytesRead !== buffer.byteLength) throw damaged();
}

/**
 * node:zlib's streaming inflater, counting what comes out and failing the moment it passes the
 * limit. Its work runs off the event loop; a write resolves once the inflater took the piece.
 */
class BoundedInflate {
  private readonly inflate = createInflate({ chunkSize: PIECE });
  private produced = 0;
  private failure: AppError | undefined;
  private readonly ended: Promise<void>;

  constructor(private readonly limit: number) {
    this.ended = new Promise<void>((resolve, reject) => {
      this.inflate.on("data", (chunk: Buffer) => {
        this.produced += chunk.byteLength;
        if (this.produced > this.limit) this.fail(reject);
      });
      this.inflate.on("end", () => (this.produced === this.limit ? resolve() : this.fail(reject)));
      this.inflate.on("error", () => this.fail(reject));
    });
    this.ended.catch(() => {});
  }

  private fail(reject: (error: AppError) => void): void {
    this.failure ??= damaged();
    reject(this.failure);
    this.inflate.destroy();
  }

  async write(piece: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    const failed = this.ended.then(() => {});
    await Promise.race([
      new Promise<void>((resolve) => {
        if (this.inflate.write(piece)) resolve();
        else this.inflate.once("drain", resolve);
      }),
      failed,
    ]);
    if (this.failure) throw this.failure;
  }

  async end(): Promise<void> {
    if (this.failure) throw this.failure;
    this.inflate.end();
    await this.ended;
  }

  destroy(): void {
    this.inflate.destroy();
  }
}
