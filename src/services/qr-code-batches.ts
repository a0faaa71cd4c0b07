// Print runs (see `createActivationQrCodeBatch`): a batch of codes made together, switched
// on and off together, exported as CSV and printed as sheets of vector QR symbols.
import type { Database } from "#db";
import { withTransaction } from "../db/transaction";
import type { ListWindow } from "../lib/list-window";
import { nextTurn } from "../lib/loop-slices";
import { planSheet, type SheetLayout } from "../print/sheet-layout";
import { findBook } from "../repositories/books";
import * as batches from "../repositories/qr-code-batches";
import type { QrCodeRow } from "../repositories/qr-codes";
import { type AuditSource, recordAudit } from "./audit";
import { ofExistingBook } from "./books";
import { found } from "./guards";
import { pageOf } from "./page";
import { qrPayload } from "./qr-codes";

/** Rows per read while a batch is exported: enough to be quick, few enough to stay small. */
const READ_CHUNK = 500;

type QrCodeStatus = "disabled" | "expired" | "exhausted" | "available";

export async function getQrCodeBatch(db: Database, id: number): Promise<batches.QrCodeBatchWithCounts> {
  return found(await batches.findQrCodeBatch(db, id), `QR code batch ${id}`);
}

/** A book's batches; 404 for a book that does not exist, rather than an empty list. */
export const listQrCodeBatchesOfBook = ofExistingBook(
  (db, bookId, window: ListWindow<batches.QrCodeBatchSortField>) =>
    pageOf<batches.QrCodeBatchWithCounts, batches.QrCodeBatchSortField>(
      db,
      window,
      (on, chunk, after) => batches.listQrCodeBatchesOfBook(on, bookId, chunk, after),
      (on) => batches.countQrCodeBatchesOfBook(on, bookId),
    ),
);

/** The console's list of print runs (README "Console"): one page, newest first, all or one book's. */
export function listQrCodeBatchesPage(
  db: Database,
  limit: number,
  offset: number,
  bookId?: number,
): Promise<batches.QrCodeBatchWithCounts[]> {
  return batches.listQrCodeBatchesPage(db, limit, offset, bookId);
}

/** Every code of the batch on or off in one statement; answers the batch with its new counts. */
export async function setQrCodeBatchEnabled(
  db: Database,
  by: AuditSource,
  id: number,
  enabled: boolean,
  now: Date,
): Promise<batches.QrCodeBatchWithCounts> {
  await withTransaction(db, async (tx) => {
    await getQrCodeBatch(tx, id);
    const codes = await batches.setQrCodeBatchEnabled(tx, id, enabled, now);
    // One event for the print run, with the number of codes it switched.
    await recordAudit(tx, {
      by,
      at: now,
      action: enabled ? "batch.enable" : "batch.disable",
      target: { type: "batch", id },
      changes: { enabled: [null, enabled], codes: [null, codes] },
    });
  });
  return getQrCodeBatch(db, id);
}

/**
 * Whether a code can still be redeemed and, if not, why — in the order redemption checks:
 * switched off, then past its expiry, then used up.
 */
function qrCodeStatus(row: QrCodeRow, now: Date): QrCodeStatus {
  if (!row.enabled) return "disabled";
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return "expired";
  if (row.activationCount >= row.maxActivations) return "exhausted";
  return "available";
}

/**
 * The batch's codes in id order, read a chunk at a time so that none of them is held for long.
 * The loop gets a turn after each chunk: SQLite answers at once, so a reader that keeps pulling
 * would otherwise be served in promise callbacks alone, the whole batch in one turn (a 200,000-code
 * CSV held the loop ~460 ms at S3).
 */
async function* codesOfBatch(db: Database, batchId: number): AsyncGenerator<QrCodeRow> {
  let afterId = 0;
  for (;;) {
    const rows = await batches.qrCodesOfBatchAfter(db, batchId, afterId, READ_CHUNK);
    yield* rows;
    if (rows.length < READ_CHUNK) return;
    afterId = rows[rows.length - 1]!.id;
    await nextTurn();
  }
}

const CSV_COLUMNS = ["code", "id", "status", "activationCount", "createdAt"] as const;

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A download of a batch: its bytes, made while they are read, and the name to save them under. */
export interface BatchFile {
  stream: ReadableStream<Uint8Array>;
  filename: string;
}

/**
 * `<book title> - <label>.<extension>`, or `… - batch <id>` for a batch without a label: what a
 * publisher recognises in a downloads folder (made safe for a header by contentDisposition).
 */
function batchFilename(
  bookTitle: string,
  batch: batches.QrCodeBatchWithCounts,
  extension: "csv" | "pdf",
): string {
  const label = batch.label?.trim() || `batch ${batch.id}`;
  return `${bookTitle} - ${label}.${extension}`;
}

async function bookOfBatch(db: Database, batch: batches.QrCodeBatchWithCounts) {
  return found(await findBook(db, batch.bookId), `QR code batch ${batch.id}`);
}

/**
 * The CSV export of a batch. The batch and its book are looked up before anything is sent, so a
 * missing one still answers a problem; the rows are read while the client reads.
 */
export async function batchCsvFile(db: Database, batchId: number, now: Date): Promise<BatchFile> {
  const batch = await getQrCodeBatch(db, batchId);
  const book = await bookOfBatch(db, batch);
  return { stream: batchCsv(db, batch.id, now), filename: batchFilename(book.title, batch, "csv") };
}

/** The batch as CSV (CRLF lines, a header row first), streamed as it is read. */
function batchCsv(db: Database, batchId: number, now: Date): ReadableStream<Uint8Array> {
  async function* lines(): AsyncGenerator<string> {
    yield `${CSV_COLUMNS.join(",")}\r\n`;
    let chunk: string[] = [];
    for await (const row of codesOfBatch(db, batchId)) {
      const fields = [
        row.code,
        row.id,
        qrCodeStatus(row, now),
        row.activationCount,
        row.createdAt.toISOString(),
      ];
      chunk.push(`${fields.map(csvField).join(",")}\r\n`);
      if (chunk.length === READ_CHUNK) {
        yield chunk.join("");
        chunk = [];
      }
    }
    if (chunk.length > 0) yield chunk.join("");
  }
  return streamOf(lines());
}

/**
 * The print sheet of a batch. The layout is checked and the batch looked up before anything is
 * sent, so those failures still answer a problem; the pages are made while the client reads.
 */
export async function batchSheet(
  db: Database,
  batchId: number,
  layout: SheetLayout,
  payloadTemplate: string,
): Promise<BatchFile> {
  const geometry = planSheet(layout);
  const batch = await getQrCodeBatch(db, batchId);
  const book = await bookOfBatch(db, batch);
  const footer = [book.title, batch.label, `batch ${batch.id}`].filter(Boolean).join(" · ");
  async function* codes() {
    for await (const row of codesOfBatch(db, batchId)) {
      yield { code: row.code, payload: qrPayload(payloadTemplate, row.code) };
    }
  }
  // Loaded on first use: pdf-lib adds ~20 MiB to a process that may never print a sheet.
  const { printSheet } = await import("../print/print-sheet");
  const stream = printSheet(geometry, {
    title: book.title,
    footer,
    documentTitle: `${book.title} — activation codes, batch ${batch.id}`,
    total: batch.codes,
    codes: codes(),
  });
  return { stream, filename: batchFilename(book.title, batch, "pdf") };
}

function streamOf(chunks: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}
