// QR symbols as vectors: the module matrix that the qrcode package computes (the same one the PNG
// endpoint rasterises), turned into rectangles for SVG paths and PDF content streams.
import QRCode from "qrcode";

/** Light modules around the symbol that a reader needs to find it (ISO/IEC 18004 §6.3.8). */
const QUIET_ZONE = 4;

/** Error correction M, as the PNG endpoint uses. */
const QR_ERROR_CORRECTION = "M" as const;

/** A symbol as rectangles of dark modules: one per horizontal run of a row. */
export interface QrVector {
  /** Modules per side, without the quiet zone. */
  size: number;
  /** Modules per side, with the quiet zone on every side. */
  sizeWithQuietZone: number;
  /** [row, column, length] in modules, counted from the top-left of the quiet zone. */
  runs: Array<[number, number, number]>;
}

export function qrVector(text: string): QrVector {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: QR_ERROR_CORRECTION });
  const size = modules.size;
  const runs: Array<[number, number, number]> = [];
  for (let row = 0; row < size; row++) {
    let start = -1;
    for (let col = 0; col <= size; col++) {
      const dark = col < size && modules.data[row * size + col] === 1;
      if (dark && start < 0) start = col;
      else if (!dark && start >= 0) {
        runs.push([row + QUIET_ZONE, start + QUIET_ZONE, col - start]);
        start = -1;
      }
    }
  }
  return { size, sizeWithQuietZone: size + 2 * QUIET_ZONE, runs };
}

/**
 * A standalone SVG of the symbol: the viewBox counts modules (quiet zone included) on a white
 * ground, one path of whole-module rectangles; `pixelsPerModule` sets only the default display size.
 */
export function qrSvg(text: string, pixelsPerModule = 8): string {
  const symbol = qrVector(text);
  const n = symbol.sizeWithQuietZone;
  const d = symbol.runs.map(([row, col, length]) => `M${col} ${row}h${length}v1h-${length}z`).join("");
  const px = n * pixelsPerModule;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="${px}" height="${px}" viewBox="0 0 ${n} ${n}" shape-rendering="crispEdges">` +
    `<rect width="${n}" height="${n}" fill="#fff"/>` +
    `<path fill="#000" d="${d}"/></svg>\n`
  );
}

/**
 * PDF content-stream operators that draw the symbol with its quiet zone as a square of `side`
 * points whose top-left corner is at (`x`, `top`) in page space. The rectangles are filled as
 * one path, so renderers leave no seams between neighbouring rows.
 */
export function qrPdfOperators(symbol: QrVector, x: number, top: number, side: number): string {
  const m = side / symbol.sizeWithQuietZone;
  const parts = [`q ${num(m)} 0 0 ${num(-m)} ${num(x)} ${num(top)} cm`];
  for (const [row, col, length] of symbol.runs) parts.push(`${col} ${row} ${length} 1 re`);
  parts.push("f Q");
  return parts.join("\n");
}

/** A number as PDF writes it: no exponent, at most 4 decimals. */
export function num(value: number): string {
  return String(Math.round(value * 10_000) / 10_000);
}
