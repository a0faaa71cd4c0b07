// The hot statements read their rows through db/row-mapper.ts on SQLite. Each is compared here
// with the same records as Drizzle maps them (its own query builder, not prepared), over data that
// has what a mapper can get wrong: timestamps, booleans, big sizes, nulls, and left joins with
// and without a match.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { withTransaction } from "../../src/db/transaction";
import { sessionIdHash } from "../../src/lib/session-id";
import * as activations from "../../src/repositories/activations";
import { insertAdminGrant } from "../../src/repositories/admin-grants";
import * as books from "../../src/repositories/books";
import * as qrCodes from "../../src/repositories/qr-codes";
import { findSession, insertSession } from "../../src/repositories/sessions";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";

describe(`hot statements read the rows Drizzle reads (${testDialect})`, () => {
  let database: TestDatabase;
  const t0 = new Date("2026-11-21T10:00:00.123Z");
  const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
  const reader = crypto.randomUUID();
  const ids = { covered: 0, bare: 0, code: 0, activation: 0 };

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database.handle;
    const { blob, book, bookVersion } = db.tables;
    const sha = (c: string) => c.repeat(64);
    await withTransaction(db, async (tx) => {
      // Over 2^32 bytes: a size Postgres keeps as bigint.
      await tx.orm.insert(blob).values([
        { sha256: sha("a"), size: 5_000_000_000, createdAt: t0 },
        { sha256: sha("b"), size: 1234, createdAt: t0 },
      ]);
      const [covered] = await tx.orm
        .insert(book)
        .values({
          title: "Covered",
          author: "A. Author",
          isbn: "9780306406157",
          description: "Has every field",
          language: "de",
          coverSha256: sha("b"),
          coverSize: 1234,
          coverWidth: 600,
          coverHeight: 800,
          coverUpdatedAt: at(1),
          createdAt: t0,
          updatedAt: at(2),
        })
        .returning();
      const [bare] = await tx.orm
        .insert(book)
        .values({ title: "Bare", createdAt: at(3), updatedAt: at(3) })
        .returning();
      ids.covered = covered!.id;
      ids.bare = bare!.id;
      // The covered book has an archived version (its newest) and a newer one without an archive.
      await tx.orm.insert(bookVersion).values([
        {
          bookId: ids.covered,
          versionCode: 3,
          versionName: "3.0",
          releaseNotes: "Notes",
          archiveSha256: sha("a"),
          archiveSize: 5_000_000_000,
          archiveFilename: "covered-3.zip",
          archiveUploadedAt: at(4),
          createdAt: at(4),
          updatedAt: at(5),
        },
        { bookId: ids.covered, versionCode: 4, versionName: "4.0", createdAt: at(6), updatedAt: at(6) },
      ]);
    });
    const [code] = await qrCodes.insertQrCodes(
      db,
      [
        {
          bookId: ids.covered,
          code: "ROWMAPPERCODE01",
          enabled: true,
          maxActivations: 3,
          label: null,
          expiresAt: at(60 * 24),
          batchId: null,
        },
      ],
      at(7),
    );
    ids.code = code!.id;
    const activation = await activations.insertActivation(
      db,
      { bookId: ids.covered, userUuid: reader, qrCodeId: ids.code },
      at(8),
    );
    ids.activation = activation.id;
    await activations.insertActivation(db, { bookId: ids.bare, userUuid: reader }, at(9));
    await insertSession(db, {
      id: "row-mapper-session",
      userUuid: reader,
      storeUserId: "42",
      createdAt: t0,
      lastSeenAt: at(1),
      expiresAt: at(60),
      userAgent: null,
      clientAddress: "127.0.0.1",
      isAdmin: true,
      passwordStamp: "stamp",
      checkedAt: at(2),
    });
    await insertAdminGrant(db, reader, t0);
  });
  afterAll(() => database.drop());

  test("a session, with its timestamps and admin flag", async () => {
    const { db } = database.handle;
    const { userSession } = db.tables;
    const [drizzle] = await db.orm
      .select()
      .from(userSession)
      .where(eq(userSession.id, sessionIdHash("row-mapper-session")));
    const hot = await findSession(db, "row-mapper-session");
    expect(hot).toEqual(drizzle!);
    expect(hot?.isAdmin).toBe(true);
    expect(hot?.expiresAt).toEqual(at(60));
    expect(await findSession(db, "no-such-session")).toBeUndefined();
  });

  test("books by id, with every field and with the nullable ones null", async () => {
    const { db } = database.handle;
    for (const id of [ids.covered, ids.bare]) {
      const [drizzle] = await db.orm.select().from(db.tables.book).where(eq(db.tables.book.id, id));
      expect(await books.findBook(db, id)).toEqual(drizzle!);
    }
    expect((await books.findBook(db, ids.bare))?.coverUpdatedAt).toBeNull();
    expect(await books.findBook(db, 999_999)).toBeUndefined();
  });

  test("a QR code by its code, and the activation a user holds", async () => {
    const { db } = database.handle;
    expect(await qrCodes.findQrCodeByCode(db, "ROWMAPPERCODE01")).toEqual(
      (await qrCodes.findQrCode(db, ids.code))!,
    );
    expect(await activations.findActivationOfUser(db, reader, ids.covered)).toEqual(
      (await activations.findActivation(db, ids.activation))!,
    );
  });

  test("an inserted activation is returned as it is stored", async () => {
    const { db } = database.handle;
    const other = crypto.randomUUID();
    const inserted = await activations.insertActivation(db, { bookId: ids.bare, userUuid: other }, at(10));
    expect(inserted).toEqual((await activations.findActivation(db, inserted.id))!);
    expect(inserted.qrCodeId).toBeNull();
  });

  test("consuming a code tells whether it was taken", async () => {
    const { db } = database.handle;
    expect(await qrCodes.consumeActivation(db, ids.code, at(11))).toBe(true);
    expect(await qrCodes.consumeActivation(db, 999_999, at(11))).toBe(false);
  });

  test("the shelf: joins with a newest version and without one", async () => {
    const { db } = database.handle;
    const hot = await activations.listHeldBooks(db, reader, { sort: [] });
    // A page goes through Drizzle's own query builder and mapping, in the same order.
    const drizzle = await activations.listHeldBooks(db, reader, { sort: [], limit: 100, offset: 0 });
    expect(hot).toEqual(drizzle);
    expect(hot.map((row) => [row.book.id, row.newestVersion?.versionCode ?? null])).toEqual([
      [ids.bare, null],
      [ids.covered, 3],
    ]);
    expect(hot[1]?.newestVersion?.archiveSize).toBe(5_000_000_000);
  });

  test("books with the caller's activation: matched, unmatched, one by id", async () => {
    const { db } = database.handle;
    const stranger = crypto.randomUUID();
    for (const user of [reader, stranger]) {
      const hot = await activations.listBooksWithActivation(db, user, { sort: [] });
      const drizzle = await activations.listBooksWithActivation(db, user, {
        sort: [],
        limit: 100,
        offset: 0,
      });
      expect(hot).toEqual(drizzle);
      expect(await activations.findBookWithActivation(db, user, ids.covered)).toEqual(
        drizzle.find((row) => row.book.id === ids.covered)!,
      );
    }
    const [forStranger] = await activations.listBooksWithActivation(db, stranger, { sort: [] });
    expect(forStranger?.activation).toBeNull();
  });
});
