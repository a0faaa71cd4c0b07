// `bun run db copy --to …` (db/copy-to-postgres.ts): a SQLite deployment with every table holding
// rows, made through the app, copied into a fresh Postgres database and compared row by row.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { SQL } from "bun";
import QRCode from "qrcode";
import type { Database } from "#db";
import { openDatabase, sqlitePathFromUrl } from "../../src/db/client";
import { CopyError, copyToPostgres } from "../../src/db/copy-to-postgres";
import { withTransaction } from "../../src/db/transaction";
import { countEvent } from "../../src/repositories/rate-limits";
import { bindGuestClaim, upsertGrant, writeSyncState } from "../../src/repositories/shop-orders";
import { putStoreUserLink } from "../../src/repositories/store-user-links";
import { onlyIn } from "../helpers/requires";
import { createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";
import { makeZip, multipartFile } from "../helpers/zip";

const serverUrl = process.env.TEST_DATABASE_URL;
const withPostgres = onlyIn(
  serverUrl !== undefined,
  "TEST_DATABASE_URL is not set: the copy needs a Postgres server",
);

/** Every table's rows in key order, read alike from either dialect (counters apart). */
function tableReads(db: Database) {
  const t = db.tables;
  return {
    blob: () => db.orm.select().from(t.blob).orderBy(t.blob.sha256),
    book: () => db.orm.select().from(t.book).orderBy(t.book.id),
    bookVersion: () => db.orm.select().from(t.bookVersion).orderBy(t.bookVersion.id),
    qrCodeBatch: () => db.orm.select().from(t.qrCodeBatch).orderBy(t.qrCodeBatch.id),
    activationQrCode: () => db.orm.select().from(t.activationQrCode).orderBy(t.activationQrCode.id),
    activation: () => db.orm.select().from(t.activation).orderBy(t.activation.id),
    apk: () => db.orm.select().from(t.apk).orderBy(t.apk.id),
    userSession: () => db.orm.select().from(t.userSession).orderBy(t.userSession.id),
    deviceToken: () => db.orm.select().from(t.deviceToken).orderBy(t.deviceToken.id),
    entitlementKey: () => db.orm.select().from(t.entitlementKey).orderBy(t.entitlementKey.id),
    activationEnd: () => db.orm.select().from(t.activationEnd).orderBy(t.activationEnd.id),
    readingProgress: () => db.orm.select().from(t.readingProgress).orderBy(t.readingProgress.id),
    adminGrant: () => db.orm.select().from(t.adminGrant).orderBy(t.adminGrant.userUuid),
    storeUserLink: () => db.orm.select().from(t.storeUserLink).orderBy(t.storeUserLink.uuid),
    storeUser: () => db.orm.select().from(t.storeUser).orderBy(t.storeUser.id),
    storeUsermeta: () => db.orm.select().from(t.storeUsermeta).orderBy(t.storeUsermeta.umetaId),
    rateLimit: () => db.orm.select().from(t.rateLimit).orderBy(t.rateLimit.key),
    shopProduct: () => db.orm.select().from(t.shopProduct).orderBy(t.shopProduct.id),
    shopOrder: () => db.orm.select().from(t.shopOrder).orderBy(t.shopOrder.orderId),
    shopOrderGrant: () => db.orm.select().from(t.shopOrderGrant).orderBy(t.shopOrderGrant.id),
    shopSyncState: () => db.orm.select().from(t.shopSyncState).orderBy(t.shopSyncState.id),
    bookQrCodeCount: () => db.orm.select().from(t.bookQrCodeCount).orderBy(t.bookQrCodeCount.bookId),
    deployment: () =>
      db.orm
        .select({
          id: t.deployment.id,
          createdAt: t.deployment.createdAt,
          adoptPending: t.deployment.adoptPending,
          originalId: t.deployment.originalId,
        })
        .from(t.deployment),
  };
}

/** Each counted table's count: the sum of its counter's slots (SQLite has one, Postgres several). */
async function counters(db: Database): Promise<Record<string, number>> {
  const rows = await db.orm.select().from(db.tables.rowCount);
  const sums: Record<string, number> = {};
  for (const row of rows) sums[row.tableName] = (sums[row.tableName] ?? 0) + row.n;
  return Object.fromEntries(Object.entries(sums).filter(([, n]) => n !== 0));
}

const sha256File = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe.if(withPostgres)("bun run db copy: SQLite into an empty Postgres database", () => {
  let t: TestApp;
  let admin: SQL;
  const names: string[] = [];

  /** A new, empty database on the test server, dropped in afterAll. */
  async function newDatabase(): Promise<string> {
    const name = `bookdist_copy_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    await admin.unsafe(`CREATE DATABASE ${name}`);
    names.push(name);
    const url = new URL(serverUrl!);
    url.pathname = `/${name}`;
    return url.toString();
  }

  beforeAll(async () => {
    admin = new SQL(serverUrl!);
    t = await createTestApp({ dialect: "sqlite" });
    const owner = await t.admin();
    const call = async (method: string, path: string, json?: unknown, body?: FormData) => {
      const response = await t.call(method, path, { token: owner.token, json, body });
      if (response.status >= 300)
        throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as { id: number; code?: string };
    };
    const book = await call("POST", "/book", { title: "Die Winterreise", author: "Wilhelm Müller" });
    await call("POST", "/book", { title: "Second" });
    const cover = new Uint8Array(await QRCode.toBuffer("cover", { width: 120 }));
    await call("POST", `/book/${book.id}/cover`, undefined, multipartFile(cover, { filename: "cover.png" }));
    const version = await call("POST", "/bookversion", {
      bookId: book.id,
      versionCode: 1,
      versionName: "1.0",
    });
    const archive = makeZip({ "book.html": "<p>Gute Nacht</p>" });
    await call(
      "POST",
      `/bookversion/${version.id}/upload`,
      undefined,
      multipartFile(archive, { filename: "b.zip" }),
    );
    const codes = (await (
      await t.call("POST", "/activation-qr-code/batch", {
        token: owner.token,
        json: { bookId: book.id, quantity: 3, maxActivations: 2 },
      })
    ).json()) as Array<{ code: string }>;
    await call("POST", "/activation-qr-code", { bookId: book.id, maxActivations: 1 });
    const reader = await t.user();
    const redeemed = await t.call("POST", "/activation/by-qr-code", {
      token: reader.token,
      json: { code: codes[0]!.code },
    });
    expect(redeemed.status).toBe(201);
    const deviceToken = await t.call("POST", "/authentication/device-token", {
      token: reader.token,
      json: { name: "KOReader", password: TEST_PASSWORD },
    });
    expect(deviceToken.status).toBe(201);
    // An entitlements token makes the first signing key; an activation deleted leaves its record.
    expect((await t.call("GET", "/authentication/entitlements", { token: reader.token })).status).toBe(200);
    const second = await t.user();
    const ended = await call("POST", "/activation", { bookId: book.id, userUuid: second.uuid });
    expect((await t.call("DELETE", `/activation/${ended.id}`, { token: owner.token })).status).toBe(200);
    const progress = await t.call("PUT", `/book/${book.id}/progress`, {
      token: reader.token,
      json: { percentage: 0.25, device: "Thorium", modified: "2026-11-21T09:00:00.000Z" },
    });
    expect(progress.status).toBe(200);
    await call("POST", "/apk", { kind: "bookapp", versionCode: 1, versionName: "1.0" });
    await call("POST", "/shop-product", { bookId: book.id, productId: 1520 });
    const db = t.deps.db;
    const now = t.clock.now();
    await bindGuestClaim(db, 4711, reader.uuid, now);
    await withTransaction(db, (tx) =>
      upsertGrant(
        tx,
        {
          orderId: 4711,
          lineItemId: 1,
          bookId: book.id,
          userUuid: reader.uuid,
          activationId: null,
          state: "already-held",
        },
        now,
      ),
    );
    await writeSyncState(db, { cursorAt: now, lastSyncAt: now, lastSyncOrders: 1 });
    await countEvent(db, "login:203.0.113.9", 60_000, now);
    await putStoreUserLink(db, { uuid: crypto.randomUUID(), storeUserId: "wp-17", createdAt: now });
  });

  afterAll(async () => {
    await t?.close();
    for (const name of names) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin?.close();
  });

  test("every table row by row, the counters, the sequences; the SQLite file untouched; a second copy refused", async () => {
    const sqlitePath = sqlitePathFromUrl(t.database.url);
    const source = tableReads(t.deps.db);
    for (const [name, read] of Object.entries(source))
      expect({ name, rows: (await read()).length > 0 }).toEqual({ name, rows: true });
    const before = sha256File(sqlitePath);

    const targetUrl = await newDatabase();
    const lines: string[] = [];
    const report = await copyToPostgres({ sqlitePath, targetUrl, progress: (line) => lines.push(line) });
    expect(lines).toContain("book: 2/2 rows");
    expect(report.copied.map((table) => table.table)).toContain("shop_order_grant");
    expect(sha256File(sqlitePath)).toBe(before);

    const target = await openDatabase(targetUrl);
    try {
      const copied = tableReads(target.db);
      for (const [name, read] of Object.entries(source)) {
        const rows = await read();
        expect({ name, rows: await copied[name as keyof typeof copied]() }).toEqual({ name, rows });
      }
      expect(await counters(target.db)).toEqual(await counters(t.deps.db));

      // The sequences continue after the copied ids: a new book gets the next one.
      const now = new Date();
      const [added] = await target.db.orm
        .insert(target.db.tables.book)
        .values({ title: "After the copy", createdAt: now, updatedAt: now })
        .returning();
      expect(added?.id).toBe(3);

      let refused: unknown;
      await copyToPostgres({ sqlitePath, targetUrl, progress: () => {} }).catch((error) => {
        refused = error;
      });
      expect(refused).toBeInstanceOf(CopyError);
      expect(String(refused)).toContain("the target database is not empty (rows in blob, book,");
      expect(sha256File(sqlitePath)).toBe(before);
    } finally {
      await target.close();
    }
  });
});
