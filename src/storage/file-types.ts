// Content checks for uploads. Each reads only the bytes it needs from disk, so checking a
// 2 GiB APK costs a few small reads, not 2 GiB of memory.
import { type FileHandle, open } from "node:fs/promises";
import { inflateRawSync } from "node:zlib";
import { LoopSlices } from "../lib/loop-slices";
import { AppError } from "../lib/problems";
import { checkImageData, imageDataSize, type PngHeader } from "./png-image-data";

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

export interface ZipSummary {
  entryCount: number;
  /** Where the central directory starts; an APK signing block ends right before it. */
  centralDirectoryOffset: number;
  centralDirectorySize: number;
}

export interface ZipDirectory extends ZipSummary {
  entries: ZipEntry[];
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END_OF_DIRECTORY = 0x06064b50;
const DESCRIPTOR = 0x08074b50;
const ZIP64_FIELD = 0x0001;
const UNICODE_PATH_FIELD = 0x7075;
const ENCRYPTED_FLAG = 0x0001;
const DESCRIPTOR_FLAG = 0x0008;
const UTF8_FLAG = 0x0800;
/** The flags that change how an entry is read: local and central header must agree on them. */
const LOCAL_FLAGS = ENCRYPTED_FLAG | DESCRIPTOR_FLAG | UTF8_FLAG;
/** The footer of an APK Signing Block (the zip walk lets it stand before the directory; apk-signing.ts reads it). */
export const SIGNING_BLOCK_MAGIC = "APK Sig Block 42";
/**
 * Zeros that may precede an APK Signing Block: apksigner pads the entries to a 4096-byte page,
 * the AOSP test APKs carry 5,710 bytes. Zeros hide nothing; the bound keeps the read small.
 */
const MAX_SIGNING_BLOCK_PADDING = 64 * 1024;
const EOCD_SIZE = 22;
/** The EOCD record plus the longest comment it may carry. */
const EOCD_SEARCH = EOCD_SIZE + 0xffff;
/** A central directory this large means millions of entries: not an upload we want to parse in memory. */
const MAX_CENTRAL_DIRECTORY = 64 * 1024 * 1024;
/** How much of the central directory one read takes. */
const DIRECTORY_CHUNK = 1024 * 1024;
/** The least one read of local headers takes. */
const READ_WINDOW = 64 * 1024;
/** Read with a local header in the same go; a longer extra field costs a second read. */
const LOCAL_EXTRA_GUESS = 256;
const DEFAULT_MAX_ENTRY_BYTES = 16 * 1024 * 1024;
/** The widest and the tallest cover taken, in pixels. */
export const MAX_COVER_SIDE = 10_000;
/**
 * The most pixels a cover may have in all: a 40 MP cover is already far beyond any screen, and
 * what a device decodes it to (4 bytes a pixel: 160 MB) is what an app can still allocate.
 */
export const MAX_COVER_PIXELS = 40_000_000;

const notPng = () => new AppError("UNSUPPORTED_MEDIA_TYPE", "The file is not a PNG image.");
export const tooManyPixels = () =>
  new AppError(
    "UNSUPPORTED_MEDIA_TYPE",
    `The image is larger than ${MAX_COVER_SIDE} × ${MAX_COVER_SIDE} pixels or has more than ${MAX_COVER_PIXELS} pixels.`,
  );
const notZip = () => new AppError("UNSUPPORTED_MEDIA_TYPE", "The file is not a zip archive.");
const inconsistentZip = () =>
  new AppError(
    "UNSUPPORTED_MEDIA_TYPE",
    "The zip archive's central directory does not match its local headers.",
  );
const damagedSigningBlock = () =>
  new AppError("UNSUPPORTED_MEDIA_TYPE", "The APK signature block before the central directory is damaged.");
const unsafeEntryName = (name: string) =>
  new AppError(
    "UNSUPPORTED_MEDIA_TYPE",
    `The zip archive entry ${JSON.stringify(name.slice(0, 200))} has an absolute path, a ".." segment or a backslash.`,
  );
const linkEntry = (name: string) =>
  new AppError(
    "UNSUPPORTED_MEDIA_TYPE",
    `The zip archive entry ${JSON.stringify(name.slice(0, 200))} is a symbolic link.`,
  );
const unreadableEntry = (name: string) =>
  new AppError("UNSUPPORTED_MEDIA_TYPE", `The zip archive entry ${name} cannot be read.`);

/**
 * Reads the bytes from `start` to `end` (exclusive) of one file, wherever it is: a temp file on
 * disk, a stored blob (storage/blob-store.ts readRange). Fewer bytes at the end of the file.
 */
export type ReadAt = (start: number, end: number) => Promise<DataView>;

async function readBytes(path: string, start: number, end: number): Promise<DataView> {
  const buffer = await Bun.file(path).slice(start, end).arrayBuffer();
  // A file shorter than it claims yields fewer bytes; callers treat that as truncation.
  return new DataView(buffer);
}

/** A ReadAt over a file on disk. */
export function readAtPath(path: string): ReadAt {
  return (start, end) => readBytes(path, start, end);
}

/**
 * A cover: a PNG whose header is sound, whose size is within the caps, and whose image data
 * inflates to exactly the size the header declares (png-image-data.ts).
 */
export async function inspectPng(path: string, size: number): Promise<{ width: number; height: number }> {
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
  // The header's claim is what every client that shows the cover would try to allocate.
  if (width > MAX_COVER_SIDE || height > MAX_COVER_SIDE || width * height > MAX_COVER_PIXELS)
    throw tooManyPixels();
  const header: PngHeader = {
    width,
    height,
    bitDepth: view.getUint8(24),
    colorType: view.getUint8(25),
    interlace: view.getUint8(28),
  };
  const expected = imageDataSize(header, view.getUint8(26), view.getUint8(27));
  if (expected === null) throw notPng();
  await checkImageData(path, size, header, expected);
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
  /** Where the end records start: the central directory must end exactly there. */
  limit: number;
}

/** The classic end record's own fields; saturated ones defer to a ZIP64 record. */
interface EndRecord {
  entryCount: number;
  size: number;
  offset: number;
}

async function readZip64Bounds(
  readAt: ReadAt,
  tail: DataView,
  tailStart: number,
  at: number,
  end: EndRecord,
): Promise<DirectoryBounds | null> {
  const locatorAt = at - 20;
  if (locatorAt < 0 || tail.getUint32(locatorAt, true) !== ZIP64_LOCATOR) return null;
  const recordOffset = u64(tail, locatorAt + 8);
  const locatorOffset = tailStart + locatorAt;
  if (recordOffset + 56 > locatorOffset) throw notZip();
  const record = await readAt(recordOffset, recordOffset + 56);
  if (record.byteLength < 56 || record.getUint32(0, true) !== ZIP64_END_OF_DIRECTORY) throw notZip();
  // Multi-disk archives are not something anyone uploads on purpose.
  if (record.getUint32(16, true) !== 0 || record.getUint32(20, true) !== 0) throw notZip();
  const bounds = {
    entryCount: u64(record, 32),
    size: u64(record, 40),
    offset: u64(record, 48),
    limit: recordOffset,
  };
  // A reader that ignores the ZIP64 record goes by the classic one: both must tell one story.
  const agrees = (classic: number, saturated: number, zip64: number) =>
    classic === saturated || classic === zip64;
  if (
    u64(record, 24) !== bounds.entryCount ||
    !agrees(end.entryCount, 0xffff, bounds.entryCount) ||
    !agrees(end.size, 0xffffffff, bounds.size) ||
    !agrees(end.offset, 0xffffffff, bounds.offset)
  ) {
    throw inconsistentZip();
  }
  return bounds;
}

async function readDirectoryBounds(readAt: ReadAt, size: number): Promise<DirectoryBounds> {
  const tailStart = Math.max(0, size - EOCD_SEARCH);
  const tail = await readAt(tailStart, size);
  if (tail.byteLength !== size - tailStart) throw notZip();
  const at = findEndOfDirectory(tail, tailStart, size);

  const disk = tail.getUint16(at + 4, true);
  const directoryDisk = tail.getUint16(at + 6, true);
  const entriesOnDisk = tail.getUint16(at + 8, true);
  const end: EndRecord = {
    entryCount: tail.getUint16(at + 10, true),
    size: tail.getUint32(at + 12, true),
    offset: tail.getUint32(at + 16, true),
  };
  if (disk !== 0 || directoryDisk !== 0 || entriesOnDisk !== end.entryCount) throw notZip();

  const zip64 = await readZip64Bounds(readAt, tail, tailStart, at, end);
  if (zip64) return zip64;
  // Saturated fields promise a ZIP64 record that is not there.
  if (end.entryCount === 0xffff || end.size === 0xffffffff || end.offset === 0xffffffff) throw notZip();
  return { ...end, limit: tailStart + at };
}

/** The sizes and offset too large for their 32-bit fields, from a ZIP64 extra field's data. */
function applyZip64Extra(view: DataView, at: number, end: number, entry: ZipEntry): void {
  let field = at;
  const next = () => {
    if (field + 8 > end) throw notZip();
    const value = u64(view, field);
    field += 8;
    return value;
  };
  // Only the saturated values are there, in this fixed order.
  if (entry.uncompressedSize === 0xffffffff) entry.uncompressedSize = next();
  if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
  if (entry.localHeaderOffset === 0xffffffff) entry.localHeaderOffset = next();
}

/** Calls `visit` with the start and end of each field of an extra-field block. */
function eachExtraField(
  view: DataView,
  start: number,
  length: number,
  visit: (id: number, dataStart: number, dataEnd: number) => void,
): void {
  let at = start;
  const end = start + length;
  while (at + 4 <= end) {
    const dataEnd = at + 4 + view.getUint16(at + 2, true);
    if (dataEnd > end) throw notZip();
    visit(view.getUint16(at, true), at + 4, dataEnd);
    at = dataEnd;
  }
}

const utf8 = new TextDecoder("utf-8");
// Names without the UTF-8 flag are officially CP437; latin1 reads their ASCII subset the same,
// and every character the name check looks for is ASCII.
const latin1 = new TextDecoder("latin1");
const DRIVE_LETTER = /^[A-Za-z]:/;
/** The file type bits of a Unix mode, and the type of a symbolic link (S_IFMT, S_IFLNK). */
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/**
 * Refuses a name that would put the entry outside the folder it is unpacked into: absolute
 * (`/etc/x`, `C:\x`, `C:x`), with a `..` segment, or with a backslash, which Windows tools take
 * for a separator and which no portable archive uses.
 */
function checkEntryName(name: string): void {
  if (
    name.startsWith("/") ||
    DRIVE_LETTER.test(name) ||
    name.includes("\\") ||
    name.split("/").includes("..")
  ) {
    throw unsafeEntryName(name);
  }
}

/**
 * Info-ZIP's Unicode Path field (0x7075) carries a second name that unzip and others prefer
 * over the header's, so it is held to the same rule. Its data: version, the CRC of the header
 * name, then the name in UTF-8.
 */
function checkUnicodePath(view: DataView, start: number, length: number): void {
  eachExtraField(view, start, length, (id, dataStart, dataEnd) => {
    if (id !== UNICODE_PATH_FIELD || dataEnd - dataStart < 5) return;
    checkEntryName(
      utf8.decode(new Uint8Array(view.buffer, view.byteOffset + dataStart + 5, dataEnd - dataStart - 5)),
    );
  });
}

/** One central directory header at `at`, or null when `view` ends before it does. */
function readCentralHeader(
  view: DataView,
  at: number,
): { entry: ZipEntry; nameBytes: Uint8Array; next: number } | null {
  if (at + 46 > view.byteLength) return null;
  if (view.getUint32(at, true) !== CENTRAL_HEADER) throw notZip();
  const flags = view.getUint16(at + 8, true);
  const nameLength = view.getUint16(at + 28, true);
  const extraLength = view.getUint16(at + 30, true);
  const nameStart = at + 46;
  const next = nameStart + nameLength + extraLength + view.getUint16(at + 32, true);
  if (next > view.byteLength) return null;
  const nameBytes = new Uint8Array(view.buffer, view.byteOffset + nameStart, nameLength);
  const entry: ZipEntry = {
    name: (flags & UTF8_FLAG ? utf8 : latin1).decode(nameBytes),
    method: view.getUint16(at + 10, true),
    flags,
    crc32: view.getUint32(at + 16, true),
    compressedSize: view.getUint32(at + 20, true),
    uncompressedSize: view.getUint32(at + 24, true),
    localHeaderOffset: view.getUint32(at + 42, true),
  };
  eachExtraField(view, nameStart + nameLength, extraLength, (id, dataStart, dataEnd) => {
    if (id === ZIP64_FIELD) applyZip64Extra(view, dataStart, dataEnd, entry);
  });
  checkEntryName(entry.name);
  checkUnicodePath(view, nameStart + nameLength, extraLength);
  // The high half of the external attributes is the Unix mode (Info-ZIP, Python, Go, libarchive).
  // unzip and bsdtar make a symlink entry a link on disk, whose target, its data, may point
  // anywhere: outside the folder, or at a file a later entry then writes through. Checked
  // whatever the "made by" host says, as some writers set the mode without saying Unix.
  if (((view.getUint32(at + 38, true) >>> 16) & S_IFMT) === S_IFLNK) throw linkEntry(entry.name);
  return { entry, nameBytes, next };
}

/**
 * Reads parts of one open file through a window it reuses: the local records of small entries
 * follow one another, so one read serves many of them, and a walk allocates once.
 */
class FileReader {
  private buffer = Buffer.allocUnsafe(READ_WINDOW);
  private windowStart = 0;
  private windowLength = 0;

