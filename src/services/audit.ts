// Who did what (README "Audit log"): every change an admin, the shop sync or an operator's command
// makes is recorded by the service that makes it, inside its transaction, through recordAudit, so
// a change and its event commit or roll back together. The actor is passed down explicitly
// (AuditSource), never read from a global. `changes` holds only the fields listed per record in
// `auditedFields`: a password, token, secret, hash of a secret, activation code or file bytes is
// never among them (a file is named by its sha256 and size).
import type { Database } from "#db";
import type { Principal } from "../auth/principal";
import { withTransaction } from "../db/transaction";
import type { ListRead, ListWindow } from "../lib/list-window";
import * as events from "../repositories/audit-events";
import { found } from "./guards";
import { pagedList } from "./page";

export type { AuditEventRow, AuditEventSortField } from "../repositories/audit-events";

/** How the actor reached bookdist. */
export type AuditVia = "api" | "console" | "cli" | "shop" | "system";

export interface AuditActor {
  uuid: string | null;
  email: string | null;
  via: AuditVia;
}

/** Who makes a change, and from which request (null outside a request: the CLI, the shop sync, a job). */
export interface AuditSource {
  actor: AuditActor;
  requestId: string | null;
  client: string | null;
}

/** A value of `changes`: JSON only (a time is its RFC 3339 string). */
export type AuditValue = string | number | boolean | null;
export type AuditChanges = Record<string, [before: AuditValue, after: AuditValue]>;

export interface AuditEvent {
  by: AuditSource;
  at: Date;
  /** `<record>.<verb>`, e.g. `book.update`. */
  action: string;
  target: { type: string; id: number | string };
  changes: AuditChanges;
}

/** An admin's (or any caller's) change over the JSON API. */
export function apiSource(
  principal: Principal,
  requestId: string | null,
  client: string | null,
): AuditSource {
  return { actor: { uuid: principal.userUuid, email: principal.email, via: "api" }, requestId, client };
}

/** An admin's change in the publisher's console (README "Console"). */
export function consoleSource(
  principal: Principal,
  requestId: string | null,
  client: string | null,
): AuditSource {
  return { actor: { uuid: principal.userUuid, email: principal.email, via: "console" }, requestId, client };
}

/** `bun run admin …`, `bun run storage …`: the operator at the command line. */
export const cliSource: AuditSource = {
  actor: { uuid: null, email: null, via: "cli" },
  requestId: null,
  client: null,
};

/** The shop sync and webhook: what the shop's orders grant and take back. */
export const shopSource: AuditSource = {
  actor: { uuid: null, email: null, via: "shop" },
  requestId: null,
  client: null,
};

/** A scheduled job of the server. */
export const systemSource: AuditSource = {
  actor: { uuid: null, email: null, via: "system" },
  requestId: null,
  client: null,
};

/**
 * Writes the event; call with the change's transaction handle (`tx`), after the change, so that
 * a change that fails (a 409, a constraint) throws before and leaves no event, and a rollback
 * takes both.
 */
export function recordAudit(tx: Database, event: AuditEvent): Promise<void> {
  const { actor, requestId, client } = event.by;
  return events.insertAuditEvent(tx, {
    at: event.at,
    actorUuid: actor.uuid,
    actorEmail: actor.email?.toLowerCase() ?? null,
    actorVia: actor.via,
    action: event.action,
    targetType: event.target.type,
    targetId: String(event.target.id),
    changes: JSON.stringify(event.changes),
    requestId,
    client,
  });
}

/**
 * An event that is the whole of its transaction: an operator's command whose change lies outside
 * the database (a backup taken, blobs copied into a bucket).
 */
export function recordAuditAlone(db: Database, event: AuditEvent): Promise<void> {
  return withTransaction(db, (tx) => recordAudit(tx, event));
}

/** The fields of `Row` the audit log may name, checked against the row type. */
function fieldsOf<Row>() {
  return <const K extends readonly (keyof Row & string)[]>(...keys: K) => keys;
}

type Tables = Database["tables"];
type RowOf<K extends keyof Tables> = Tables[K]["$inferSelect"];

/**
 * The auditable fields of each record, by construction: what is not here never reaches
 * `changes`. Left out on purpose: a QR code's `code` (it redeems the book), times the change
 * itself sets (`updatedAt`, `…UploadedAt`), counters.
 */
