// Postgres schema. Export names, columns and inferred row types must match ./sqlite.ts exactly:
// ./parity.ts fails the type-check when they drift.
import { sql } from "drizzle-orm";
import type { BunSQLQueryResultHKT } from "drizzle-orm/bun-sql";
import {
  bigint,
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  type PgDatabase,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

// bigint ids as JS numbers: ids stay below 2^53 (a path id above 2^53−1 is a 400 too).
const id = () => bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity();
const ref = (name: string) => bigint(name, { mode: "number" });
const time = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: "date" });
const bool = (name: string) => boolean(name);
const bigNumber = (name: string) => bigint(name, { mode: "number" });

export const blob = pgTable("blob", {
  sha256: text("sha256").primaryKey(),
  size: bigNumber("size").notNull(),
  createdAt: time("created_at").notNull(),
});

// Every sort field of a list has an index, so a page is read in order, not sorted:
// (field, id), since the id breaks ties and a Postgres index does not carry it.
export const book = pgTable(
  "book",
  {
    id: id(),
    title: text("title").notNull(),
    author: text("author"),
    isbn: text("isbn"),
    description: text("description"),
    language: text("language"),
    coverSha256: text("cover_sha256").references(() => blob.sha256, { onDelete: "restrict" }),
    coverSize: bigNumber("cover_size"),
    coverWidth: integer("cover_width"),
    coverHeight: integer("cover_height"),
    coverUpdatedAt: time("cover_updated_at"),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [
    index("book_title_idx").on(t.title, t.id),
    index("book_author_idx").on(t.author, t.id),
    index("book_created_at_idx").on(t.createdAt, t.id),
    index("book_updated_at_idx").on(t.updatedAt, t.id),
  ],
);

export const bookVersion = pgTable(
  "book_version",
  {
    id: id(),
    bookId: ref("book_id")
      .notNull()
      .references(() => book.id, { onDelete: "cascade" }),
    versionCode: integer("version_code").notNull(),
    versionName: text("version_name").notNull(),
    releaseNotes: text("release_notes"),
    archiveSha256: text("archive_sha256").references(() => blob.sha256, { onDelete: "restrict" }),
    archiveSize: bigNumber("archive_size"),
    archiveFilename: text("archive_filename"),
    // README "Book versions: archives and EPUBs": null until the archive is recognised (at upload,
    // or by the start-up backfill for archives stored before), then "epub" or "zip".
    archiveFormat: text("archive_format", { enum: ["epub", "zip"] }),
    /** An EPUB's package metadata as JSON (storage/epub.ts EpubMetadata); null for a zip. */
    archiveEpub: text("archive_epub"),
    /**
     * KOReader's partial MD5 of the archive's bytes (storage/partial-md5.ts, README "Reading
     * progress"): null until computed (at upload, or by the start-up backfill).
     */
    archivePartialMd5: text("archive_partial_md5"),
    archiveUploadedAt: time("archive_uploaded_at"),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("book_version_book_code_uq").on(t.bookId, t.versionCode),
    // The start-up backfill's slices: archives stored before they were recognised.
    index("book_version_unrecognised_idx")
      .on(t.id)
      .where(sql`${t.archiveFormat} IS NULL AND ${t.archiveSha256} IS NOT NULL`),
    // A KOReader document → its versions; and the backfill's slices of versions without one.
    index("book_version_partial_md5_idx").on(t.archivePartialMd5),
    index("book_version_no_partial_md5_idx")
      .on(t.id)
      .where(sql`${t.archivePartialMd5} IS NULL AND ${t.archiveSha256} IS NOT NULL`),
    index("book_version_book_idx").on(t.bookId, t.id),
    index("book_version_version_code_idx").on(t.versionCode, t.id),
    index("book_version_created_at_idx").on(t.createdAt, t.id),
    // A book's newest version (the highest code with an archive) in one seek, for every row of a
    // shelf or an OPDS feed (repositories/activations.ts isNewestVersion).
    index("book_version_newest_idx")
      .on(t.bookId, t.versionCode, t.id)
      .where(sql`${t.archiveSha256} IS NOT NULL`),
    // Versions with an archive by the time they changed: Recently updated starts from those changed
    // in its window, not from every held book (repositories/activations.ts filteredCatalogPage).
    index("book_version_changed_idx")
      .on(t.updatedAt, t.bookId, t.versionCode)
      .where(sql`${t.archiveSha256} IS NOT NULL`),
  ],
);

export const qrCodeBatch = pgTable(
  "qr_code_batch",
  {
    id: id(),
    bookId: ref("book_id")
      .notNull()
      .references(() => book.id, { onDelete: "cascade" }),
    label: text("label"),
    maxActivations: integer("max_activations").notNull(),
    expiresAt: time("expires_at"),
    createdAt: time("created_at").notNull(),
  },
  (t) => [index("qr_code_batch_book_idx").on(t.bookId)],
);

export const activationQrCode = pgTable(
  "activation_qr_code",
  {
    id: id(),
    bookId: ref("book_id")
      .notNull()
      .references(() => book.id, { onDelete: "cascade" }),
    batchId: ref("batch_id").references(() => qrCodeBatch.id, { onDelete: "cascade" }),
    code: text("code").notNull(),
    enabled: bool("enabled").notNull(),
    maxActivations: integer("max_activations").notNull(),
    activationCount: integer("activation_count").notNull(),
    label: text("label"),
    expiresAt: time("expires_at"),
    // Set by the first redemption and kept when its activation is deleted: "no activation was
    // ever made from it" (null-activations) is this being null. Internal, not in ActivationQrCode.
    firstRedeemedAt: time("first_redeemed_at"),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("activation_qr_code_code_uq").on(t.code),
    index("activation_qr_code_book_idx").on(t.bookId, t.id),
    index("activation_qr_code_batch_idx").on(t.batchId, t.id),
    index("activation_qr_code_created_at_idx").on(t.createdAt, t.id),
    index("activation_qr_code_enabled_idx").on(t.enabled, t.id),
    // One book's codes in the sorts its list offers: a book may have 200,000 of them.
    index("activation_qr_code_book_created_at_idx").on(t.bookId, t.createdAt, t.id),
    index("activation_qr_code_book_enabled_idx").on(t.bookId, t.enabled, t.id),
    // A book's never-redeemed codes (null-activations and its count) without reading the others.
    index("activation_qr_code_unused_idx").on(t.bookId, t.id).where(sql`${t.firstRedeemedAt} IS NULL`),
    // The last guard against over-redemption: a racing update that would pass the limit fails.
    check(
      "activation_qr_code_count_ck",
      sql`${t.activationCount} >= 0 AND ${t.activationCount} <= ${t.maxActivations}`,
    ),
  ],
);

export const activation = pgTable(
  "activation",
  {
    id: id(),
    // restrict: a book that readers hold cannot disappear under them (DELETE /book → 409).
    bookId: ref("book_id")
      .notNull()
      .references(() => book.id, { onDelete: "restrict" }),
    userUuid: text("user_uuid").notNull(),
    qrCodeId: ref("qr_code_id").references(() => activationQrCode.id, { onDelete: "set null" }),
    // The WooCommerce order that granted it (README, Shop orders); no foreign key: the order lives
    // in the shop.
    shopOrderId: bigNumber("shop_order_id"),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("activation_user_book_uq").on(t.userUuid, t.bookId),
    index("activation_book_idx").on(t.bookId, t.id),
    index("activation_qr_code_idx").on(t.qrCodeId),
    // A book's activations by creation time (GET /book/{id}/activations?sort=createdAt): a page
    // reads its rows, not the book's every activation sorted.
    index("activation_book_created_at_idx").on(t.bookId, t.createdAt, t.id),
    index("activation_created_at_idx").on(t.createdAt, t.id),
    // One reader's shelf newest first, read in order and cut at its page: My books and its OPDS
    // feed cost their page, not the reader's every book.
    index("activation_user_created_at_idx").on(t.userUuid, t.createdAt, t.id),
    // GET /activation's `source` (code, shop order, by hand; the same CASE as
    // repositories/activations.ts) in id or date order: a page of a rare source is read from an
    // index, not found by walking every activation (test/db/sort-indexes.test.ts).
    index("activation_source_idx").on(
      sql`(CASE WHEN ${t.qrCodeId} IS NOT NULL THEN 'code' WHEN ${t.shopOrderId} IS NOT NULL THEN 'order' ELSE 'manual' END)`,
      t.id,
    ),
    index("activation_source_created_at_idx").on(
      sql`(CASE WHEN ${t.qrCodeId} IS NOT NULL THEN 'code' WHEN ${t.shopOrderId} IS NOT NULL THEN 'order' ELSE 'manual' END)`,
      t.createdAt,
      t.id,
    ),
  ],
);

export const apk = pgTable(
  "apk",
  {
    id: id(),
    kind: text("kind", { enum: ["bookapp", "launcher"] }).notNull(),
    versionCode: integer("version_code").notNull(),
    versionName: text("version_name").notNull(),
    releaseNotes: text("release_notes"),
    active: bool("active").notNull(),
    packageName: text("package_name"),
    minSdk: integer("min_sdk"),
    signerSha256: text("signer_sha256"),
    fileSha256: text("file_sha256").references(() => blob.sha256, { onDelete: "restrict" }),
    fileSize: bigNumber("file_size"),
    fileFilename: text("file_filename"),
    fileUploadedAt: time("file_uploaded_at"),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("apk_kind_code_uq").on(t.kind, t.versionCode),
    // At most one active APK per kind, whatever the application does.
    uniqueIndex("apk_one_active_per_kind_uq").on(t.kind).where(sql`${t.active}`),
    index("apk_kind_idx").on(t.kind, t.id),
    index("apk_version_code_idx").on(t.versionCode, t.id),
    index("apk_created_at_idx").on(t.createdAt, t.id),
  ],
);

export const userSession = pgTable(
  "user_session",
  {
    id: text("id").primaryKey(),
    userUuid: text("user_uuid").notNull(),
    storeUserId: text("store_user_id").notNull(),
    createdAt: time("created_at").notNull(),
    lastSeenAt: time("last_seen_at").notNull(),
    expiresAt: time("expires_at").notNull(),
    userAgent: text("user_agent"),
    clientAddress: text("client_address"),
    // Roles and account state as last read from the store and the admin grants: the token's own
    // roles claim grants nothing (README, Words used here: re-check).
    isAdmin: bool("is_admin").notNull().default(false),
    // A keyed digest of the account's password hash at login, never the hash: a changed hash ends
    // the session. Rows from before it existed hold "", which no digest equals.
    passwordStamp: text("password_stamp").notNull().default(""),
    // When the store was last asked; the epoch for old rows makes their first use ask at once.
    checkedAt: time("checked_at").notNull().default(sql`'epoch'`),
  },
  (t) => [index("user_session_user_idx").on(t.userUuid), index("user_session_expires_idx").on(t.expiresAt)],
);

// Console sessions (README "Console"): a staff member signed in to /console in a browser, apart from
// the API's user_session (a Bearer token never opens the console, the console's cookie never the
// API). The id is 256 random bits held only in the browser's cookie; the row is keyed by its
// SHA-256. Re-read against the store at least every 30 s, like an API session (is_admin,
// password_stamp, checked_at); the cleanup job deletes rows past expires_at or idle.
export const consoleSession = pgTable(
  "console_session",
  {
    id: text("id").primaryKey(),
    userUuid: text("user_uuid").notNull(),
    storeUserId: text("store_user_id").notNull(),
    email: text("email").notNull(),
    createdAt: time("created_at").notNull(),
    lastSeenAt: time("last_seen_at").notNull(),
    expiresAt: time("expires_at").notNull(),
    isAdmin: bool("is_admin").notNull(),
    passwordStamp: text("password_stamp").notNull(),
    checkedAt: time("checked_at").notNull(),
  },
  (t) => [
    index("console_session_user_idx").on(t.userUuid),
    index("console_session_expires_idx").on(t.expiresAt),
    index("console_session_last_seen_idx").on(t.lastSeenAt),
  ],
);

// Device tokens (app passwords, README "Reading apps"): HTTP Basic passwords for reading apps,
// good only on the operations of their scopes. Only digests of a token are kept. An ended token
// (revoked_at set, or past expires_at) stays 30 days, then the cleanup job deletes it; the live
// ones of a user are found by device_token_user_idx.
export const deviceToken = pgTable(
  "device_token",
  {
    id: id(),
    userUuid: text("user_uuid").notNull(),
    // The store's id of the account the token was made for: another account under the same uuid
    // (a restored shop) ends the token, as it ends a session.
    storeUserId: text("store_user_id").notNull(),
    name: text("name").notNull(),
    /** The token's first 8 characters (DeviceToken.prefix), to tell tokens apart in a list. */
    prefix: text("prefix").notNull(),
    sha256: text("sha256").notNull(),
    /** SHA-256 of the token's lower-case hex MD5: what KOReader's progress sync can be checked by. */
    md5Sha256: text("md5_sha256").notNull(),
    /** Comma-separated, from opds, sync, entitlements. */
    scopes: text("scopes").notNull(),
    // A keyed digest of the account's password hash when the token was made (as user_session's):
    // a changed password ends the token.
    passwordStamp: text("password_stamp").notNull(),
    createdAt: time("created_at").notNull(),
    lastUsedAt: time("last_used_at"),
    expiresAt: time("expires_at"),
    revokedAt: time("revoked_at"),
    // When the store was last asked about the account (at most a minute ago for a token in use).
    checkedAt: time("checked_at").notNull().default(sql`'epoch'`),
  },
  (t) => [
    uniqueIndex("device_token_sha256_uq").on(t.sha256),
    uniqueIndex("device_token_md5_sha256_uq").on(t.md5Sha256),
    index("device_token_user_idx").on(t.userUuid),
    // The cleanup job finds ended tokens by these (jobs/session-cleanup.ts).
    index("device_token_revoked_idx").on(t.revokedAt),
    index("device_token_expires_idx").on(t.expiresAt),
  ],
);

// README "Reading progress": one position per (user, book), shared by every app; the latest write
// from the API or KOReader's sync wins. A write is one upsert on reading_progress_user_book_uq.
export const readingProgress = pgTable(
  "reading_progress",
  {
    id: id(),
    userUuid: text("user_uuid").notNull(),
    bookId: ref("book_id")
      .notNull()
      .references(() => book.id, { onDelete: "cascade" }),
    versionId: ref("version_id").references(() => bookVersion.id, { onDelete: "set null" }),
    percentage: doublePrecision("percentage").notNull(),
    /** A Readium Locator as JSON; null when the last write was KOReader's. */
    locator: text("locator"),
    koreaderProgress: text("koreader_progress"),
    koreaderDevice: text("koreader_device"),
    koreaderDeviceId: text("koreader_device_id"),
    device: text("device").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("reading_progress_user_book_uq").on(t.userUuid, t.bookId),
    index("reading_progress_book_idx").on(t.bookId),
    // A deleted version sets its rows' version_id to null: found by this, not a scan.
    index("reading_progress_version_idx").on(t.versionId),
  ],
);

// Admins an operator granted with `bun run admin grant`, beside the store's own administrators.
export const adminGrant = pgTable("admin_grant", {
  userUuid: text("user_uuid").primaryKey(),
  grantedAt: time("granted_at").notNull(),
});

export const storeUserLink = pgTable(
  "store_user_link",
  {
    uuid: text("uuid").primaryKey(),
    storeUserId: text("store_user_id").notNull(),
    createdAt: time("created_at").notNull(),
  },
  (t) => [uniqueIndex("store_user_link_store_user_uq").on(t.storeUserId)],
);

// The embedded store: shaped like WordPress's wp_users / wp_usermeta so that both drivers
// share one mental model (and the same password hashes).
export const storeUser = pgTable(
  "store_user",
  {
    id: id(),
    userLogin: text("user_login").notNull(),
    userPass: text("user_pass").notNull(),
    userNicename: text("user_nicename").notNull(),
    userEmail: text("user_email").notNull(),
    userUrl: text("user_url").notNull(),
    userRegistered: time("user_registered").notNull(),
    userActivationKey: text("user_activation_key").notNull(),
    userStatus: integer("user_status").notNull(),
    displayName: text("display_name").notNull(),
  },
  (t) => [
    // Unlike WordPress, the embedded store lets the database enforce uniqueness.
    uniqueIndex("store_user_email_uq").on(sql`lower(${t.userEmail})`),
    uniqueIndex("store_user_login_uq").on(sql`lower(${t.userLogin})`),
    // GET /user's prefix ranges in code-point order whatever the database's collation
    // (store/embedded.ts searchUsers); SQLite's unique indexes above serve them already.
    index("store_user_email_prefix_idx").on(sql`(lower(${t.userEmail}) COLLATE "C")`),
    index("store_user_login_prefix_idx").on(sql`(lower(${t.userLogin}) COLLATE "C")`),
  ],
);

export const storeUsermeta = pgTable(
  "store_usermeta",
  {
    umetaId: bigint("umeta_id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    userId: ref("user_id")
      .notNull()
      .references(() => storeUser.id, { onDelete: "cascade" }),
    metaKey: text("meta_key").notNull(),
    metaValue: text("meta_value").notNull(),
  },
  (t) => [
    index("store_usermeta_user_key_idx").on(t.userId, t.metaKey),
    // GET /user's prefix of a first or last name (store/embedded.ts searchUsers).
    index("store_usermeta_name_idx")
      .on(t.metaKey, sql`(lower(${t.metaValue}) COLLATE "C")`)
      .where(sql`${t.metaKey} IN ('first_name', 'last_name')`),
  ],
);

export const rateLimit = pgTable("rate_limit", {
  key: text("key").primaryKey(),
  count: integer("count").notNull(),
  windowEndsAt: time("window_ends_at").notNull(),
});

// Exact whole-table counts (`…/count`, X-Total-Count), kept by triggers in the same transaction
// as the rows they count (migration 0004): a table's count is the sum of its slots. Each
// connection adds to the slot of its backend pid (mod 8), so concurrent writers on several
// instances rarely wait on one row lock, and a transaction holds one slot per table, never two
// that another could take in the other order.
export const rowCount = pgTable(
  "row_count",
  {
    tableName: text("table_name").notNull(),
    slot: integer("slot").notNull(),
    n: bigint("n", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.tableName, t.slot] })],
);

