// KOReader's document id (README "Reading progress"): the MD5 of 1 KiB samples of the file at
// offsets 0 and 1024·4^k for k = 0…10, stopping at the first sample past the end — KOReader's
// util.partialMD5. Computed from the bytes bookdist serves, so a KOReader progress sync names a
// book version. At most 12 ranged reads of 1 KiB, whatever the file's size.
import { createHash } from "node:crypto";
import type { ReadAt } from "./file-types";

const SAMPLE_BYTES = 1024;

/** The sample offsets KOReader reads: 0, then 1024 << 2k for k = 0…10 (the last is 1 GiB). */
export const PARTIAL_MD5_OFFSETS: readonly number[] = [
  0,
  ...Array.from({ length: 11 }, (_, k) => SAMPLE_BYTES * 4 ** k),
];

/** The lower-case hex partial MD5 of a file of `size` bytes read through `readAt`. */
export async function partialMd5(readAt: ReadAt, size: number): Promise<string> {
  const md5 = createHash("md5");
  for (const offset of PARTIAL_MD5_OFFSETS) {
    // KOReader stops at the first read that yields nothing: a seek to or past the end.
    if (offset >= size) break;
    const sample = await readAt(offset, Math.min(offset + SAMPLE_BYTES, size));
    if (sample.byteLength === 0) break;
    md5.update(new Uint8Array(sample.buffer, sample.byteOffset, sample.byteLength));
  }
  return md5.digest("hex");
}

/** Whether `value` has the form of a partial MD5 (KOReader's `document`): 32 lower-case hex digits. */
export function isPartialMd5(value: string): boolean {
  return /^[0-9a-f]{32}$/.test(value);
}
