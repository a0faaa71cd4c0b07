// The transaction that makes a print run (services/qr-codes.ts, createQrCodeBatch), in a module of
// its own: on a SQLite server the writer worker imports it and runs it on its own connection
// (db/transaction.ts, offLoopTransaction), so it imports only what the writes need.
import type { Database } from "#db";
import { insertQrCodeBatch, type NewQrCodeBatch } from "../repositories/qr-code-batches";
import { insertQrCodes, type QrCodeRow } from "../repositories/qr-codes";
import { type AuditSource, recordChange } from "./audit";

/**
 * The batch record, its codes and its audit event, in the transaction `tx` is: a print run is
 * never half made. Its arguments and its result are structured clones when it runs on the worker.
 */
export async function writePrintRun(
  tx: Database,
  by: AuditSource,
  shared: NewQrCodeBatch,
  codes: string[],
  now: Date,
): Promise<QrCodeRow[]> {
  const batch = await insertQrCodeBatch(tx, shared, now);
  const values = codes.map((code) => ({ ...shared, code, enabled: true, batchId: batch.id }));
  const inserted = await insertQrCodes(tx, values, now);
  // One event for the print run, with its count: never one per code.
  await recordChange(tx, by, now, "batch", "create", batch.id, null, batch, {
    codes: [null, inserted.length],
  });
  return inserted;
}