// Per-day counts for the console's dashboard (README "Console"), kept in the same transaction as
// what they count, so a chart of 90 days reads at most 90 × metrics × 8 rows, never the
// activations themselves. `day` is the UTC date (YYYY-MM-DD), or "" for a running total.
// Metrics: activation.code|order|manual (activations made that day, by source; the "" rows are the
// live totals, which deletes lower), code.redeemed ("" only: codes ever redeemed), download (whole
// archive and APK downloads that day). Triggers of migrations 0017 and 0021 keep the activation and code
// metrics; the access log adds downloads. `slot` spreads concurrent writers over rows as
// row_count's does.
export const dailyCount = pgTable(
  "daily_count",
  {
    day: text("day").notNull(),
    metric: text("metric").notNull(),
    slot: integer("slot").notNull(),
    n: integer("n").notNull(),
  },
  (t) => [primaryKey({ columns: [t.day, t.metric, t.slot] })],
);

// The day each reader was last active (an API session or a device token used that day; UTC), one
// row per user, written only by triggers (migration 0019): a row moving to a later day moves one
// count of daily_count's "reader.last-active" from its old day to its new one, so "active readers
// in the last 30 days" is the sum of 30 rows of daily_count (README "Console"), whatever the users.
export const readerActivity = pgTable("reader_activity", {
  userUuid: text("user_uuid").primaryKey(),
  day: text("day").notNull(),
});

