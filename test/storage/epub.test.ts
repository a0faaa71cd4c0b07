// EPUB recognition (storage/epub.ts) over real archives: the fixtures, which Debian's epubcheck
// judges as the test says, and zips that only pretend to be EPUBs, which are plain zips.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_EPUB_DOCUMENT_BYTES, recogniseArchive } from "../../src/storage/epub";
import { inspectArchive, type ReadAt, readAtPath } from "../../src/storage/file-types";
import { buildEpub, EPUB_SOURCES, type EpubOptions, epubFiles } from "../helpers/epub";
import { requires } from "../helpers/requires";
import { makeZip } from "../helpers/zip";

let dir: string;
let count = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "bookdist-epub-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function write(bytes: Uint8Array, name = `a${count++}.epub`): Promise<string> {
  const path = join(dir, name);
  await Bun.write(path, bytes);
  return path;
}

/** Recognises the archive as an upload does: inspectArchive accepts it first. */
async function recognise(bytes: Uint8Array) {
  const path = await write(bytes);
  await inspectArchive(path, bytes.byteLength);
  return recogniseArchive(readAtPath(path), bytes.byteLength);
}

const epub3 = {
  title: "The Little Test Book",
  creators: ["Ada Lovelace", "Charles Babbage"],
  language: "en",
  identifier: "urn:uuid:6f1c2d3e-4a5b-4c6d-8e7f-901234567890",
  modified: "2026-11-01T10:00:00Z",
};

describe("EPUBs", () => {
  test("EPUB 3: strict, the unique identifier the package names, dcterms:modified", async () => {
    expect(await recognise(buildEpub("epub3"))).toEqual({ format: "epub", epub: epub3, strict: true });
  });

  test("EPUB 2: entities decoded, the identifier named by unique-identifier, no modified", async () => {
    expect(await recognise(buildEpub("epub2"))).toEqual({
      format: "epub",
      epub: {
        title: "Pride & Prejudice",
        creators: ["Jane Austen"],
        language: "en-GB",
        identifier: "urn:uuid:0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        modified: null,
      },
      strict: true,
    });
  });

  test("non-ASCII metadata under another dc prefix, CDATA kept as text", async () => {
    expect(await recognise(buildEpub("unicode"))).toEqual({
      format: "epub",
      epub: {
        title: "Žluťoučký kůň — Ünïcødé",
        creators: ["村上 春樹", "Dvořák & <Syn>"],
        language: "cs",
        identifier: "urn:uuid:9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a",
        modified: "2026-10-31T23:59:59Z",
      },
      strict: true,
    });
  });

  test("a DOCTYPE without an internal subset is read; an unnamed unique identifier falls back to the first", async () => {
    const opf = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE package PUBLIC "+//ISBN 0-9673008-1-9//DTD OEB 1.2 Package//EN" "http://openebook.org/dtds/oeb-1.2/oebpkg12.dtd">
<package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="nowhere">
  <metadata><dc-metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:Title>ignored: DC element names are lower case</dc:Title>
    <dc:title>Old &#x2014; Style</dc:title><dc:identifier>first</dc:identifier><dc:identifier>second</dc:identifier>
  </dc-metadata></metadata>
</package>`;
    expect((await recognise(buildEpub("epub2", { replace: { "OEBPS/content.opf": opf } }))).epub).toEqual({
      title: "Old — Style",
      creators: [],
      language: "",
      identifier: "first",
      modified: null,
    });
  });

  const lenient: [string, EpubOptions][] = [
    ["a compressed mimetype", { compressMimetype: true }],
    ["mimetype as the last entry", { mimetypeLast: true }],
    ["a trailing newline in mimetype", { mimetype: "application/epub+zip\r\n" }],
  ];
  for (const [what, options] of lenient) {
    test(`lenient: ${what}`, async () => {
      expect(await recognise(buildEpub("epub3", options))).toEqual({
        format: "epub",
        epub: epub3,
        strict: false,
      });
    });
  }
});

describe("zips that only pretend", () => {
  const opf = "EPUB/package.opf";
  const pretenders: [string, () => Uint8Array][] = [
    ["no mimetype at all", () => makeZip({ "META-INF/container.xml": "<container/>", "a.txt": "a" })],
    ["a mimetype of another type", () => buildEpub("epub3", { mimetype: "application/zip" })],
    ["no container.xml", () => buildEpub("epub3", { replace: { "META-INF/container.xml": null } })],
    ["a container pointing to a missing package", () => buildEpub("epub3", { replace: { [opf]: null } })],
    [
      "a container naming no rootfile",
      () =>
        buildEpub("epub3", {
          replace: {
            "META-INF/container.xml":
              '<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles/></container>',
          },
        }),
    ],
    [
      "broken XML in the package",
      () => buildEpub("epub3", { replace: { [opf]: "<package><metadata></package>" } }),
    ],
    [
      "a package that is not an OPF package",
      () => buildEpub("epub3", { replace: { [opf]: '<?xml version="1.0"?><html><title>x</title></html>' } }),
    ],
    [
      "a package over 1 MiB",
      () => {
        const real = new TextDecoder().decode(epubFiles("epub3").get(opf));
        const padded = real.replace("<metadata", `<!--${"x".repeat(MAX_EPUB_DOCUMENT_BYTES)}--><metadata`);
        return buildEpub("epub3", { replace: { [opf]: padded } });
      },
    ],
    [
      "a container over 1 MiB",
      () =>
        buildEpub("epub3", {
          replace: {
            "META-INF/container.xml": `<!--${" ".repeat(MAX_EPUB_DOCUMENT_BYTES)}--><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="${opf}" media-type="application/oebps-package+xml"/></rootfiles></container>`,
          },
        }),
    ],
    [
      "entities declared in a DOCTYPE (a billion laughs)",
      () => {
        const entities = Array.from(
          { length: 9 },
          (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`,
        ).join("");
        const bomb = `<?xml version="1.0"?><!DOCTYPE package [<!ENTITY l0 "lol">${entities}]><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>&l9;</dc:title></metadata></package>`;
        return buildEpub("epub3", { replace: { [opf]: bomb } });
      },
    ],
    [
      "an entity the package never declares",
      () =>
        buildEpub("epub3", {
          replace: {
            [opf]:
              '<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>&nbsp;</dc:title></metadata></package>',
          },
        }),
    ],
    [
      "a package that is not UTF-8",
      () => buildEpub("epub3", { replace: { [opf]: new Uint8Array([0x3c, 0xff, 0xfe, 0x3e]) } }),
    ],
  ];
  for (const [what, make] of pretenders) {
    test(`${what}: a zip`, async () => {
      expect(await recognise(make())).toEqual({ format: "zip", epub: null, strict: false });
    });
  }
});

