// Content checks for uploads. Each reads only the bytes it needs from disk, so checking a
// 2 GiB APK costs a few small reads, not 2 GiB of memory.
import { inflateRawSync } from "node:zlib";
import { AppError } from "../lib/problems";

export interface ZipEntry {
  name: string;
  /** 0 = stored, 8 = deflate; anything else readZipEntry refuses. */
  method: number;
  flags: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

export interface ZipDirectory {
  entries: ZipEntry[];
  /** Where the central directory starts; an APK signing block ends right before it. */
  centralDirectoryOffset: number;
  centralDirectorySize: number;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END_OF_DIRECTORY = 0x06064b50;
const EOCD_SIZE = 22;
/** The EOCD record plus the longest comment it may carry. */
const EOCD_SEARCH = EOCD_SIZE + 0xffff;
/** A central directory this large means millions of entries: not an upload we want to parse in memory. */
const MAX_CENTRAL_DIRECTORY = 64 * 1024 * 1024;
const DEFAULT_MAX_ENTRY_BYTES = 16 * 1024 * 1024;
/** The widest and the tallest cover taken, in pixels. */
const MAX_COVER_SIDE = 10_000;

const notPng = () => new AppError("UNSUPPORTED_MEDIA_TYPE", "The file is not a PNG image.");
const tooManyPixels = () =>
  new AppError(
    "UNSUPPORTED_MEDIA_TYPE",
    `The image is larger than ${MAX_COVER_SIDE} × ${MAX_COVER_SIDE} pixels.`,
  );
const notZip = () => new AppError("UNSUPPORTED_MEDIA_TYPE", "The file is not a zip archive.");
const unreadableEntry = (name: string) =>
  new AppError("UNSUPPORTED_MEDIA_TYPE", `The zip archive entry ${name} cannot be read.`);

async function readBytes(path: string, start: number, end: number): Promise<DataView> {
  const buffer = await Bun.file(path).slice(start, end).arrayBuffer();
  // A file shorter than it claims yields fewer bytes; callers treat that as truncation.
  return new DataView(buffer);
}

export async function inspectPng(path: string): Promise<{ width: number; height: number }> {
  // Signature, then the IHDR chunk: length (4), type (4), 13 bytes of data, CRC (4).
  const view = await readBytes(path, 0, 33);
  if (view.byteLength < 33) throw notPng();
  if (PNG_SIGNATURE.some((byte, i) => view.getUint8(i) !== byte)) throw notPng();
  if (view.getUint32(8) !== 13 || view.getUint32(12) !== 0x49484452) throw notPng();
  const chunk = new Uint8Array(view.buffer, 12, 17);
  if (Bun.hash.crc32(chunk) !== view.getUint32(29)) throw notPng();
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  if (width === 0 || height === 0) throw notPng();
  // The header is all we read, so its claim is what every client that shows the cover would
  // try to allocate (API.md §6).
  if (width > MAX_COVER_SIDE || height > MAX_COVER_SIDE) throw tooManyPixels();
  return { width, height };
}

function u64(view: DataView, offset: number): number {
  const value = view.getBigUint64(offset, true);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw notZip();
  return Number(value);
}

function findEndOfDirectory(tail: DataView, tailStart: number, size: number): number {
  // The comment may itself contain the signature, so only accept a record whose comment
  // length runs exactly to the end of the file.
  for (let at = tail.byteLength - EOCD_SIZE; at >= 0; at--) {
    if (tail.getUint32(at, true) !== END_OF_DIRECTORY) continue;
    if (tailStart + at + EOCD_SIZE + tail.getUint16(at + 20, true) === size) return at;
  }
  throw notZip();
}

interface DirectoryBounds {
  offset: number;
  size: number;
  entryCount: number;
  /** The first byte after the central directory that belongs to the end records. */
  limit: number;
}

async function readZip64Bounds(path: string, tail: DataView, tailStart: number, at: number) {
  const locatorAt = at - 20;
  if (locatorAt < 0 || tail.getUint32(locatorAt, true) !== ZIP64_LOCATOR) return null;
  const recordOffset = u64(tail, locatorAt + 8);
  const locatorOffset = tailStart + locatorAt;
  if (recordOffset + 56 > locatorOffset) throw notZip();
  const record = await readBytes(path, recordOffset, recordOffset + 56);
  if (record.byteLength < 56 || record.getUint32(0, true) !== ZIP64_END_OF_DIRECTORY) throw notZip();
  // Multi-disk archives are not something anyone uploads on purpose.
  if (record.getUint32(16, true) !== 0 || record.getUint32(20, true) !== 0) throw notZip();
  return {
    entryCount: u64(record, 32),
    size: u64(record, 40),
    offset: u64(record, 48),
    limit: recordOffset,
  } satisfies DirectoryBounds;
}

async function readDirectoryBounds(path: string, size: number): Promise<DirectoryBounds> {
  const tailStart = Math.max(0, size - EOCD_SEARCH);
  const tail = await readBytes(path, tailStart, size);
  if (tail.byteLength !== size - tailStart) throw notZip();
  const at = findEndOfDirectory(tail, tailStart, size);

  const zip64 = await readZip64Bounds(path, tail, tailStart, at);
  if (zip64) return zip64;

  const disk = tail.getUint16(at + 4, true);
  const directoryDisk = tail.getUint16(at + 6, true);
  const entriesOnDisk = tail.getUint16(at + 8, true);
  const entryCount = tail.getUint16(at + 10, true);
  const directorySize = tail.getUint32(at + 12, true);
  const directoryOffset = tail.getUint32(at + 16, true);
  // Saturated fields promise a ZIP64 record that is not there.
  if (entryCount === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) throw notZip();
  if (disk !== 0 || directoryDisk !== 0 || entriesOnDisk !== entryCount) throw notZip();
  return { offset: directoryOffset, size: directorySize, entryCount, limit: tailStart + at };
}

/** Values too large for the 32-bit fields live in the ZIP64 extra field, in this fixed order. */
function applyZip64Extra(view: DataView, start: number, length: number, entry: ZipEntry): void {
  let at = start;
  const end = start + length;
  while (at + 4 <= end) {
    const id = view.getUint16(at, true);
    const size = view.getUint16(at + 2, true);
    const dataEnd = at + 4 + size;
    if (dataEnd > end) throw notZip();
    if (id === 0x0001) {
      let field = at + 4;
      const next = () => {
        if (field + 8 > dataEnd) throw notZip();
        const value = u64(view, field);
        field += 8;
        return value;
      };
      if (entry.uncompressedSize === 0xffffffff) entry.uncompressedSize = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.localHeaderOffset === 0xffffffff) entry.localHeaderOffset = next();
    }
    at = dataEnd;
  }
}

const utf8 = new TextDecoder("utf-8");
// Names without the UTF-8 flag are officially CP437; latin1 reads their ASCII subset the same.
const latin1 = new TextDecoder("latin1");

function parseCentralDirectory(view: DataView, bounds: DirectoryBounds): ZipEntry[] {
  const entries: ZipEntry[] = [];
  let at = 0;
  while (at < view.byteLength) {
    if (at + 46 > view.byteLength || view.getUint32(at, true) !== CENTRAL_HEADER) throw notZip();
    const flags = view.getUint16(at + 8, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const nameStart = at + 46;
    const next = nameStart + nameLength + extraLength + commentLength;
    if (next > view.byteLength) throw notZip();
    const nameBytes = new Uint8Array(view.buffer, view.byteOffset + nameStart, nameLength);
    const entry: ZipEntry = {
      name: (flags & 0x0800 ? utf8 : latin1).decode(nameBytes),
      method: view.getUint16(at + 10, true),
      flags,
      crc32: view.getUint32(at + 16, true),
      compressedSize: view.getUint32(at + 20, true),
      uncompressedSize: view.getUint32(at + 24, true),
      localHeaderOffset: view.getUint32(at + 42, true),
    };
    applyZip64Extra(view, nameStart + nameLength, extraLength, entry);
    // Every entry's data must lie before the central directory, or the directory lies.
    if (entry.localHeaderOffset + 30 + entry.compressedSize > bounds.offset) throw notZip();
    entries.push(entry);
    at = next;
  }
  if (entries.length !== bounds.entryCount) throw notZip();
  return entries;
}

/**
 * Checks that the file is a zip archive whose end records agree with its size, and lists its
 * entries. Truncated or lying archives are refused with 415.
 */
export async function inspectZip(path: string, size: number): Promise<ZipDirectory> {
  if (size < 30 + EOCD_SIZE) throw notZip();
  const head = await readBytes(path, 0, 4);
  if (head.byteLength < 4 || head.getUint32(0, true) !== LOCAL_HEADER) throw notZip();

  const bounds = await readDirectoryBounds(path, size);
  if (bounds.size > MAX_CENTRAL_DIRECTORY || bounds.offset + bounds.size > bounds.limit) throw notZip();
  // 46 bytes is the smallest central directory header.
  if (bounds.entryCount * 46 > bounds.size) throw notZip();

  const view = await readBytes(path, bounds.offset, bounds.offset + bounds.size);
  if (view.byteLength !== bounds.size) throw notZip();
  return {
    entries: parseCentralDirectory(view, bounds),
    centralDirectoryOffset: bounds.offset,
    centralDirectorySize: bounds.size,
  };
}

/** A zip archive that holds AndroidManifest.xml; its contents are read later, from the directory. */
export async function inspectApk(path: string, size: number): Promise<ZipDirectory> {
  const directory = await inspectZip(path, size);
  if (!directory.entries.some((entry) => entry.name === "AndroidManifest.xml")) {
    throw new AppError(
      "UNSUPPORTED_MEDIA_TYPE",
      "The file is not an Android package (no AndroidManifest.xml).",
    );
  }
  return directory;
}

/**
 * Reads one entry of an archive checked by inspectZip, uncompressed and CRC-checked. The limit
 * guards against zip bombs: the sizes in the directory are only what the archive claims.
 */
export async function readZipEntry(
  path: string,
  entry: ZipEntry,
  maxBytes = DEFAULT_MAX_ENTRY_BYTES,
): Promise<Uint8Array> {
  if (entry.uncompressedSize > maxBytes || entry.compressedSize > maxBytes) throw unreadableEntry(entry.name);
  // Encrypted entries cannot be read without a password.
  if (entry.flags & 0x0001) throw unreadableEntry(entry.name);

  const header = await readBytes(path, entry.localHeaderOffset, entry.localHeaderOffset + 30);
  if (header.byteLength < 30 || header.getUint32(0, true) !== LOCAL_HEADER) throw notZip();
  // The local name and extra field may differ in length from the central copies.
  const dataStart = entry.localHeaderOffset + 30 + header.getUint16(26, true) + header.getUint16(28, true);
  const compressed = new Uint8Array(
    await Bun.file(path)
      .slice(dataStart, dataStart + entry.compressedSize)
      .arrayBuffer(),
  );
  if (compressed.byteLength !== entry.compressedSize) throw notZip();

  let data: Uint8Array;
  if (entry.method === 0) {
    data = compressed;
  } else if (entry.method === 8) {
    try {
      data = inflateRawSync(compressed, { maxOutputLength: maxBytes });
    } catch {
      throw unreadableEntry(entry.name);
    }
  } else {
    throw unreadableEntry(entry.name);
  }
  if (data.byteLength !== entry.uncompressedSize || Bun.hash.crc32(data) !== entry.crc32) {
    throw unreadableEntry(entry.name);
  }
  return data;
}
