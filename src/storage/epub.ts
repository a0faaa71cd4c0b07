// EPUB recognition (README "Book versions: archives and EPUBs"): whether a zip archive that was
// accepted as one is an EPUB, and what its package document says about the book. Reads three
// small entries through ranged reads — `mimetype`, META-INF/container.xml, the package document —
// each capped at 1 MiB, never the whole archive; an archive that claims to be an EPUB but whose
// package document cannot be read is a plain zip, not a refused upload.
import { SaxesParser, type SaxesTagNS } from "saxes";
import { AppError } from "../lib/problems";
import { type ReadAt, readZipEntryAt, scanZipDirectory, type ZipEntry } from "./file-types";

export type ArchiveFormat = "epub" | "zip";

/** What the package document says (BookVersion.archive.epub). */
export interface EpubMetadata {
  title: string;
  creators: string[];
  language: string;
  /** The dc:identifier the package's unique-identifier names. */
  identifier: string;
  /** EPUB 3's `dcterms:modified`, as written there; null for EPUB 2 or when absent. */
  modified: string | null;
}

export interface ArchiveRecognition {
  format: ArchiveFormat;
  epub: EpubMetadata | null;
  /**
   * For an EPUB: whether `mimetype` is the archive's first entry, stored, holding exactly
   * `application/epub+zip` (the OCF rule); false when it was recognised leniently.
   */
  strict: boolean;
}

const MIMETYPE = "application/epub+zip";
const CONTAINER = "META-INF/container.xml";
/** Container and package documents are a few KiB; more is not a document we read. */
export const MAX_EPUB_DOCUMENT_BYTES = 1024 * 1024;
/** `mimetype` holds 20 bytes; a little slack for the lenient reading's whitespace. */
const MAX_MIMETYPE_BYTES = 1024;
/** Caps on what one record keeps: a package document of 1 MiB could hold thousands of creators. */
const MAX_TEXT_CHARS = 1000;
const MAX_CREATORS = 50;

const CONTAINER_NS = "urn:oasis:names:tc:opendocument:xmlns:container";
const OPF_NS = "http://www.idpf.org/2007/opf";
const DC_NS = "http://purl.org/dc/elements/1.1/";

const ZIP: ArchiveRecognition = { format: "zip", epub: null, strict: false };

/** The archive's content is not a readable EPUB: it is recorded as a zip. */
class NotEpub extends Error {}

/** Reads one entry within `maxBytes`; a content fault (too big, corrupt, encrypted) is NotEpub. */
async function readEntry(readAt: ReadAt, entry: ZipEntry, maxBytes: number): Promise<Uint8Array> {
  try {
    return await readZipEntryAt(readAt, entry, maxBytes);
  } catch (error) {
    if (error instanceof AppError && error.code === "UNSUPPORTED_MEDIA_TYPE")
      throw new NotEpub(error.message);
    throw error;
  }
}

/** The first directory entry named `name` (or its percent-decoded form), or undefined. */
async function findEntry(readAt: ReadAt, size: number, name: string): Promise<ZipEntry | undefined> {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {}
  let found: ZipEntry | undefined;
  await scanZipDirectory(readAt, size, (entry) => {
    if (entry.name !== name && entry.name !== decoded) return false;
    found = entry;
    return true;
  });
  return found;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Parses a small XML document with saxes: well-formedness is checked, time is linear in its
 * length, and no entity is ever expanded beyond XML's five and character references — a DOCTYPE
 * with an internal subset (where entities are declared) is refused outright, and a reference to
 * any other entity is a parse error.
 */
function parseXml(
  bytes: Uint8Array,
  onOpen: (tag: SaxesTagNS) => void,
  onText: (text: string) => void,
  onClose: (tag: SaxesTagNS) => void,
): void {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new NotEpub("not UTF-8");
  }
  const parser = new SaxesParser({ xmlns: true, position: false });
  parser.on("error", (error) => {
    throw new NotEpub(error.message);
  });
  parser.on("doctype", (doctype) => {
    if (doctype.includes("[")) throw new NotEpub("a DOCTYPE with an internal subset");
  });
  parser.on("opentag", onOpen);
  parser.on("text", onText);
  parser.on("cdata", onText);
  parser.on("closetag", onClose);
  parser.write(text).close();
}

/** The first rootfile's full-path in container.xml. */
function rootfilePath(bytes: Uint8Array): string {
  let path: string | undefined;
  parseXml(
    bytes,
    (tag) => {
      if (path !== undefined || tag.uri !== CONTAINER_NS || tag.local !== "rootfile") return;
      path = tag.attributes["full-path"]?.value;
    },
    () => {},
    () => {},
  );
  if (!path) throw new NotEpub("container.xml names no rootfile");
  return path;
}

/** Whitespace collapsed, as reading systems show metadata; capped. */
function clean(text: string): string {
  return text
    .replace(/[\t\n\r ]+/g, " ")
    .trim()
    .slice(0, MAX_TEXT_CHARS);
}