export const auditedFields = {
  book: fieldsOf<RowOf<"book">>()(
    "title",
    "author",
    "isbn",
    "description",
    "language",
    "coverSha256",
    "coverSize",
    "coverWidth",
    "coverHeight",
  ),
  bookversion: fieldsOf<RowOf<"bookVersion">>()(
    "bookId",
    "versionCode",
    "versionName",
    "releaseNotes",
    "archiveSha256",
    "archiveSize",
    "archiveFilename",
  ),
  activation: fieldsOf<RowOf<"activation">>()("bookId", "userUuid", "qrCodeId", "shopOrderId"),
  qrcode: fieldsOf<RowOf<"activationQrCode">>()(
    "bookId",
    "batchId",
    "enabled",
    "maxActivations",
    "label",
    "expiresAt",
  ),
  batch: fieldsOf<RowOf<"qrCodeBatch">>()("bookId", "label", "maxActivations", "expiresAt"),
  apk: fieldsOf<RowOf<"apk">>()(
    "kind",
    "versionCode",
    "versionName",
    "releaseNotes",
    "active",
    "packageName",
    "minSdk",
    "signerSha256",
    "fileSha256",
    "fileSize",
    "fileFilename",
  ),
  shopproduct: fieldsOf<RowOf<"shopProduct">>()("bookId", "productId", "variationId"),
  // Never the token's digests: a device token is named by its id, its user and its name.
  devicetoken: fieldsOf<RowOf<"deviceToken">>()("userUuid", "name", "scopes", "expiresAt", "revokedAt"),
  // Never a key's halves: a signing key is named by its thumbprint and when it starts to sign.
  entitlementkey: fieldsOf<RowOf<"entitlementKey">>()("kid", "signsFrom"),
} as const;

export type AuditedRecord = keyof typeof auditedFields;

function auditValueOf(value: unknown): AuditValue {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  throw new TypeError("an audited field holds a value that is not a scalar");
}

/**
 * The audited fields of `record` that differ between `before` and `after`, as [before, after]:
 * a creation has no `before` (null), a deletion no `after`.
 */
export function changesOf<K extends AuditedRecord>(
  record: K,
  before: Partial<Record<(typeof auditedFields)[K][number], unknown>> | null,
  after: Partial<Record<(typeof auditedFields)[K][number], unknown>> | null,
): AuditChanges {
  const changes: AuditChanges = {};
  for (const field of auditedFields[record] as readonly string[]) {
    const was = auditValueOf(before ? (before as Record<string, unknown>)[field] : null);
    const is = auditValueOf(after ? (after as Record<string, unknown>)[field] : null);
    if (was !== is) changes[field] = [was, is];
  }
  return changes;
}

/** Records the event of `record`'s row changing from `before` to `after` (see changesOf). */
export function recordChange<K extends AuditedRecord>(
  tx: Database,
  by: AuditSource,
  at: Date,
  record: K,
  verb: string,
  id: number,
  before: Partial<Record<(typeof auditedFields)[K][number], unknown>> | null,
  after: Partial<Record<(typeof auditedFields)[K][number], unknown>> | null,
  extra: AuditChanges = {},
): Promise<void> {
  return recordAudit(tx, {
    by,
    at,
    action: `${record}.${verb}`,
    target: { type: record, id },
    changes: { ...changesOf(record, before, after), ...extra },
  });
}

// --- the read side: GET /audit-event, /audit-event/count, /audit-event/{id} ---

export type AuditEventFilter = events.AuditEventFilter;

const NEWEST_FIRST = [{ field: "id", direction: "desc" }] as const;

const listFiltered = pagedList(events.listAuditEvents, events.countAuditEvents);

/** The events `filter` keeps, newest first unless the window sorts. */
export function listAuditEvents(
  db: Database,
  window: ListWindow<events.AuditEventSortField>,
  filter: AuditEventFilter = {},
): Promise<ListRead<events.AuditEventRow>> {
  const sort = window.sort.length > 0 ? window.sort : [...NEWEST_FIRST];
  return listFiltered(db, { ...window, sort }, filter);
}

export function countAuditEvents(db: Database, filter: AuditEventFilter = {}): Promise<number> {
  return events.countAuditEvents(db, filter);
}

export async function getAuditEvent(db: Database, id: number): Promise<events.AuditEventRow> {
  return found(await events.findAuditEvent(db, id), `Audit event ${id}`);
}