describe("reads", () => {
  test("only small ranges of the archive: never the whole of a large one", async () => {
    // A 4 MiB stored entry beside the EPUB's own: recognition must not read it.
    const big = new Uint8Array(4 * 1024 * 1024).fill(0x61);
    const bytes = buildEpub("epub3", { replace: { "EPUB/big.bin": big } });
    const path = await write(bytes);
    const file = readAtPath(path);
    let read = 0;
    const counting: ReadAt = async (start, end) => {
      const view = await file(start, end);
      read += view.byteLength;
      return view;
    };
    expect((await recogniseArchive(counting, bytes.byteLength)).format).toBe("epub");
    expect(read).toBeLessThan(64 * 1024);
  });

  test("a failure to read is an error, not a zip", async () => {
    const bytes = buildEpub("epub3");
    const failing: ReadAt = async () => {
      throw new Error("bucket unreachable");
    };
    await expect(recogniseArchive(failing, bytes.byteLength)).rejects.toThrow("bucket unreachable");
  });
});

const EPUBCHECK_JAR = "/usr/share/java/epubcheck.jar";
const hasEpubcheck = requires(
  existsSync(EPUBCHECK_JAR) && Bun.which("java") !== null,
  `${EPUBCHECK_JAR} or java not found (Debian package epubcheck)`,
);

/** epubcheck's verdict: its exit code and the message ids it reported. */
async function epubcheck(bytes: Uint8Array): Promise<{ ok: boolean; ids: string[]; output: string }> {
  const path = await write(bytes);
  const child = Bun.spawn(["java", "-jar", EPUBCHECK_JAR, "--quiet", path], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  const output = stdout + stderr;
  return {
    ok: code === 0,
    ids: [...output.matchAll(/\b(?:ERROR|FATAL|WARNING)\(([A-Z]+-\d+)\)/g)].map((m) => m[1]!),
    output,
  };
}

describe.if(hasEpubcheck)("Debian's epubcheck", () => {
  for (const source of EPUB_SOURCES) {
    test(`passes the ${source} fixture`, async () => {
      const verdict = await epubcheck(buildEpub(source));
      expect(verdict.ids).toEqual([]);
      expect(verdict.ok).toBe(true);
    }, 60_000);
  }

  test("reports the compressed mimetype (PKG-007), which bookdist takes leniently", async () => {
    const verdict = await epubcheck(buildEpub("epub3", { compressMimetype: true }));
    expect(verdict.ok).toBe(false);
    expect(verdict.ids).toEqual(["PKG-007"]);
  }, 60_000);
});
