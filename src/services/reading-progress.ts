// Reading progress (README "Reading progress"): one position per user and book, shared by every
// app. The API's clients write a Readium Locator with the `modified` time of the position (an
// older one than stored is a 409: another device moved on); KOReader's sync writes its own
// opaque progress, found by the partial MD5 of the file it reads. Both meet in `percentage`,
// and the latest write from either side wins.
import type { Database } from "#db";
import type { Principal } from "../auth/principal";
import { AppError } from "../lib/problems";
import { findHeldVersionByPartialMd5 } from "../repositories/book-versions";
import {
  findReadingProgress,
  type ReadingProgressRow,
  upsertReadingProgress,
} from "../repositories/reading-progress";
import { isPartialMd5 } from "../storage/partial-md5";
import { getBook } from "./books";
import { assertEntitled } from "./entitlement";

export type { ReadingProgressRow } from "../repositories/reading-progress";

/** A Readium Locator, as stored (the route's schema bounds each field). */
export interface Locator {
  href: string;
  type: string;
  title?: string | undefined;
  locations: {
    progression?: number | undefined;
    totalProgression?: number | undefined;
    position?: number | undefined;
  };
  text?:
    | { before?: string | undefined; highlight?: string | undefined; after?: string | undefined }
    | undefined;
}

export interface ProgressInput {
  percentage: number;
  locator?: Locator | null | undefined;
  device: string;
  /** RFC 3339: when the position was taken on the device. */
  modified: string;
}

/** The caller's position in a book they hold (an admin: any book), or undefined when none. */
export async function getReadingProgress(
  db: Database,
  principal: Principal,
  bookId: number,
): Promise<ReadingProgressRow | undefined> {
  await getBook(db, bookId);
  await assertEntitled(db, principal, bookId);
  return findReadingProgress(db, principal.userUuid, bookId);
}

/**
 * Stores the caller's position; 409 CONFLICT when the stored one was modified later. A
 * `modified` ahead of the server's clock is taken as now, so a device with a fast clock cannot
 * hold every other device (and KOReader, whose writes are stamped now) off.
 */
export async function putReadingProgress(
  db: Database,
  principal: Principal,
  bookId: number,
  input: ProgressInput,
  now: Date,
): Promise<ReadingProgressRow> {
  await getBook(db, bookId);
  await assertEntitled(db, principal, bookId);
  const modified = new Date(Math.min(Date.parse(input.modified), now.getTime()));
  const row = await upsertReadingProgress(db, {
    userUuid: principal.userUuid,
    bookId,
    versionId: null,
    percentage: input.percentage,
    locator: input.locator ? JSON.stringify(input.locator) : null,
    // KOReader's opaque position points elsewhere now: it is not given back as current.
    koreaderProgress: null,
    koreaderDevice: null,
    koreaderDeviceId: null,
    device: input.device,
    updatedAt: modified,
  });
  if (!row) {
    throw new AppError(
      "CONFLICT",
      "The stored progress was modified later than this one: another device moved on. Read it and try again.",
    );
  }
  return row;
}

/** The Locator of a row, parsed back. */
export function locatorOf(row: ReadingProgressRow): Locator | null {
  return row.locator === null ? null : (JSON.parse(row.locator) as Locator);
}

/** KOReader's part of a row, when the latest write was KOReader's. */
export function koreaderOf(
  row: ReadingProgressRow,
): { progress: string; device: string; deviceId: string } | null {
  if (row.koreaderProgress === null) return null;
  return {
    progress: row.koreaderProgress,
    device: row.koreaderDevice ?? "",
    deviceId: row.koreaderDeviceId ?? "",
  };
}

/** What KOReader pushes (PUT /kosync/syncs/progress). */
export interface KoreaderPush {
  document: string;
  progress: string;
  percentage: number;
  device: string;
  deviceId: string;
}

/**
 * Stores KOReader's position when `document` is a version of a book the caller holds; answers
 * whether it was stored. Stamped now: the latest write wins.
 */
export async function pushKoreaderProgress(
  db: Database,
  principal: Principal,
  push: KoreaderPush,
  now: Date,
): Promise<boolean> {
  // What is no partial MD5 names no version: no lookup.
  if (!isPartialMd5(push.document)) return false;
  const version = await findHeldVersionByPartialMd5(db, principal.userUuid, push.document);
  if (!version) return false;
  const row = await upsertReadingProgress(db, {
    userUuid: principal.userUuid,
    bookId: version.bookId,
    versionId: version.id,
    percentage: push.percentage,
    // The Locator points elsewhere now.
    locator: null,
    koreaderProgress: push.progress,
    koreaderDevice: push.device,
    koreaderDeviceId: push.deviceId,
    device: push.device,
    updatedAt: now,
  });
  return row !== undefined;
}

/** The caller's position in the book `document` is a version of, or undefined. */
export async function pullKoreaderProgress(
  db: Database,
  principal: Principal,
  document: string,
): Promise<ReadingProgressRow | undefined> {
  const digest = document.toLowerCase();
  if (!isPartialMd5(digest)) return undefined;
  const version = await findHeldVersionByPartialMd5(db, principal.userUuid, digest);
  if (!version) return undefined;
  return findReadingProgress(db, principal.userUuid, version.bookId);
}