// Each book's number of QR codes, kept by triggers like row_count (migration 0004): counting a
// 200,000-code book's index entries took 26 ms. No foreign key: a book's delete cascades to its
// codes, whose delete trigger brings the row to 0 and removes it.
export const bookQrCodeCount = pgTable("book_qr_code_count", {
  bookId: ref("book_id").primaryKey(),
  n: bigint("n", { mode: "number" }).notNull(),
});

// Each print run's counts, kept by migration 0020's triggers (see sqlite.ts). Like row_count, each
// connection adds to the slot of its backend pid (mod 8): redemptions of one run on several
// instances rarely wait on one row lock.
export const qrCodeBatchCount = pgTable(
  "qr_code_batch_count",
  {
    batchId: ref("batch_id").notNull(),
    slot: integer("slot").notNull(),
    codes: bigint("codes", { mode: "number" }).notNull(),
    redeemed: bigint("redeemed", { mode: "number" }).notNull(),
    disabled: bigint("disabled", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.batchId, t.slot] })],
);

// Shop orders (README, Shop orders; migration 0005): see sqlite.ts for what each table is for.
export const shopProduct = pgTable(
  "shop_product",
  {
    id: id(),
    bookId: ref("book_id")
      .notNull()
      .references(() => book.id, { onDelete: "cascade" }),
    productId: bigNumber("product_id").notNull(),
    variationId: bigNumber("variation_id").notNull().default(0),
    createdAt: time("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("shop_product_book_product_variation_uq").on(t.bookId, t.productId, t.variationId),
    index("shop_product_product_idx").on(t.productId, t.id),
    index("shop_product_book_idx").on(t.bookId, t.id),
  ],
);

export const shopOrder = pgTable("shop_order", {
  orderId: bigNumber("order_id").primaryKey(),
  status: text("status").notNull(),
  paid: bool("paid").notNull(),
  userUuid: text("user_uuid"),
  // Unused since guest orders are claimed by their order key (see sqlite.ts).
  billingEmail: text("billing_email"),
  awaitingAccount: bool("awaiting_account").notNull().default(false),
  shopModifiedAt: time("shop_modified_at"),
  syncedAt: time("synced_at"),
  claimToken: text("claim_token"),
  claimedUntil: time("claimed_until"),
  guestClaimUuid: text("guest_claim_uuid"),
  guestClaimedAt: time("guest_claimed_at"),
});

export const shopOrderGrant = pgTable(
  "shop_order_grant",
  {
    id: id(),
    orderId: bigNumber("order_id")
      .notNull()
      .references(() => shopOrder.orderId, { onDelete: "cascade" }),
    lineItemId: bigNumber("line_item_id").notNull(),
    bookId: ref("book_id")
      .notNull()
      .references(() => book.id, { onDelete: "cascade" }),
    userUuid: text("user_uuid"),
    activationId: ref("activation_id").references(() => activation.id, { onDelete: "set null" }),
    state: text("state", { enum: ["active", "revoked", "already-held", "no-account"] }).notNull(),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("shop_order_grant_order_line_book_uq").on(t.orderId, t.lineItemId, t.bookId),
    index("shop_order_grant_user_book_idx").on(t.userUuid, t.bookId),
    index("shop_order_grant_activation_idx").on(t.activationId),
  ],
);

export const shopSyncState = pgTable("shop_sync_state", {
  id: integer("id").primaryKey(),
  orderStorage: text("order_storage"),
  cursorAt: time("cursor_at"),
  lastSyncAt: time("last_sync_at"),
  lastSyncStartedAt: time("last_sync_started_at"),
  lastSyncOrders: integer("last_sync_orders").notNull().default(0),
  lastWebhookAt: time("last_webhook_at"),
});

// This deployment's own id (README "Storage"): made at its first migration, renewed by a
// restore. Files and objects carry it (blob owner markers) so that the blob cleanup deletes only
// what this deployment wrote, never a file of another deployment sharing DATA_DIR or the bucket.
// `adoptPending`: the blobs the database names at the upgrade that made the row are taken over
// once, by the next cleanup run; a restored copy takes nothing over until `bun run storage adopt`.
export const deployment = pgTable("deployment", {
  id: text("id").primaryKey(),
  createdAt: time("created_at").notNull(),
  adoptPending: bool("adopt_pending").notNull(),
  /**
   * Postgres: the cluster's system identifier and the database's oid when the id was made. A
   * pg_restore into another database finds them changed, and the copy takes an id of its own
   * (repositories/deployment.ts); null on SQLite, whose copies `bun run admin restore` renews.
   */
  home: text("home"),
  /** A copy's original's id: `bun run storage adopt` takes that deployment's markers over. */
  originalId: text("original_id"),
});

// Offline entitlements' signing keys (README "Offline entitlements"): Ed25519, the private half
// AES-GCM-encrypted under a key derived from JWT_SECRET, so every instance signs with the same
// key. `id` is the key's generation, given by the writer: the first key is 1, and two instances
// making it at once meet on the primary key (insert-or-ignore, then read). A key signs from
// `signs_from` until the next generation does; it is published until every token it signed
// has expired.
export const entitlementKey = pgTable(
  "entitlement_key",
  {
    // A table-level key: an INTEGER PRIMARY KEY column would be a rowid, optional on insert.
    id: integer("id").notNull(),
    /** RFC 7638 thumbprint of the public key: the JWS header's `kid`. */
    kid: text("kid").notNull().unique("entitlement_key_kid_uq"),
    /** The public JWK (kty, crv, x) as JSON. */
    publicJwk: text("public_jwk").notNull(),
    /** base64url(iv ‖ AES-256-GCM(PKCS #8 private key)), the kid as additional data. */
    privateKeyEncrypted: text("private_key_encrypted").notNull(),
    createdAt: time("created_at").notNull(),
    signsFrom: time("signs_from").notNull(),
  },
  (t) => [primaryKey({ columns: [t.id] })],
);

// Activations that ended (deleted by an admin, revoked by the shop), written in the delete's
// transaction: the revocations feed of offline entitlements reads a user's since a time by
// (user_uuid, ended_at). No foreign keys: the activation is gone. Rows older than
// ENTITLEMENT_TTL are deleted by the cleanup job (no token that held the book lives longer).
export const activationEnd = pgTable(
  "activation_end",
  {
    id: id(),
    userUuid: text("user_uuid").notNull(),
    bookId: ref("book_id").notNull(),
    activationId: ref("activation_id").notNull(),
    endedAt: time("ended_at").notNull(),
  },
  (t) => [
    index("activation_end_user_ended_idx").on(t.userUuid, t.endedAt),
    index("activation_end_ended_idx").on(t.endedAt),
  ],
);

// Who did what (README "Audit log"): one row per change an admin, the shop sync or the CLI made,
// written in the change's own transaction. `changes` is JSON text ({ field: [before, after] }) on
// both databases; `target_id` is text since a target may be a user (uuid) as well as a record (id).
export const auditEvent = pgTable(
  "audit_event",
  {
    id: id(),
    at: time("at").notNull(),
    actorUuid: text("actor_uuid"),
    actorEmail: text("actor_email"),
    actorVia: text("actor_via").notNull(),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    changes: text("changes").notNull(),
    requestId: text("request_id"),
    client: text("client"),
  },
  (t) => [
    index("audit_event_at_idx").on(t.at, t.id),
    index("audit_event_actor_uuid_idx").on(t.actorUuid, t.id),
    index("audit_event_actor_email_idx").on(t.actorEmail, t.id),
    index("audit_event_action_idx").on(t.action, t.id),
    index("audit_event_target_idx").on(t.targetType, t.targetId, t.id),
  ],
);

export const tables = {
  blob,
  book,
  bookVersion,
  qrCodeBatch,
  activationQrCode,
  activation,
  apk,
  userSession,
  consoleSession,
  deviceToken,
  entitlementKey,
  activationEnd,
  readingProgress,
  adminGrant,
  storeUserLink,
  storeUser,
  storeUsermeta,
  rateLimit,
  rowCount,
  dailyCount,
  readerActivity,
  bookQrCodeCount,
  qrCodeBatchCount,
  shopProduct,
  shopOrder,
  shopOrderGrant,
  shopSyncState,
  deployment,
  auditEvent,
};

export type Tables = typeof tables;
export type Orm = PgDatabase<BunSQLQueryResultHKT, Tables>;
export type Dialect = "sqlite" | "postgres";
/** What repositories receive: the query builder (or a transaction) and the tables of its dialect. */
export interface Database {
  orm: Orm;
  tables: Tables;
  dialect: Dialect;
}
