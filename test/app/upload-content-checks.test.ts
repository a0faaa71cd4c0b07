// What an upload's content must be before the real server keeps it and hands it to devices (README,
// What is there): an archive whose entries could land outside the folder it is unpacked into, or
// whose central directory tells another story than its local headers, or with an entry that is a
// symbolic link, is refused with 415; so is a cover PNG of more than 10,000 × 10,000 or 40,000,000
// pixels, or whose image data does not inflate to the size its header declares. Archives people
// make with Info-ZIP, and PNGs of every colour type, still pass.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import QRCode from "qrcode";
import { adminWithBook } from "../helpers/admin-cli";
import { makePng, scanlines } from "../helpers/png";
import { type RealServer, startRealServer } from "../helpers/real-server";
import { requireTool } from "../helpers/requires";
import { expectProblem } from "../helpers/responses";
import { TEST_PASSWORD } from "../helpers/test-app";
import { concat, makeZip } from "../helpers/zip";

const ADMIN = "uploads-admin@example.com";
const hasZip = requireTool("zip", "zip");

let server: RealServer;
let token: string;
let bookId: number;
let versionId: number;
let dir: string;

beforeAll(async () => {
  server = await startRealServer();
  ({ token, bookId } = await adminWithBook(server, server.dataEnv, {
    email: ADMIN,
    password: TEST_PASSWORD,
    bookTitle: "Uploads",
  }));
  const version = await post("/bookversion", { bookId, versionCode: 1, versionName: "1.0" });
  expect(version.status).toBe(201);
  versionId = ((await version.json()) as { id: number }).id;
  dir = mkdtempSync(join(tmpdir(), "bookdist-upload-checks-"));
}, 60_000);
afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function post(path: string, json: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(json),
  });
}

async function upload(path: string, bytes: Uint8Array, filename: string): Promise<Response> {
  const form = new FormData();
  form.append("file", new Blob([bytes]), filename);
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}` },
    body: form,
  });
}

const uploadArchive = (bytes: Uint8Array) => upload(`/bookversion/${versionId}/upload`, bytes, "book.zip");
const uploadCover = (bytes: Uint8Array) => upload(`/book/${bookId}/cover`, bytes, "cover.png");

async function expectRefused(response: Response): Promise<void> {
  await expectProblem(response, 415, "UNSUPPORTED_MEDIA_TYPE");
}

/** The archive the server holds for the version now (null: none). */
async function storedArchive(): Promise<{ sha256: string } | null> {
  const response = await fetch(`${server.url}/bookversion/${versionId}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  return ((await response.json()) as { archive: { sha256: string } | null }).archive;
}

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

/** Offsets of every local header and central header in a makeZip archive, in order. */
function headersOf(bytes: Uint8Array): { locals: number[]; centrals: number[]; end: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.length - 22;
  const centrals: number[] = [];
  for (let at = view.getUint32(end + 16, true); at < end; at += 46 + view.getUint16(at + 28, true)) {
    centrals.push(at);
  }
  return { locals: centrals.map((at) => view.getUint32(at + 42, true)), centrals, end };
}

