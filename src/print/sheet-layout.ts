// The layout of a print sheet: paper sizes, the grid, and whether a layout fits, in plain
// arithmetic. Kept apart from the PDF writer so that validating a request (and the OpenAPI
// schema's paper list) does not load pdf-lib, which the server imports only to print.
import { validationFailed } from "../lib/problems";

export const PAPERS = { A4: [210, 297], Letter: [215.9, 279.4] } as const satisfies Record<
  string,
  readonly [number, number]
>;
type Paper = keyof typeof PAPERS;

export interface SheetLayout {
  paper: Paper;
  columns: number;
  rows: number;
  /** Side of the printed symbol with its quiet zone, in millimetres. */
  symbolMm: number;
}

/** Where everything goes on a page, in PDF points (1/72 in), from the bottom-left corner. */
export interface SheetGeometry {
  layout: SheetLayout;
  pageWidth: number;
  pageHeight: number;
  margin: number;
  cellWidth: number;
  cellHeight: number;
  symbolSide: number;
  codeFontSize: number;
  titleFontSize: number;
  perPage: number;
}

export const PT_PER_MM = 72 / 25.4;
const MARGIN_MM = 10;
export const CELL_PADDING_MM = 1;
/** Codes are 19 characters (four groups of four and three dashes); Courier glyphs are 600/1000 em. */
const CODE_CHARS = 19;
export const COURIER_ADVANCE = 0.6;
const MAX_CODE_FONT = 10;
/** Below this a printed code is hard to type back in. */
const MIN_CODE_FONT = 6;
const TITLE_FONT = 6.5;
export const FOOTER_FONT = 7;
export const LINE = 1.25;

/**
 * The geometry of a layout, or VALIDATION_FAILED naming what does not fit: the symbol must fit
 * its column, the symbol and two lines of text its row, and the code must print at 6 pt or more.
 */
export function planSheet(layout: SheetLayout): SheetGeometry {
  const [widthMm, heightMm] = PAPERS[layout.paper];
  const cellWidthMm = (widthMm - 2 * MARGIN_MM) / layout.columns;
  const cellHeightMm = (heightMm - 2 * MARGIN_MM) / layout.rows;
  const padding = CELL_PADDING_MM * PT_PER_MM;
  const cellWidth = cellWidthMm * PT_PER_MM;
  const cellHeight = cellHeightMm * PT_PER_MM;
  const symbolSide = layout.symbolMm * PT_PER_MM;
  const codeFontSize = Math.min(MAX_CODE_FONT, (cellWidth - 2 * padding) / (CODE_CHARS * COURIER_ADVANCE));
  const mm = (value: number) => value.toFixed(1);
  if (codeFontSize < MIN_CODE_FONT) {
    throw validationFailed(
      "columns",
      `${layout.columns} columns on ${layout.paper} leave ${mm(cellWidthMm)} mm per code, too narrow for the printed code; use fewer columns`,
    );
  }
  if (symbolSide > cellWidth) {
    throw validationFailed(
      "symbolMm",
      `a ${layout.symbolMm} mm symbol does not fit a ${mm(cellWidthMm)} mm column (${layout.columns} columns on ${layout.paper}); use fewer columns or a smaller symbol`,
    );
  }
  const textHeight = (codeFontSize + TITLE_FONT) * LINE;
  if (symbolSide + textHeight + 2 * padding > cellHeight) {
    throw validationFailed(
      "symbolMm",
      `a ${layout.symbolMm} mm symbol and its text do not fit a ${mm(cellHeightMm)} mm row (${layout.rows} rows on ${layout.paper}); use fewer rows or a smaller symbol`,
    );
  }
  return {
    layout,
    pageWidth: widthMm * PT_PER_MM,
    pageHeight: heightMm * PT_PER_MM,
    margin: MARGIN_MM * PT_PER_MM,
    cellWidth,
    cellHeight,
    symbolSide,
    codeFontSize,
    titleFontSize: TITLE_FONT,
    perPage: layout.columns * layout.rows,
  };
}
