// Printable sheets of QR codes as one PDF that is written while it is sent.
//
// pdf-lib's PDFDocument keeps every page and object in memory until save(), and 10,000 vector
// symbols are tens of megabytes of content streams. So this writer uses pdf-lib only for what it
// does well — building and serialising PDF objects (dictionaries, streams, strings, fonts, the
// cross-reference table and trailer) — and writes each page's objects to the stream as soon as
// they are made, keeping only each object's byte offset for the xref table at the end. The page
// tree, whose Kids must list every page, is an ordinary object written last.
import { deflateSync } from "node:zlib";
import {
  PDFContext,
  PDFCrossRefSection,
  PDFHeader,
  PDFHexString,
  type PDFObject,
  PDFRef,
  PDFTrailer,
  PDFTrailerDict,
  StandardFontEmbedder,
  StandardFonts,
} from "pdf-lib";
import { LoopSlices } from "../lib/loop-slices";
import { Slots } from "../lib/slots";
import { num, qrPdfOperators, qrVector } from "./qr-vector";
import {
  CELL_PADDING_MM,
  COURIER_ADVANCE,
  FOOTER_FONT,
  LINE,
  PT_PER_MM,
  type SheetGeometry,
} from "./sheet-layout";

/** pdf-lib's StandardFonts values are the font names its embedder takes, typed as another enum. */
type FontName = Parameters<typeof StandardFontEmbedder.for>[0];
const fontNames = {
  F1: StandardFonts.Helvetica as string as FontName,
  F2: StandardFonts.CourierBold as string as FontName,
} as const;

export interface SheetContent {
  /** The book's title, printed under every code. */
  title: string;
  /** A line at the foot of every page (the page number is added to it). */
  footer: string;
  /** Document title in the PDF's metadata. */
  documentTitle: string;
  /** How many codes `codes` yields: the page count follows from it. */
  total: number;
  /** The codes in print order, with what each symbol says. */
  codes: AsyncIterable<{ code: string; payload: string }>;
}

/**
 * Sheets being made at once by this instance. Each adds a slice of work to every turn of the loop,
 * so two keep the turns short; the others wait their turn, page by page (see inSlots).
 */
const SHEETS_AT_ONCE = 2;
const sheetSlots = new Slots(SHEETS_AT_ONCE);

/** The PDF as a byte stream; pages are made as the reader pulls them. */
export function printSheet(geometry: SheetGeometry, content: SheetContent): ReadableStream<Uint8Array> {
  const chunks = inSlots(writeSheet(geometry, content));
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}

/**
 * The chunks (a page each, mostly), each made while holding one of the sheet slots. A slot is held
 * while a chunk is made, not while the reader takes it, so a reader who stalls or never reads on
 * keeps no other sheet waiting.
 */