describe("book version archives", () => {
  test("entries named to escape the folder they are unpacked into are refused", async () => {
    const hostile = [
      "../../tmp/evil.txt",
      "/etc/passwd2",
      "books/../../evil.txt",
      "books/..",
      "C:/Windows/evil.txt",
      "c:evil.txt",
      "books\\evil.txt",
      "..\\evil.txt",
    ];
    for (const name of hostile) {
      const response = await uploadArchive(makeZip({ "readme.txt": "fine", [name]: "gotcha" }));
      expect({ name, status: response.status }).toEqual({ name, status: 415 });
      await expectRefused(response);
    }
    expect(await storedArchive()).toBeNull();
  });

  test("names that only look alike pass", async () => {
    const bytes = makeZip({
      "..hidden/notes..txt": "a",
      "books/./chapter.txt": "b",
      "dir/": "",
      "a..b": "c",
    });
    const response = await uploadArchive(bytes);
    expect(response.status).toBe(200);
    expect((await storedArchive())?.sha256).toBe(sha256(bytes));
  });

  test("an entry that is a symbolic link is refused; files and folders with a Unix mode pass", async () => {
    /** makeZip's archive with every central header marked made on Unix with `mode`. */
    const withMode = (files: Record<string, string>, mode: number) => {
      const bytes = makeZip(files);
      const view = new DataView(bytes.buffer);
      for (const at of headersOf(bytes).centrals) {
        view.setUint16(at + 4, (3 << 8) | 20, true);
        view.setUint32(at + 38, (mode << 16) >>> 0, true);
      }
      return bytes;
    };
    // What unzip makes a link to the target named by the entry's data.
    const links = [
      withMode({ "book/evil": "/etc/passwd" }, 0o120777),
      withMode({ "book/up": "../../../home" }, 0o120755),
    ];
    const before = await storedArchive();
    for (const bytes of links) {
      await expectRefused(await uploadArchive(bytes));
      expect(await storedArchive()).toEqual(before);
    }
    const file = withMode({ "book/page.html": "<p>fine</p>" }, 0o100644);
    expect((await uploadArchive(file)).status).toBe(200);
    expect((await storedArchive())?.sha256).toBe(sha256(file));
    const folder = withMode({ "book/": "" }, 0o040755);
    expect((await uploadArchive(folder)).status).toBe(200);
    expect((await storedArchive())?.sha256).toBe(sha256(folder));
  });

  test("a central directory that disagrees with the local headers is refused", async () => {
    const base = makeZip({ "first.txt": "one", "second.txt": "two two" });
    const { locals, centrals, end } = headersOf(base);
    const variant = (change: (view: DataView, bytes: Uint8Array) => void) => {
      const bytes = base.slice();
      change(new DataView(bytes.buffer), bytes);
      return bytes;
    };
    const enc = new TextEncoder();
    const cases: Record<string, Uint8Array> = {
      // The classic: a harmless name in the directory, an escaping one where the data is.
      "local name differs": variant((_, bytes) => bytes.set(enc.encode("../first"), locals[0]! + 30)),
      "local compressed size differs": variant((view) => view.setUint32(locals[1]! + 18, 3, true)),
      "local uncompressed size differs": variant((view) => view.setUint32(locals[1]! + 22, 3, true)),
      "local CRC differs": variant((view) => view.setUint32(locals[0]! + 14, 1234, true)),
      "local method differs": variant((view) => view.setUint16(locals[0]! + 8, 8, true)),
      "offset into the middle of an entry": variant((view) =>
        view.setUint32(centrals[1]! + 42, locals[1]! + 4, true),
      ),
      "two entries over the same bytes": variant((view, bytes) => {
        // Same length and content, so only the shared offset gives it away.
        bytes.set(enc.encode("first.txt\0"), centrals[1]! + 46);
        view.setUint32(centrals[1]! + 42, 0, true);
      }),
      "more entries claimed than listed": variant((view) => {
        view.setUint16(end + 8, 3, true);
        view.setUint16(end + 10, 3, true);
      }),
      "fewer entries claimed than listed": variant((view) => {
        view.setUint16(end + 8, 1, true);
        view.setUint16(end + 10, 1, true);
      }),
    };
    for (const [what, bytes] of Object.entries(cases)) {
      const response = await uploadArchive(bytes);
      expect({ what, status: response.status }).toEqual({ what, status: 415 });
    }

    // A local entry the directory does not list, in front of the ones it does: a reader that
    // walks the local headers (a streaming unzip) would unpack it.
    const hidden = makeZip({ "../hidden.txt": "gotcha" });
    const listed = makeZip({ "listed.txt": "fine" });
    const hiddenLocal = hidden.subarray(0, headersOf(hidden).centrals[0]);
    const shifted = concat([hiddenLocal, listed]);
    const shiftedView = new DataView(shifted.buffer);
    const listedEnd = shifted.length - 22;
    shiftedView.setUint32(
      listedEnd + 16,
      shiftedView.getUint32(listedEnd + 16, true) + hiddenLocal.length,
      true,
    );
    const listedCentral = shiftedView.getUint32(listedEnd + 16, true);
    shiftedView.setUint32(listedCentral + 42, hiddenLocal.length, true);
    expect((await uploadArchive(shifted)).status).toBe(415);

    expect((await storedArchive())?.sha256).not.toBe(sha256(shifted));
  });

  describe.if(hasZip)("archives Info-ZIP makes", () => {
    function infoZip(name: string, args: string[], stdin?: Uint8Array): Uint8Array {
      const result = Bun.spawnSync(["zip", "-q", "-X", ...args], { cwd: dir, stdin });
      if (result.exitCode !== 0) throw new Error(`zip failed: ${result.stderr.toString()}`);
      return name === "-" ? result.stdout : new Uint8Array(readFileSync(join(dir, name)));
    }

    test("many entries, folders, ZIP64, a comment and data descriptors all pass", async () => {
      mkdirSync(join(dir, "book", "chapters"), { recursive: true });
      for (let i = 0; i < 1000; i++)
        writeFileSync(join(dir, "book", "chapters", `page-${i}.html`), `<p>${i}</p>\n`.repeat(i % 7));
      writeFileSync(join(dir, "book", "cover.bin"), crypto.getRandomValues(new Uint8Array(50_000)));
      const archives: Record<string, Uint8Array> = {
        "a thousand entries in folders": infoZip("many.zip", ["-r", "many.zip", "book"]),
        ZIP64: infoZip("zip64.zip", ["-fz", "zip64.zip", "book/cover.bin", "book/chapters/page-6.html"]),
        "a comment that mentions PK\\x05\\x06": infoZip(
          "commented.zip",
          ["-z", "commented.zip", "book/cover.bin"],
          new TextEncoder().encode("a comment with PK\x05\x06 in it\n.\n"),
        ),
        // Written to a pipe, zip cannot seek back: sizes follow each entry in a data descriptor.
        "streamed, with data descriptors": infoZip("-", [
          "-r",
          "-",
          "book/cover.bin",
          "book/chapters/page-1.html",
        ]),
      };
      for (const [what, bytes] of Object.entries(archives)) {
        const response = await uploadArchive(bytes);
        expect({ what, status: response.status }).toEqual({ what, status: 200 });
        expect((await storedArchive())?.sha256).toBe(sha256(bytes));
      }
    });

    test("a symbolic link stored as one (zip --symlinks) is refused; followed, it passes", async () => {
      mkdirSync(join(dir, "linked"), { recursive: true });
      writeFileSync(join(dir, "linked", "page.html"), "<p>page</p>\n");
      symlinkSync("/etc/hostname", join(dir, "linked", "outside"));
      const before = await storedArchive();
      const stored = infoZip("links.zip", ["-r", "--symlinks", "links.zip", "linked"]);
      await expectRefused(await uploadArchive(stored));
      expect(await storedArchive()).toEqual(before);
      // Without --symlinks zip stores the file the link points to: an ordinary entry.
      const followed = infoZip("followed.zip", ["-r", "followed.zip", "linked"]);
      expect((await uploadArchive(followed)).status).toBe(200);
      expect((await storedArchive())?.sha256).toBe(sha256(followed));
    });
  });
});

