// The blob cleanup run by several instances at once: every removed row and file is reported by
// one run only, and a re-upload of an unused blob's bytes while a run removes it never leaves a
// record pointing at a missing file. Real database (SQLite, or Postgres with TEST_DATABASE_URL).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { queuedWrite } from "../../src/db/transaction";
import { cleanupBlobs } from "../../src/jobs/blob-cleanup";
import type { Clock } from "../../src/lib/clock";
import { insertBook } from "../../src/repositories/books";
import { readDeployment } from "../../src/repositories/deployment";
import { systemSource } from "../../src/services/audit";
import { attachCover } from "../../src/services/files";
import { type BlobInfo, type BlobStore, LocalBlobStore } from "../../src/storage/blob-store";
import { createTestDatabase, type TestDatabase } from "../helpers/databases";

let database: TestDatabase;
let dir: string;
/** Two hours ahead: every blob made now is past the cleanup's grace. */
const later: Clock = { now: () => new Date(Date.now() + 2 * 3_600_000) };

async function storeBlob(blobs: BlobStore, text: string): Promise<{ sha256: string; size: number }> {
  const bytes = new TextEncoder().encode(text);
  const written = await blobs.write(
    (async function* () {
      yield bytes;
    })(),
    { maxBytes: 1024 },
  );
  return { sha256: written.sha256, size: written.size };
}

/** An upload of `text` as the cover of a new book, as the route does it: store, then attach. */
async function uploadCover(blobs: BlobStore, text: string) {
  const db = database.handle.db;
  const book = await insertBook(
    db,
    { title: text, author: null, isbn: null, description: null, language: null },
    new Date(),
  );
  const file = await storeBlob(blobs, text);
  const cover = { ...file, filename: "cover.png", inspected: { width: 1, height: 1 } };
  return { bookId: book.id, attached: attachCover(db, systemSource, book.id, cover, new Date(), blobs) };
}

const deploymentId = async () => (await readDeployment(database.handle.db)).id;

async function unusedBlob(blobs: BlobStore, text: string): Promise<string> {
  const { sha256, size } = await storeBlob(blobs, text);
  const { blob } = database.handle.db.tables;
  await queuedWrite(database.handle.db, (tx) =>
    tx.orm.insert(blob).values({ sha256, size, createdAt: new Date() }),
  );
  return sha256;
}

describe("blob cleanup", () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), "bookdist-cleanup-"));
  });

  afterAll(async () => {
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("two runs at once report each removed row and file once in total", async () => {
    const blobs = new LocalBlobStore(join(dir, "concurrent"), await deploymentId());
    await blobs.init();
    const unused = await Promise.all(Array.from({ length: 20 }, (_, i) => unusedBlob(blobs, `unused ${i}`)));
    // Files without a row too (an upload refused after it was stored).
    for (let i = 0; i < 5; i++) await storeBlob(blobs, `row-less ${i}`);

    const deps = { db: database.handle.db, blobs, clock: later };
    const runs = await Promise.all([cleanupBlobs(deps), cleanupBlobs(deps), cleanupBlobs(deps)]);
    expect(runs.reduce((sum, run) => sum + run.rows, 0)).toBe(unused.length);
    expect(runs.reduce((sum, run) => sum + run.files, 0)).toBe(unused.length + 5);
    for (const sha256 of unused) expect(await blobs.exists(sha256)).toBe(false);
  });

  test("a re-upload of an unused blob's bytes while a run removes it: the record's file is there", async () => {
    const db = database.handle.db;
    const text = "re-uploaded cover";
    // The moment the run has decided what to remove (rows claimed, files listed as old and
    // unrecorded), the same bytes are uploaded again and attached to a book.
    let upload: Awaited<ReturnType<typeof uploadCover>> | undefined;
    class ReuploadWhileListing extends LocalBlobStore {
      override async *listBlobs(): AsyncIterable<BlobInfo> {
        for await (const file of super.listBlobs()) {
          if (!upload) {
            upload = await uploadCover(this, text);
            await upload.attached.catch(() => {});
          }
          yield file;
        }
      }
    }
    const blobs = new ReuploadWhileListing(join(dir, "race"));
    await blobs.init();
    const sha256 = await unusedBlob(blobs, text);
    // An unused blob's file has no row once the run claimed it; here the row is gone already.
    await queuedWrite(db, (tx) => tx.orm.delete(db.tables.blob).where(eq(db.tables.blob.sha256, sha256)));

    await cleanupBlobs({ db, blobs, clock: later });
    expect(upload).toBeDefined();
    const outcome = await upload!.attached.then(
      () => "attached",
      (error: { code?: string }) => error.code,
    );
    const [book] = await db.orm.select().from(db.tables.book).where(eq(db.tables.book.id, upload!.bookId));
    if (outcome === "attached") {
      // The book names the blob: its file must be there.
      expect(book?.coverSha256).toBe(sha256);
      expect(await blobs.exists(sha256)).toBe(true);
    } else {
      // Refused (the file went first): nothing names a missing file, and the client may retry.
      expect(outcome).toBe("SERVICE_UNAVAILABLE");
      expect(book?.coverSha256).toBeNull();
    }
  });

  test("an unused blob past the grace whose file an upload just renewed: the run spares the file, the upload records it", async () => {
    const db = database.handle.db;
    const blobs = new LocalBlobStore(join(dir, "renewed"), await deploymentId());
    await blobs.init();
    const text = "renewed by an upload before the run";
    const { sha256, size } = await storeBlob(blobs, text);
    // Row and file two hours old, and nothing names them: the run claims the row.
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(blobs.pathOf(sha256), twoHoursAgo, twoHoursAgo);
    await queuedWrite(db, (tx) =>
      tx.orm.insert(db.tables.blob).values({ sha256, size, createdAt: twoHoursAgo }),
    );
    const book = await insertBook(
      db,
      { title: text, author: null, isbn: null, description: null, language: null },
      new Date(),
    );
    // An upload stores the same bytes again (renewing the file); the run comes before its transaction.
    const file = await storeBlob(blobs, text);
    const run = await cleanupBlobs({ db, blobs, clock: { now: () => new Date() } });
    expect(run).toMatchObject({ rows: 1, files: 0 });

    const cover = { ...file, filename: "cover.png", inspected: { width: 1, height: 1 } };
    await attachCover(db, systemSource, book.id, cover, new Date(), blobs);
    const [row] = await db.orm.select().from(db.tables.book).where(eq(db.tables.book.id, book.id));
    expect(row?.coverSha256).toBe(sha256);
    expect(await blobs.exists(sha256)).toBe(true);
  });

  test("an upload attached after a run removed the same bytes' file is refused, not left dangling", async () => {
    const db = database.handle.db;
    const blobs = new LocalBlobStore(join(dir, "after"), await deploymentId());
    await blobs.init();
    const text = "stored, then removed before it was attached";
    const book = await insertBook(
      db,
      { title: "t", author: null, isbn: null, description: null, language: null },
      new Date(),
    );
    const file = await storeBlob(blobs, text);
    // The run removes the (still unrecorded, old) file before the upload's transaction.
    await cleanupBlobs({ db, blobs, clock: later });
    expect(await blobs.exists(file.sha256)).toBe(false);

    const cover = { ...file, filename: "cover.png", inspected: { width: 1, height: 1 } };
    await expect(attachCover(db, systemSource, book.id, cover, new Date(), blobs)).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
    });
    const [row] = await db.orm.select().from(db.tables.book).where(eq(db.tables.book.id, book.id));
    expect(row?.coverSha256).toBeNull();
  });
});
