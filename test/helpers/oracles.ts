// The outside readers the print and QR tests check our output with, in one place: a symbol is
// right when zbar (Debian's zbar-tools) decodes it, a sheet when poppler (poppler-utils) reads it
// as a printer would, an SVG when headless Chromium draws it as a browser would. Tests ask
// requireTool (helpers/requires.ts) before calling these.
import { expect } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import { planSheet, type SheetLayout } from "../../src/print/sheet-layout";

/**
 * Reads the symbol back with a real decoder: zbarimg from Debian's zbar-tools
 * (`apt-get install -y zbar-tools`).
 */
export function decodeQr(png: Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), "bookdist-qr-"));
  try {
    const file = join(dir, "symbol.png");
    writeFileSync(file, png);
    const result = Bun.spawnSync(["zbarimg", "--raw", "-q", file], { stdout: "pipe", stderr: "pipe" });
    if (result.exitCode !== 0) throw new Error(`zbarimg found no symbol (exit ${result.exitCode})`);
    return result.stdout.toString().trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Rasterises an SVG document the way a browser shows it: headless Chromium (Debian's chromium)
 * screenshots it at `width` × `height` CSS pixels, scale factor 1.
 */
export function renderSvg(svg: string, width: number, height: number): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), "bookdist-svg-"));
  try {
    writeFileSync(join(dir, "symbol.svg"), svg);
    const result = Bun.spawnSync(
      [
        "chromium",
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        `--user-data-dir=${join(dir, "profile")}`,
        `--window-size=${width},${height}`,
        `--screenshot=${join(dir, "symbol.png")}`,
        `file://${join(dir, "symbol.svg")}`,
      ],
      { stdout: "pipe", stderr: "pipe", timeout: 60_000 },
    );
    if (result.exitCode !== 0) throw new Error(`chromium could not render the SVG (exit ${result.exitCode})`);
    return new Uint8Array(readFileSync(join(dir, "symbol.png")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The dark/light pixels of an 8-bit grey, RGB or RGBA PNG (enough for what qrcode writes). */
export function pngPixels(png: Uint8Array): {
  width: number;
  height: number;
  dark(x: number, y: number): boolean;
} {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const { width, height } = pngSize(png);
  const channels = { 0: 1, 2: 3, 6: 4 }[png[25]!]!;
  expect(png[24]).toBe(8);
  const idat: Uint8Array[] = [];
  for (let offset = 8; offset < png.length; ) {
    const length = view.getUint32(offset);
    const type = new TextDecoder().decode(png.slice(offset + 4, offset + 8));
    if (type === "IDAT") idat.push(png.slice(offset + 8, offset + 8 + length));
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let i = 0; i < stride; i++) {
      const x = raw[y * (stride + 1) + 1 + i]!;
      const a = i >= channels ? pixels[y * stride + i - channels]! : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + i]! : 0;
      const c = i >= channels && y > 0 ? pixels[(y - 1) * stride + i - channels]! : 0;
      const paeth = () => {
        const p = a + b - c;
        const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
        return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      };
      const predictor = [0, a, b, (a + b) >> 1, filter === 4 ? paeth() : 0][filter]!;
      pixels[y * stride + i] = (x + predictor) & 0xff;
    }
  }
  return { width, height, dark: (x, y) => pixels[y * stride + x * channels]! < 128 };
}

/** Width and height from the PNG's IHDR chunk. */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  expect([...png.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

function run(command: string[]): string {
  const result = Bun.spawnSync(command, { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) {
    throw new Error(`${command[0]} failed (${result.exitCode}): ${result.stderr.toString().slice(0, 500)}`);
  }
  return result.stdout.toString();
}

/** A binary greyscale PGM (P5), as `pdftoppm -gray` writes it. */
interface Pgm {
  width: number;
  height: number;
  pixels: Uint8Array;
}

function readPgm(file: string): Pgm {
  const bytes = readFileSync(file);
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 64).toString("latin1"));
  if (!header) throw new Error(`${file} is not an 8-bit P5 PGM`);
  const [, width, height] = header.map(Number) as [number, number, number];
  return { width, height, pixels: bytes.subarray(header[0].length) };
}

function writePgm(file: string, image: Pgm): void {
  writeFileSync(
    file,
    Buffer.concat([Buffer.from(`P5\n${image.width} ${image.height}\n255\n`), image.pixels]),
  );
}

function crop(image: Pgm, x: number, y: number, width: number, height: number): Pgm {
  const pixels = new Uint8Array(width * height);
  for (let row = 0; row < height; row++) {
    const start = (y + row) * image.width + x;
    pixels.set(image.pixels.subarray(start, start + width), row * width);
  }
  return { width, height, pixels };
}

export interface ReadSheet {
  pages: number;
  pageSize: string;
  /** What zbarimg reads in each cell, cell by cell in print order (empty cells left out). */
  cells: string[];
  /** What zbarimg reads on whole pages. */
  wholePages: string[];
  text: string;
  images: string;
}

/**
 * Reads a sheet back as a printer would see it: each page rasterised at 200 dpi, every cell of
 * the grid cut out and decoded by zbarimg. zbar is given cells rather than whole pages because
 * its QR finder mixes up finder patterns that line up across neighbouring symbols of a regular
 * grid and then misses some of them (a whole page is decoded too, to show it reads nothing else).
 */
export function readSheet(pdf: Uint8Array, layout: SheetLayout, codes: number): ReadSheet {
  const dir = mkdtempSync(join(tmpdir(), "bookdist-sheet-"));
  try {
    const file = join(dir, "sheet.pdf");
    writeFileSync(file, pdf);
    const info = run(["pdfinfo", file]);
    const dpi = 200;
    run(["pdftoppm", "-r", String(dpi), "-gray", file, join(dir, "page")]);
    const pageFiles = readdirSync(dir)
      .filter((name) => name.startsWith("page") && name.endsWith(".pgm"))
      .sort();
    const geometry = planSheet(layout);
    const px = (points: number) => Math.round((points * dpi) / 72);
    const cellFiles: string[] = [];
    pageFiles.forEach((pageFile, pageIndex) => {
      const page = readPgm(join(dir, pageFile));
      for (let cell = 0; cell < geometry.perPage; cell++) {
        if (pageIndex * geometry.perPage + cell >= codes) break;
        const column = cell % layout.columns;
        const row = Math.floor(cell / layout.columns);
        const x = px(geometry.margin + column * geometry.cellWidth);
        const y = px(geometry.margin + row * geometry.cellHeight);
        const name = join(
          dir,
          `cell-${String(pageIndex).padStart(4, "0")}-${String(cell).padStart(3, "0")}.pgm`,
        );
        writePgm(name, crop(page, x, y, px(geometry.cellWidth), px(geometry.cellHeight)));
        cellFiles.push(name);
      }
    });
    const decode = (files: string[]) => {
      if (files.length === 0) return [];
      const result = Bun.spawnSync(["zbarimg", "-q", "--raw", ...files], { stdout: "pipe", stderr: "pipe" });
      return result.stdout.toString().split("\n").filter(Boolean);
    };
    return {
      pages: Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]),
      pageSize: /^Page size:\s+(.*)$/m.exec(info)?.[1] ?? "",
      cells: decode(cellFiles),
      wholePages: decode(pageFiles.map((name) => join(dir, name))),
      text: run(["pdftotext", "-layout", file, "-"]),
      images: run(["pdfimages", "-list", file]),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
