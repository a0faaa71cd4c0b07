// The rules of activations: the book and the user must exist, (user, book) is unique, only the holder or an
// admin sees one, and deleting one gives its slot back to the QR code it came from.
import type { Database } from "#db";
import { assertOwner, type Principal } from "../auth/principal";
import { withTransaction } from "../db/transaction";
import type { BoundedPage, ListWindow } from "../lib/list-window";
import { AppError, type FieldError, validationFailed } from "../lib/problems";
import { recordActivationEnds } from "../repositories/activation-ends";
import * as activations from "../repositories/activations";
import { findBook } from "../repositories/books";
import { releaseActivation } from "../repositories/qr-codes";
import type { StoreDirectory } from "../store/directory";
import { type AuditSource, recordChange } from "./audit";
import { ofExistingBook } from "./books";
import { conflictIfDuplicate, found } from "./guards";
import { pagedList } from "./page";

export interface ActivationInputValue {
  bookId: number;
  userUuid: string;
}

export {
  type ActivationFilter,
  type ActivationSource,
  activationSources,
} from "../repositories/activations";

/**
 * All activations, or those `filter` names: a user's, a book's, a source's (code, shop order, by
 * hand), created in a time range, or any of these together (GET /activation, the console).
 */
export const listActivations = pagedList(activations.listActivations, activations.countActivations);

/** How far the console counts a filtered list of activations (listActivationsPage). */
export const ACTIVATION_COUNT_BOUND = 10_000;

/**
 * One page of the activations `filter` covers, for the console: its count exact up to
 * ACTIVATION_COUNT_BOUND (all of them from the counter), so a filter that keeps millions (a
 * source, a long date range) costs a page and a bounded count, not a count of millions. A page at
 * or past the bound of such a list is not read (an offset that deep reads what it skips): the
 * console asks for a narrower filter there.
 */
export async function listActivationsPage(
  db: Database,
  window: ListWindow<activations.ActivationSortField> & { limit: number; offset: number },
  filter: activations.ActivationFilter = {},
): Promise<BoundedPage<activations.ActivationRow>> {
  const total = await activations.countActivationsUpTo(db, filter, ACTIVATION_COUNT_BOUND);
  if (window.offset >= total.count) return { rows: [], hasNext: false, total };
  // An exact total lets a page past the middle be read from the list's end (db/page-read.ts).
  const read = total.more ? window : { ...window, total: total.count };
  const rows = await activations.listActivations(db, { ...read, limit: window.limit + 1 }, filter);
  return { rows: rows.slice(0, window.limit), hasNext: rows.length > window.limit, total };
}

export function countActivations(db: Database, filter: activations.ActivationFilter = {}): Promise<number> {
  return activations.countActivations(db, filter);
}

/** A book's activations; 404 for a book that does not exist, rather than an empty list. */
export const listActivationsOfBook = ofExistingBook(
  (db, bookId, window: ListWindow<activations.ActivationSortField>) =>
    listActivations(db, window, { bookId }),
);

export const countActivationsOfBook = ofExistingBook((db, bookId) => countActivations(db, { bookId }));

async function getActivation(db: Database, id: number): Promise<activations.ActivationRow> {
  return found(await activations.findActivation(db, id), `Activation ${id}`);
}

/** The activation, if the caller holds it or is an admin (403 otherwise). */
export async function getActivationFor(
  db: Database,
  principal: Principal,
  id: number,
): Promise<activations.ActivationRow> {
  const activation = await getActivation(db, id);
  assertOwner(principal, activation.userUuid);
  return activation;
}

/** Both references of the input must exist, else 400: the book here, the user in the store. */
async function assertReferencesExist(
  db: Database,
  store: StoreDirectory,
  input: ActivationInputValue,
): Promise<void> {
  const [book, user] = await Promise.all([findBook(db, input.bookId), store.findByUuid(input.userUuid)]);
  const errors: FieldError[] = [];
  if (!book) errors.push({ path: "bookId", message: `book ${input.bookId} does not exist` });
  if (!user) errors.push(unknownUser(input.userUuid));
  if (errors.length > 0) {
    const detail = errors.map((error) => `${error.path}: ${error.message}`).join("; ");
    throw new AppError("VALIDATION_FAILED", detail, { errors });
  }
}

const unknownUser = (uuid: string): FieldError => ({ path: "userUuid", message: `no user has uuid ${uuid}` });

/** A user named in a body must exist in the store: an unknown one is a 400 VALIDATION_FAILED. */
export async function assertUserExists(store: StoreDirectory, uuid: string): Promise<void> {
  if (!(await store.findByUuid(uuid))) {
    const { path, message } = unknownUser(uuid);
    throw validationFailed(path, message);
  }
}

const duplicate = (input: ActivationInputValue) =>
  conflictIfDuplicate(`User ${input.userUuid} already has an activation of book ${input.bookId}.`);

export async function createActivation(
  db: Database,
  store: StoreDirectory,
  by: AuditSource,
  input: ActivationInputValue,
  now: Date,
): Promise<activations.ActivationRow> {
  // Outside the transaction: the store may be another server (a SQLite transaction ends in its turn).
  await assertReferencesExist(db, store, input);
  return withTransaction(db, async (tx) => {
    // The unique (user, book) index decides between racing requests; no read-then-write here.
    const activation = await activations
      .insertActivation(tx, { ...input, qrCodeId: null }, now)
      .catch(duplicate(input));
    await recordChange(tx, by, now, "activation", "create", activation.id, null, activation);
    return activation;
  });
}

/**
 * Replaces book and user. The link to the QR code stays: the activation was still made from it,
 * and the code's count says how many were.
 */
export async function replaceActivation(
  db: Database,
  store: StoreDirectory,
  by: AuditSource,
  id: number,
  input: ActivationInputValue,
  now: Date,
): Promise<activations.ActivationRow> {
  await getActivation(db, id);
  await assertReferencesExist(db, store, input);
  return withTransaction(db, async (tx) => {
    const before = await getActivation(tx, id);
    const updated = await activations.updateActivation(tx, id, input, now).catch(duplicate(input));
    const after = found(updated, `Activation ${id}`);
    // The previous holder lost that book: the revocations feed says so (README "Offline entitlements").
    if (before.userUuid !== after.userUuid || before.bookId !== after.bookId) {
      await recordActivationEnds(tx, [before], now);
    }
    await recordChange(tx, by, now, "activation", "update", id, before, after);
    return after;
  });
}

/** Deletes the activation (the entitlement ends) and frees its slot on the code in one transaction. */
export async function removeActivation(
  db: Database,
  by: AuditSource,
  id: number,
  now: Date,
): Promise<activations.ActivationRow> {
  return withTransaction(db, async (tx) => {
    const deleted = found(await activations.deleteActivation(tx, id), `Activation ${id}`);
    if (deleted.qrCodeId !== null) await releaseActivation(tx, deleted.qrCodeId, now);
    // The revocations feed of offline entitlements (README "Offline entitlements").
    await recordActivationEnds(tx, [deleted], now);
    await recordChange(tx, by, now, "activation", "delete", id, deleted, null);
    return deleted;
  });
}