  constructor(private readonly handle: FileHandle) {}

  /** `length` bytes from `position` (fewer at the end of the file); valid until the next read. */
  async read(position: number, length: number): Promise<DataView> {
    if (position < this.windowStart || position + length > this.windowStart + this.windowLength) {
      const wanted = Math.max(length, READ_WINDOW);
      if (this.buffer.byteLength < wanted) this.buffer = Buffer.allocUnsafe(wanted);
      const { bytesRead } = await this.handle.read(this.buffer, 0, wanted, position);
      this.windowStart = position;
      this.windowLength = bytesRead;
    }
    const offset = position - this.windowStart;
    const available = Math.max(0, Math.min(length, this.windowLength - offset));
    return new DataView(this.buffer.buffer, this.buffer.byteOffset + offset, available);
  }
}

/**
 * Checks the local header (and data descriptor) of `entry` against its central directory
 * header: a reader that walks the local headers, as streaming unzips do, must find the same
 * entry, with the same name, method and sizes, that a reader of the directory finds. Returns
 * where the entry's record ends, which is where the next one must begin.
 */
async function checkLocalRecord(
  reader: FileReader,
  entry: ZipEntry,
  nameBytes: Uint8Array,
  directoryOffset: number,
): Promise<number> {
  const at = entry.localHeaderOffset;
  const header = await reader.read(at, 30 + nameBytes.byteLength + LOCAL_EXTRA_GUESS);
  if (header.byteLength < 30 || header.getUint32(0, true) !== LOCAL_HEADER) throw inconsistentZip();
  const nameLength = header.getUint16(26, true);
  const extraLength = header.getUint16(28, true);
  const dataStart = at + 30 + nameLength + extraLength;
  if (
    (header.getUint16(6, true) & LOCAL_FLAGS) !== (entry.flags & LOCAL_FLAGS) ||
    header.getUint16(8, true) !== entry.method ||
    nameLength !== nameBytes.byteLength
  ) {
    throw inconsistentZip();
  }
  const local =
    30 + nameLength + extraLength <= header.byteLength
      ? header
      : await reader.read(at, 30 + nameLength + extraLength);
  if (local.byteLength < 30 + nameLength + extraLength) throw inconsistentZip();
  for (let i = 0; i < nameLength; i++) {
    if (local.getUint8(30 + i) !== nameBytes[i]) throw inconsistentZip();
  }
  checkUnicodePath(local, 30 + nameLength, extraLength);

  const sizes = {
    crc32: local.getUint32(14, true),
    compressedSize: local.getUint32(18, true),
    uncompressedSize: local.getUint32(22, true),
  };
  let zip64 = false;
  eachExtraField(local, 30 + nameLength, extraLength, (id, fieldStart, fieldEnd) => {
    if (id !== ZIP64_FIELD) return;
    zip64 = true;
    // In a local header the ZIP64 field holds both sizes, uncompressed first.
    if (fieldEnd - fieldStart < 16) return;
    if (sizes.uncompressedSize === 0xffffffff) sizes.uncompressedSize = u64(local, fieldStart);
    if (sizes.compressedSize === 0xffffffff) sizes.compressedSize = u64(local, fieldStart + 8);
  });

  const dataEnd = dataStart + entry.compressedSize;
  if (!(entry.flags & DESCRIPTOR_FLAG)) {
    if (!sameSizes(sizes, entry)) throw inconsistentZip();
    if (dataEnd > directoryOffset) throw inconsistentZip();
    return dataEnd;
  }
  // The sizes follow the data, in a descriptor: 4-byte sizes, or 8-byte ones when the local
  // header has a ZIP64 field (some writers differ, so the other width is the fallback).
  const descriptor = await reader.read(dataEnd, 24);
  const signed = descriptor.byteLength >= 4 && descriptor.getUint32(0, true) === DESCRIPTOR;
  const base = signed ? 4 : 0;
  for (const wide of zip64 ? [true, false] : [false, true]) {
    const length = base + (wide ? 20 : 12);
    if (descriptor.byteLength < length || dataEnd + length > directoryOffset) continue;
    const found = {
      crc32: descriptor.getUint32(base, true),
      compressedSize: wide ? u64(descriptor, base + 4) : descriptor.getUint32(base + 4, true),
      uncompressedSize: wide ? u64(descriptor, base + 12) : descriptor.getUint32(base + 8, true),
    };
    if (sameSizes(found, entry)) return dataEnd + length;
  }
  throw inconsistentZip();
}

function sameSizes(
  a: Pick<ZipEntry, "crc32" | "compressedSize" | "uncompressedSize">,
  b: Pick<ZipEntry, "crc32" | "compressedSize" | "uncompressedSize">,
): boolean {
  return (
    a.crc32 === b.crc32 && a.compressedSize === b.compressedSize && a.uncompressedSize === b.uncompressedSize
  );
}

/**
 * Whether the bytes from `start` to the central directory are an APK Signing Block (the one
 * thing that may sit between the last entry and the directory; apk-signing.ts reads it), after
 * at most MAX_SIGNING_BLOCK_PADDING zeros. A block whose magic is there but whose sizes or
 * padding are not is refused as a damaged signature, not as some other zip fault: the uploader
 * of a signed APK learns what to fix.
 */
async function isSigningBlock(reader: FileReader, start: number, directoryOffset: number): Promise<boolean> {
  if (directoryOffset - start < 32) return false;
  const footer = await reader.read(directoryOffset - 24, 24);
  if (footer.byteLength < 24) return false;
  const magic = new Uint8Array(footer.buffer, footer.byteOffset + 8, 16);
  if (latin1.decode(magic) !== SIGNING_BLOCK_MAGIC) return false;
  // The size counts everything but its own leading copy. Taken now: the next read reuses the buffer.
  const size = u64(footer, 0);
  const blockStart = directoryOffset - 8 - size;
  if (blockStart < start || blockStart - start > MAX_SIGNING_BLOCK_PADDING) throw damagedSigningBlock();
  const head = await reader.read(start, blockStart - start + 8);
  if (head.byteLength !== blockStart - start + 8 || u64(head, blockStart - start) !== size)
    throw damagedSigningBlock();
  for (let i = 0; i < blockStart - start; i++) if (head.getUint8(i) !== 0) throw damagedSigningBlock();
  return true;
}

/**
 * Walks a zip archive as a reader of its central directory and a reader of its local headers
 * would, and refuses it (415) unless both see the same entries: the end records agree with the
 * file's size and each other, every entry has a safe name and is no symbolic link, and the entries' local records follow
 * one another from the first byte to the central directory without a gap or an overlap. Reads the
 * end of the file, the directory in chunks and each local header: memory stays bounded whatever
 * the archive's size, and the time is linear in the number of entries.
 */
async function walkZip(
  path: string,
  size: number,
  visit: (entry: ZipEntry) => void,
): Promise<{ offset: number; size: number }> {
  if (size < 30 + EOCD_SIZE) throw notZip();
  const head = await readBytes(path, 0, 4);
  if (head.byteLength < 4 || head.getUint32(0, true) !== LOCAL_HEADER) throw notZip();

  const bounds = await readDirectoryBounds(readAtPath(path), size);
  if (bounds.size > MAX_CENTRAL_DIRECTORY || bounds.offset + bounds.size > bounds.limit) throw notZip();
  if (bounds.offset + bounds.size !== bounds.limit) throw inconsistentZip();
  // 46 bytes is the smallest central directory header.
  if (bounds.entryCount * 46 > bounds.size) throw inconsistentZip();

  const handle = await open(path, "r");
  try {
    const directory = new FileReader(handle);
    const locals = new FileReader(handle);
    let count = 0;
    // Where the next local record must start: the archive's first byte, then each record's end.
    let expected = 0;
    let chunkStart = bounds.offset;
    const directoryEnd = bounds.offset + bounds.size;
    while (chunkStart < directoryEnd) {
      const chunk = await directory.read(chunkStart, Math.min(DIRECTORY_CHUNK, directoryEnd - chunkStart));
      let at = 0;
      for (let header = readCentralHeader(chunk, at); header; header = readCentralHeader(chunk, at)) {
        if (++count > bounds.entryCount) throw inconsistentZip();
        if (header.entry.localHeaderOffset !== expected) throw inconsistentZip();
        expected = await checkLocalRecord(locals, header.entry, header.nameBytes, bounds.offset);
        visit(header.entry);
        at = header.next;
      }
      // A header cut by the chunk's end is read again at the start of the next chunk; one that
      // does not fit even a whole chunk runs past the directory's end.
      if (at === 0) throw notZip();
      chunkStart += at;
    }
    if (count !== bounds.entryCount) throw inconsistentZip();
    if (expected !== bounds.offset && !(await isSigningBlock(locals, expected, bounds.offset))) {
      throw inconsistentZip();
    }
  } finally {
    await handle.close();
  }
  return { offset: bounds.offset, size: bounds.size };
}

/**
 * The check for book version archives: a zip archive that walkZip accepts. The entries are not
 * kept, so an archive of a million entries costs no more memory than one of ten.
 */
export async function inspectArchive(path: string, size: number): Promise<ZipSummary> {
  let entryCount = 0;
  const directory = await walkZip(path, size, () => {
    entryCount++;
  });
  return { entryCount, centralDirectoryOffset: directory.offset, centralDirectorySize: directory.size };
}

/** A zip archive that walkZip accepts, with the list of its entries. */
export async function inspectZip(path: string, size: number): Promise<ZipDirectory> {
  const entries: ZipEntry[] = [];
  const directory = await walkZip(path, size, (entry) => entries.push(entry));
  return {
    entries,
    entryCount: entries.length,
    centralDirectoryOffset: directory.offset,
    centralDirectorySize: directory.size,
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
export function readZipEntry(
  path: string,
  entry: ZipEntry,
  maxBytes = DEFAULT_MAX_ENTRY_BYTES,
): Promise<Uint8Array> {
  return readZipEntryAt(readAtPath(path), entry, maxBytes);
}

/** readZipEntry through any ReadAt (a stored blob's ranged reads). */
export async function readZipEntryAt(
  readAt: ReadAt,
  entry: ZipEntry,
  maxBytes = DEFAULT_MAX_ENTRY_BYTES,
): Promise<Uint8Array> {
  if (entry.uncompressedSize > maxBytes || entry.compressedSize > maxBytes) throw unreadableEntry(entry.name);
  // Encrypted entries cannot be read without a password.
  if (entry.flags & ENCRYPTED_FLAG) throw unreadableEntry(entry.name);

  const header = await readAt(entry.localHeaderOffset, entry.localHeaderOffset + 30);
  if (header.byteLength < 30 || header.getUint32(0, true) !== LOCAL_HEADER) throw notZip();
  // The local name and extra field may differ in length from the central copies.
  const dataStart = entry.localHeaderOffset + 30 + header.getUint16(26, true) + header.getUint16(28, true);
  const read = await readAt(dataStart, dataStart + entry.compressedSize);
  const compressed = new Uint8Array(read.buffer, read.byteOffset, read.byteLength);
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

/**
 * Calls `visit` with each entry of the central directory of an archive that inspectArchive
 * accepted once (a stored one), until `visit` answers true. Reads the end records and the
 * directory in chunks, not the local headers: memory stays bounded by one chunk, the time linear
 * in the number of entries.
 */
export async function scanZipDirectory(
  readAt: ReadAt,
  size: number,
  visit: (entry: ZipEntry) => boolean,
): Promise<void> {
  if (size < 30 + EOCD_SIZE) throw notZip();
  const bounds = await readDirectoryBounds(readAt, size);
  if (bounds.size > MAX_CENTRAL_DIRECTORY || bounds.offset + bounds.size > bounds.limit) throw notZip();
  let chunkStart = bounds.offset;
  const directoryEnd = bounds.offset + bounds.size;
  // A chunk holds thousands of headers: the loop gets a turn every few milliseconds of them.
  const slices = new LoopSlices();
  let count = 0;
  while (chunkStart < directoryEnd) {
    // Each read answers fresh bytes, so the chunk stays valid across the pauses.
    const chunk = await readAt(chunkStart, Math.min(chunkStart + DIRECTORY_CHUNK, directoryEnd));
    let at = 0;
    for (let header = readCentralHeader(chunk, at); header; header = readCentralHeader(chunk, at)) {
      if (visit(header.entry)) return;
      at = header.next;
      if (++count % 256 === 0) await slices.pause();
    }
    if (at === 0) throw notZip();
    chunkStart += at;
  }
}
