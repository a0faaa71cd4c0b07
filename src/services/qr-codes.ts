// The rules of activation QR codes: codes are made here (never chosen by clients), a batch is
// all or nothing, and the printed symbol carries QR_PAYLOAD_TEMPLATE with the code filled in.
import { createHash } from "node:crypto";
import type { Database } from "#db";
import { isUniqueViolation } from "../db/errors";
import { offLoopTransaction, withTransaction } from "../db/transaction";
import type { ListRead, ListWindow } from "../lib/list-window";
import { LoopSlices, nextTurn } from "../lib/loop-slices";
import { renderPng } from "../print/qr-png";
import { qrSvg } from "../print/qr-vector";
import * as qrCodes from "../repositories/qr-codes";
import { generateActivationCode, normalizeActivationCode } from "./activation-code";
import { type AuditSource, recordChange } from "./audit";
import { assertBookExists, ofExistingBook } from "./books";
import { found } from "./guards";
import { pageOf } from "./page";
import { writePrintRun } from "./print-run-write";

/** Where the writer worker finds writePrintRun. */
const printRunModule = new URL("./print-run-write.ts", import.meta.url).href;

export interface QrCodeInputValue {
  bookId: number;
  maxActivations: number;
  label: string | null;
  enabled: boolean;
}

export interface QrCodeBatchInputValue {
  bookId: number;
  quantity: number;
  maxActivations: number;
  label: string | null;
  expiresAt: Date | null;
}

/**
 * 80 random bits make a collision with an existing code astronomically unlikely, but the unique
 * index would turn one into an error; a fresh draw is the right answer, a few times at most.
 */
const ATTEMPTS = 3;

const QR_OPTIONS = { errorCorrectionLevel: "M", margin: 4 } as const;

/** All codes, or those `filter` names (one book's). */
export function listQrCodes(
  db: Database,
  window: ListWindow<qrCodes.QrCodeSortField>,
  filter: qrCodes.QrCodeFilter = {},
): Promise<ListRead<qrCodes.QrCodeRow>> {
  return pageOf(
    db,
    window,
    (on, chunk, after) => qrCodes.listQrCodes(on, filter, chunk, after),
    (on) => qrCodes.countQrCodes(on, filter),
  );
}

export function countQrCodes(db: Database, filter: qrCodes.QrCodeFilter = {}): Promise<number> {
  return qrCodes.countQrCodes(db, filter);
}

/**
 * The code a person typed, read or scanned, normalised as redemption does (case, dashes and
 * spaces, O for 0, I and L for 1: services/activation-code.ts); undefined when no code is that,
 * or when the text cannot be a code at all. One look-up on the unique index of codes.
 */
export async function findCodeByText(db: Database, text: string): Promise<qrCodes.QrCodeRow | undefined> {
  const code = normalizeActivationCode(text);
  return code === null ? undefined : qrCodes.findQrCodeByCode(db, code);
}

export const listQrCodesOfBook = ofExistingBook((db, bookId, window: ListWindow<qrCodes.QrCodeSortField>) =>
  listQrCodes(db, window, { bookId }),
);

export const countQrCodesOfBook = ofExistingBook((db, bookId) => countQrCodes(db, { bookId }));

export async function getQrCode(db: Database, id: number): Promise<qrCodes.QrCodeRow> {
  return found(await qrCodes.findQrCode(db, id), `Activation QR code ${id}`);
}

async function withFreshCodes<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= ATTEMPTS || !isUniqueViolation(error)) throw error;
    }
  }
}

export async function createQrCode(
  db: Database,
  by: AuditSource,
  input: QrCodeInputValue,
  now: Date,
): Promise<qrCodes.QrCodeRow> {
  await assertBookExists(db, input.bookId);
  return withFreshCodes(() =>
    withTransaction(db, async (tx) => {
      const [row] = await qrCodes.insertQrCodes(
        tx,
        [{ ...input, code: generateActivationCode(), expiresAt: null, batchId: null }],
        now,
      );
      await recordChange(tx, by, now, "qrcode", "create", row!.id, null, row!);
      return row!;
    }),
  );
}

