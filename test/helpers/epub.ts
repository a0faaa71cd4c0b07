// EPUB fixtures: built from the source files in test/fixtures/epub/<name>/ (readable, diffable)
// into archives the way EPUB writers make them — `mimetype` first and stored, the rest deflated —
// or, for the lenient cases, with `mimetype` compressed or not first. Zips that only pretend to be
// EPUBs are made from the same parts with one thing broken.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { makeZipOf, type ZipInput } from "./zip";

const FIXTURES = join(import.meta.dir, "../fixtures/epub");

/** The real EPUBs: epubcheck passes all three. */
export const EPUB_SOURCES = ["epub3", "epub2", "unicode"] as const;
export type EpubSource = (typeof EPUB_SOURCES)[number];

/** The files of a fixture but `mimetype`, by path inside the archive, sorted. */
export function epubFiles(source: EpubSource): Map<string, Uint8Array> {
  const root = join(FIXTURES, source);
  const files = readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split("\\").join("/"))
    .filter((name) => name !== "mimetype")
    .sort();
  return new Map(files.map((name) => [name, new Uint8Array(readFileSync(join(root, name)))]));
}

export interface EpubOptions {
  /** `mimetype` deflated (epubcheck flags it; readers and bookdist take it). */
  compressMimetype?: boolean;
  /** `mimetype` last rather than first. */
  mimetypeLast?: boolean;
  /** What `mimetype` holds; default `application/epub+zip`. */
  mimetype?: string;
  /** Replaces (a Uint8Array or string) or drops (null) files of the fixture. */
  replace?: Record<string, string | Uint8Array | null>;
}

/** The fixture `source` as an EPUB archive. */
export function buildEpub(source: EpubSource, options: EpubOptions = {}): Uint8Array<ArrayBuffer> {
  const files = epubFiles(source);
  for (const [name, content] of Object.entries(options.replace ?? {})) {
    if (content === null) files.delete(name);
    else files.set(name, typeof content === "string" ? new TextEncoder().encode(content) : content);
  }
  const mimetype: ZipInput = {
    name: "mimetype",
    content: options.mimetype ?? "application/epub+zip",
    deflate: options.compressMimetype,
  };
  const rest: ZipInput[] = [...files].map(([name, content]) => ({ name, content, deflate: true }));
  return makeZipOf(options.mimetypeLast ? [...rest, mimetype] : [mimetype, ...rest]);
}