async function* inSlots(chunks: AsyncGenerator<Uint8Array>): AsyncGenerator<Uint8Array> {
  try {
    for (;;) {
      const giveBack = await sheetSlots.take();
      let next: IteratorResult<Uint8Array>;
      try {
        next = await chunks.next();
      } finally {
        giveBack();
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // A reader who leaves ends the writer too (a no-op once it has finished).
    await chunks.return(undefined);
  }
}

/** Serialises indirect objects one at a time, remembering only where each one starts. */
class IncrementalPdf {
  readonly context = PDFContext.create();
  private readonly offsets = new Map<number, number>();
  private position = 0;

  header(): Uint8Array {
    const header = PDFHeader.forVersion(1, 7);
    return this.serialise(header, "\n");
  }

  /** `n 0 obj … endobj` for `object` under `ref`. */
  object(ref: PDFRef, object: PDFObject): Uint8Array {
    this.offsets.set(ref.objectNumber, this.position);
    const head = `${ref.objectNumber} ${ref.generationNumber} obj\n`;
    const size = object.sizeInBytes();
    const out = new Uint8Array(head.length + size + 8);
    out.set(Buffer.from(head, "latin1"), 0);
    object.copyBytesInto(out, head.length);
    out.set(Buffer.from("\nendobj\n", "latin1"), head.length + size);
    this.position += out.length;
    return out;
  }

  /** The cross-reference table and trailer: the end of the file. */
  finish(root: PDFRef, info: PDFRef): Uint8Array {
    const xref = PDFCrossRefSection.create();
    const numbers = [...this.offsets.keys()].sort((a, b) => a - b);
    for (const n of numbers) xref.addEntry(PDFRef.of(n), this.offsets.get(n)!);
    const xrefOffset = this.position;
    const trailerDict = PDFTrailerDict.of(
      this.context.obj({ Size: this.context.largestObjectNumber + 1, Root: root, Info: info }),
    );
    const trailer = PDFTrailer.forLastCrossRefSectionOffset(xrefOffset);
    const parts = [this.serialise(xref, ""), this.serialise(trailerDict, "\n"), this.serialise(trailer, "")];
    return Buffer.concat(parts);
  }

  private serialise(
    item: { sizeInBytes(): number; copyBytesInto(buffer: Uint8Array, offset: number): number },
    suffix: string,
  ): Uint8Array {
    const size = item.sizeInBytes();
    const out = new Uint8Array(size + suffix.length);
    item.copyBytesInto(out, 0);
    out.set(Buffer.from(suffix, "latin1"), size);
    this.position += out.length;
    return out;
  }
}

async function* writeSheet(geometry: SheetGeometry, content: SheetContent): AsyncGenerator<Uint8Array> {
  const pdf = new IncrementalPdf();
  const { context } = pdf;
  const catalogRef = context.nextRef();
  const pagesRef = context.nextRef();
  const infoRef = context.nextRef();
  const helvetica = StandardFontEmbedder.for(fontNames.F1);
  const courier = StandardFontEmbedder.for(fontNames.F2);
  const fontRefs = { F1: context.nextRef(), F2: context.nextRef() };

  yield pdf.header();
  for (const [key, embedder] of [
    ["F1", helvetica],
    ["F2", courier],
  ] as const) {
    embedder.embedIntoContext(context, fontRefs[key]);
    yield pdf.object(fontRefs[key], context.lookup(fontRefs[key])!);
    context.delete(fontRefs[key]);
  }

  const pageCount = Math.max(1, Math.ceil(content.total / geometry.perPage));
  const title = fitText(helvetica, content.title, geometry.titleFontSize, geometry.cellWidth * 0.95);
  const kids: PDFRef[] = [];
  let cells: string[] = [];
  const flush = () => {
    const pageNumber = kids.length + 1;
    const footer = `${content.footer} · page ${pageNumber} of ${Math.max(pageCount, pageNumber)}`;
    const operators = [...cells, footerOperators(helvetica, geometry, footer)].join("\n");
    cells = [];
    const pageRef = context.nextRef();
    const contentRef = context.nextRef();
    kids.push(pageRef);
    const page = context.obj({
      Type: "Page",
      Parent: pagesRef,
      MediaBox: [0, 0, round(geometry.pageWidth), round(geometry.pageHeight)],
      Resources: { Font: fontRefs, ProcSet: ["PDF", "Text"] },
      Contents: contentRef,
    });
    const stream = context.stream(deflateSync(Buffer.from(operators, "latin1")), { Filter: "FlateDecode" });
    return Buffer.concat([pdf.object(pageRef, page), pdf.object(contentRef, stream)]);
  };

  // Each symbol is ~0.1 ms of encoding; a whole sheet is seconds of it. Pausing between symbols
  // when a slice is used up keeps the rest of the server answering while the sheet is made.
  const slices = new LoopSlices();
  for await (const { code, payload } of content.codes) {
    await slices.pause();
    cells.push(cellOperators(geometry, cells.length, code, payload, title));
    if (cells.length === geometry.perPage) yield flush();
  }
  if (cells.length > 0 || kids.length === 0) yield flush();

  yield pdf.object(pagesRef, context.obj({ Type: "Pages", Kids: kids, Count: kids.length }));
  yield pdf.object(catalogRef, context.obj({ Type: "Catalog", Pages: pagesRef }));
  yield pdf.object(
    infoRef,
    context.obj({
      Title: PDFHexString.fromText(content.documentTitle),
      Producer: PDFHexString.fromText("bookdist"),
    }),
  );
  yield pdf.finish(catalogRef, infoRef);
}

/** One code's cell: the symbol centred at the top, the code under it, then the book's title. */
function cellOperators(
  geometry: SheetGeometry,
  index: number,
  code: string,
  payload: string,
  title: PDFHexStringWithWidth,
): string {
  const { columns } = geometry.layout;
  const column = index % columns;
  const row = Math.floor(index / columns);
  const left = geometry.margin + column * geometry.cellWidth;
  const top = geometry.pageHeight - geometry.margin - row * geometry.cellHeight;
  const padding = CELL_PADDING_MM * PT_PER_MM;
  const centre = left + geometry.cellWidth / 2;
  const symbolTop = top - padding;
  const symbol = qrPdfOperators(
    qrVector(payload),
    centre - geometry.symbolSide / 2,
    symbolTop,
    geometry.symbolSide,
  );
  const codeSize = geometry.codeFontSize;
  const codeBaseline = symbolTop - geometry.symbolSide - codeSize * 0.95;
  const codeWidth = code.length * COURIER_ADVANCE * codeSize;
  const codeHex = asciiHex(code);
  const titleBaseline = codeBaseline - geometry.titleFontSize * LINE;
  return [
    symbol,
    `BT /F2 ${num(codeSize)} Tf ${num(centre - codeWidth / 2)} ${num(codeBaseline)} Td <${codeHex}> Tj ET`,
    `BT /F1 ${num(geometry.titleFontSize)} Tf ${num(centre - title.width / 2)} ${num(titleBaseline)} Td <${title.hex}> Tj ET`,
  ].join("\n");
}

function footerOperators(font: StandardFontEmbedder, geometry: SheetGeometry, text: string): string {
  const line = fitText(font, text, FOOTER_FONT, geometry.pageWidth - 2 * geometry.margin);
  const baseline = geometry.margin / 2 - FOOTER_FONT / 3;
  return `BT /F1 ${FOOTER_FONT} Tf ${num(geometry.margin)} ${num(baseline)} Td <${line.hex}> Tj ET`;
}

interface PDFHexStringWithWidth {
  hex: string;
  width: number;
}

/**
 * Text in a standard font (WinAnsi): characters it cannot encode become `?`, and a text wider
 * than `maxWidth` is cut and ends in an ellipsis.
 */
function fitText(
  font: StandardFontEmbedder,
  text: string,
  size: number,
  maxWidth: number,
): PDFHexStringWithWidth {
  let chars = Array.from(text.replace(/[\p{Cc}\p{Cf}]/gu, "").trim()).map((char) =>
    font.encoding.canEncodeUnicodeCodePoint(char.codePointAt(0)!) ? char : "?",
  );
  let line = chars.join("");
  while (chars.length > 0 && font.widthOfTextAtSize(line, size) > maxWidth) {
    chars = chars.slice(0, -1);
    line = `${chars.join("").trimEnd()}…`;
  }
  const hex = font.encodeText(line).asString();
  return { hex, width: font.widthOfTextAtSize(line, size) };
}

function asciiHex(text: string): string {
  return Buffer.from(text, "latin1").toString("hex").toUpperCase();
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