/**
 * Makes a batch record (the print run) and its `quantity` codes in one transaction: either all
 * of them exist afterwards or none.
 *
 * The transaction cannot be cut (readers must never see half a run), and at S3 its 10,000 INSERTs
 * into a 10-million-entry unique index take over a second on SQLite: so it runs off the event loop
 * (offLoopTransaction: the writer worker on a SQLite server), and everything else — drawing the
 * codes, and the caller's 201 body — runs in turns of its own.
 */
export async function createQrCodeBatch(
  db: Database,
  by: AuditSource,
  input: QrCodeBatchInputValue,
  now: Date,
): Promise<qrCodes.QrCodeRow[]> {
  await assertBookExists(db, input.bookId);
  const { quantity, ...shared } = input;
  const rows = await withFreshCodes(async () => {
    const codes = await drawCodes(quantity);
    return offLoopTransaction(db, printRunModule, writePrintRun, by, shared, codes, now);
  });
  await nextTurn();
  return rows;
}

/** `quantity` different new codes, drawn in slices of the loop's time. */
async function drawCodes(quantity: number): Promise<string[]> {
  const codes = new Set<string>();
  const slices = new LoopSlices();
  while (codes.size < quantity) {
    await slices.pause();
    codes.add(generateActivationCode());
  }
  await nextTurn();
  return [...codes];
}

export async function setQrCodeEnabled(
  db: Database,
  by: AuditSource,
  id: number,
  enabled: boolean,
  now: Date,
): Promise<qrCodes.QrCodeRow> {
  return withTransaction(db, async (tx) => {
    const before = await getQrCode(tx, id);
    const row = found(await qrCodes.setQrCodeEnabled(tx, id, enabled, now), `Activation QR code ${id}`);
    await recordChange(tx, by, now, "qrcode", enabled ? "enable" : "disable", id, before, row);
    return row;
  });
}

/**
 * The book's codes that no activation was ever made from (`getUnusedActivationQrCodesOfBook`).
 * Deleting an activation gives its slot back to the count, but the code was still redeemed, so this
 * reads the mark the first redemption leaves (firstRedeemedAt), not the live count.
 */
export const unusedQrCodesOfBook = ofExistingBook((db, bookId) =>
  listQrCodes(db, { sort: [] }, { bookId, unused: true }),
);

/** What the symbol says: the template with the code filled in. */
export function qrPayload(template: string, code: string): string {
  return template.replaceAll("{code}", code);
}

/** A strong validator for the PNG: it depends only on what goes into it. */
export function qrImageEtag(template: string, code: string, size: number): string {
  const digest = createHash("sha256")
    .update(JSON.stringify([qrPayload(template, code), size, QR_OPTIONS]))
    .digest("hex");
  return `"${digest}"`;
}

/**
 * The PNG of the symbol: error correction M, a quiet zone of 4 modules, `size` pixels wide. Made
 * on a worker thread: a 2048 px raster is ~0.2 s of work the event loop must not wait through.
 */
export function renderQrPng(template: string, code: string, size: number): Promise<Uint8Array<ArrayBuffer>> {
  return renderPng(qrPayload(template, code), { ...QR_OPTIONS, width: size });
}

/** A strong validator for the SVG; the format is part of it, so it never equals a PNG's. */
export function qrSvgEtag(template: string, code: string): string {
  const digest = createHash("sha256")
    .update(JSON.stringify([qrPayload(template, code), "svg", QR_OPTIONS]))
    .digest("hex");
  return `"${digest}"`;
}

/** The symbol as SVG: the same modules as the PNG, as vector rectangles, quiet zone included. */
export function renderQrSvg(template: string, code: string): string {
  return qrSvg(qrPayload(template, code));
}