/** A real PNG whose header claims other dimensions (the header's CRC made to match). */
async function pngClaiming(width: number, height: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(await QRCode.toBuffer("cover", { width: 64 }));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  view.setUint32(16, width);
  view.setUint32(20, height);
  view.setUint32(29, Bun.hash.crc32(bytes.subarray(12, 29)));
  return bytes;
}

describe("covers", () => {
  test("a PNG over 10,000 × 10,000 pixels is refused and never announced", async () => {
    for (const [width, height] of [
      [2_147_483_647, 2_147_483_647],
      [10_001, 1],
      [1, 10_001],
    ] as const) {
      const response = await uploadCover(await pngClaiming(width, height));
      expect({ width, height, status: response.status }).toEqual({ width, height, status: 415 });
      await expectRefused(response);
    }
    const book = await fetch(`${server.url}/book/${bookId}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(((await book.json()) as { cover: unknown }).cover).toBeNull();
    expect((await fetch(`${server.url}/book/${bookId}/cover`)).status).toBe(404);
  });

  /** The book's cover record now (null: none). */
  async function storedCover(): Promise<{ sha256: string } | null> {
    const book = await fetch(`${server.url}/book/${bookId}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    return ((await book.json()) as { cover: { sha256: string } | null }).cover;
  }

  test("more than 40,000,000 pixels is refused, however honest its data", async () => {
    const before = await storedCover();
    for (const [width, height] of [
      [6_325, 6_325],
      [10_000, 4_001],
    ] as const) {
      const response = await uploadCover(makePng({ width, height, colorType: 0, bitDepth: 1 }));
      expect({ width, height, status: response.status }).toEqual({ width, height, status: 415 });
      await expectRefused(response);
    }
    expect(await storedCover()).toEqual(before);
  });

  test("40,000,000 pixels is the largest cover taken", async () => {
    const bytes = makePng({ width: 10_000, height: 4_000, colorType: 0, bitDepth: 8 });
    const response = await uploadCover(bytes);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { cover: unknown }).cover).toMatchObject({
      width: 10_000,
      height: 4_000,
      sha256: sha256(bytes),
    });
  });

  test("image data that does not inflate to the size its header declares is refused", async () => {
    const shape = { width: 100, height: 100, colorType: 6, bitDepth: 8 };
    const exact = scanlines(shape);
    const cut = (bytes: Uint8Array, at: number) => bytes.subarray(0, at);
    const idatCrcWrong = makePng(shape);
    // The last IDAT's CRC, just before IEND's 12 bytes.
    const crcAt = idatCrcWrong.length - 13;
    idatCrcWrong[crcAt] = (idatCrcWrong[crcAt] ?? 0) ^ 0xff;
    // The bomb: a header of 100 × 100 RGBA (40,100 bytes of data) over 300 MB of zeros.
    const bomb = deflateSync(new Uint8Array(300 * 1024 * 1024), { level: 9 });
    const lies: Record<string, Uint8Array> = {
      "a real PNG whose header claims 1,000 × 1,000": await pngClaiming(1_000, 1_000),
      "data inflating to 300 MB": makePng(shape, { zlibData: bomb }),
      "one byte more": makePng(shape, { zlibData: deflateSync(concat([exact, new Uint8Array(1)])) }),
      "one row less": makePng(shape, { zlibData: deflateSync(exact.subarray(0, exact.length - 401)) }),
      "a zlib stream cut short": makePng(shape, { zlibData: cut(deflateSync(exact), 40) }),
      "not a zlib stream": makePng(shape, { zlibData: new TextEncoder().encode("no deflate here at all") }),
      "an IDAT's CRC wrong": idatCrcWrong,
      "no IDAT": makePng(shape, { zlibData: new Uint8Array() }),
      "a palette image without PLTE": makePng({ ...shape, colorType: 3 }, { palette: false }),
      "no IEND": cut(makePng(shape), makePng(shape).length - 12),
      "a bit depth RGBA does not have": makePng({ ...shape, bitDepth: 4 }),
    };
    const before = await storedCover();
    for (const [what, bytes] of Object.entries(lies)) {
      const response = await uploadCover(bytes);
      expect({ what, status: response.status }).toEqual({ what, status: 415 });
      await expectRefused(response);
    }
    expect(await storedCover()).toEqual(before);
  });

  test("PNGs of every colour type, depth and interlacing pass", async () => {
    const covers: Record<string, Uint8Array> = {
      "a QR code from the qrcode package": new Uint8Array(
        await QRCode.toBuffer("a real one", { width: 333 }),
      ),
      "1-bit gray, Adam7": makePng({ width: 333, height: 77, colorType: 0, bitDepth: 1, interlace: 1 }),
      "16-bit RGBA, Adam7": makePng({ width: 5, height: 3, colorType: 6, bitDepth: 16, interlace: 1 }),
      "1 × 1, Adam7 (six passes empty)": makePng({
        width: 1,
        height: 1,
        colorType: 2,
        bitDepth: 8,
        interlace: 1,
      }),
      "4-bit palette": makePng({ width: 101, height: 9, colorType: 3, bitDepth: 4 }),
      "16-bit gray + alpha, in one-byte IDATs": makePng(
        { width: 7, height: 7, colorType: 4, bitDepth: 16 },
        { idatSize: 1 },
      ),
    };
    for (const [what, bytes] of Object.entries(covers)) {
      const response = await uploadCover(bytes);
      expect({ what, status: response.status }).toEqual({ what, status: 200 });
      expect((await storedCover())?.sha256).toBe(sha256(bytes));
    }
  });
});