/** The metadata of a package document (OPF 2.0 or 3.x). */
export function packageMetadata(bytes: Uint8Array): EpubMetadata {
  let root: SaxesTagNS | undefined;
  let uniqueId = "";
  let version = "";
  let inMetadata = false;
  // The element whose text is being collected, and what it collects into.
  let collecting: { tag: SaxesTagNS; text: string } | undefined;
  const found = {
    titles: [] as string[],
    creators: [] as string[],
    languages: [] as string[],
    identifiers: [] as { id: string | undefined; value: string }[],
    modified: [] as string[],
  };
  parseXml(
    bytes,
    (tag) => {
      if (!root) {
        root = tag;
        if (tag.uri !== OPF_NS || tag.local !== "package") throw new NotEpub("the root is not <package>");
        uniqueId = tag.attributes["unique-identifier"]?.value ?? "";
        version = tag.attributes.version?.value ?? "";
        return;
      }
      if (tag.uri === OPF_NS && tag.local === "metadata") inMetadata = true;
      if (!inMetadata || collecting) return;
      const dc = tag.uri === DC_NS && ["title", "creator", "language", "identifier"].includes(tag.local);
      const modified =
        tag.uri === OPF_NS &&
        tag.local === "meta" &&
        tag.attributes.property?.value === "dcterms:modified" &&
        !tag.attributes.refines;
      if (dc || modified) collecting = { tag, text: "" };
    },
    (text) => {
      // Bounded: the document is at most 1 MiB, and text is cut once it is far past the cap.
      if (collecting && collecting.text.length < MAX_TEXT_CHARS * 4) collecting.text += text;
    },
    (tag) => {
      if (tag.uri === OPF_NS && tag.local === "metadata") inMetadata = false;
      if (!collecting || collecting.tag !== tag) return;
      const value = clean(collecting.text);
      collecting = undefined;
      if (!value) return;
      if (tag.uri === OPF_NS) found.modified.push(value);
      else if (tag.local === "title") found.titles.push(value);
      else if (tag.local === "creator") found.creators.push(value);
      else if (tag.local === "language") found.languages.push(value);
      else found.identifiers.push({ id: tag.attributes.id?.value, value });
    },
  );
  if (!root) throw new NotEpub("no package element");
  const identifier =
    found.identifiers.find((candidate) => uniqueId !== "" && candidate.id === uniqueId) ??
    found.identifiers[0];
  return {
    title: found.titles[0] ?? "",
    creators: found.creators.slice(0, MAX_CREATORS),
    language: found.languages[0] ?? "",
    identifier: identifier?.value ?? "",
    // dcterms:modified is EPUB 3's; an EPUB 2 package has no such property.
    modified: version.startsWith("3") ? (found.modified[0] ?? null) : null,
  };
}

/** `mimetype`'s verdict: strict (OCF), lenient (not first, compressed, whitespace) or none. */
async function mimetypeOf(readAt: ReadAt, entry: ZipEntry): Promise<"strict" | "lenient" | null> {
  const bytes = await readEntry(readAt, entry, MAX_MIMETYPE_BYTES);
  const text = new TextDecoder("latin1").decode(bytes);
  if (text === MIMETYPE && entry.method === 0 && entry.localHeaderOffset === 0) return "strict";
  return text.trim() === MIMETYPE ? "lenient" : null;
}

/**
 * Whether the archive (one that inspectArchive accepted, at `readAt`, `size` bytes) is an EPUB,
 * and its package document's metadata. Reads the central directory at most twice and three
 * entries of at most 1 MiB each. Throws only for a failure to read (a bucket that does not
 * answer), never for the archive's content.
 */
export async function recogniseArchive(readAt: ReadAt, size: number): Promise<ArchiveRecognition> {
  try {
    let mimetype: ZipEntry | undefined;
    let container: ZipEntry | undefined;
    await scanZipDirectory(readAt, size, (entry) => {
      if (entry.name === "mimetype") mimetype ??= entry;
      else if (entry.name === CONTAINER) container ??= entry;
      return mimetype !== undefined && container !== undefined;
    });
    if (!mimetype || !container) return ZIP;
    const verdict = await mimetypeOf(readAt, mimetype);
    if (!verdict) return ZIP;
    const packagePath = rootfilePath(await readEntry(readAt, container, MAX_EPUB_DOCUMENT_BYTES));
    const opf = await findEntry(readAt, size, packagePath);
    if (!opf) return ZIP;
    const epub = packageMetadata(await readEntry(readAt, opf, MAX_EPUB_DOCUMENT_BYTES));
    return { format: "epub", epub, strict: verdict === "strict" };
  } catch (error) {
    if (error instanceof NotEpub) return ZIP;
    // scanZipDirectory's own faults on an archive inspectArchive once accepted: not an EPUB either.
    if (error instanceof AppError && error.code === "UNSUPPORTED_MEDIA_TYPE") return ZIP;
    throw error;
  }
}
