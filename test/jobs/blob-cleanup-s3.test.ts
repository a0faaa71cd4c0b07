// The orphan-blob cleanup with STORAGE=s3 against a real Ceph bucket: the same claims and grace
// as on disk. Unused rows and row-less objects older than the grace go; a named blob, and every
// object younger than the grace, stay. Real database (SQLite, or Postgres with TEST_DATABASE_URL).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config";
import { queuedWrite } from "../../src/db/transaction";
import { cleanupBlobs } from "../../src/jobs/blob-cleanup";
import type { Clock } from "../../src/lib/clock";
import { insertBook } from "../../src/repositories/books";
import { readDeployment } from "../../src/repositories/deployment";
import { systemSource } from "../../src/services/audit";
import { attachCover } from "../../src/services/files";
import type { BlobStorage } from "../../src/storage/blob-store";
import { createBlobStore } from "../../src/storage/create-blob-store";
import { requireCeph } from "../helpers/ceph";
import { createTestDatabase, type TestDatabase } from "../helpers/databases";
import { s3Env } from "../helpers/s3-env";

const now: Clock = { now: () => new Date() };
/** Two hours ahead: every object written now is past the cleanup's grace. */
const later: Clock = { now: () => new Date(Date.now() + 2 * 3_600_000) };

describe.if(requireCeph())("blob cleanup with STORAGE=s3", () => {
  let database: TestDatabase;
  let dir: string;
  let blobs: BlobStorage;

  beforeAll(async () => {
    database = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), "bookdist-cleanup-s3-"));
    const parsed = parseConfig({ DATA_DIR: dir, ...(await s3Env("proxy")) });
    if (!parsed.ok) throw new Error(parsed.problems.join("\n"));
    blobs = createBlobStore(parsed.config, (await readDeployment(database.handle.db)).id);
    await blobs.init();
  });
  afterAll(async () => {
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const store = (text: string) =>
    blobs.write(
      (async function* () {
        yield new TextEncoder().encode(text);
      })(),
      { maxBytes: 1024 },
    );

  test("unused rows and row-less objects go after the grace, named ones stay", async () => {
    const db = database.handle.db;
    const unused = await store(`unused ${crypto.randomUUID()}`);
    await queuedWrite(db, (tx) =>
      tx.orm
        .insert(db.tables.blob)
        .values({ sha256: unused.sha256, size: unused.size, createdAt: new Date() }),
    );
    const rowless = await store(`row-less ${crypto.randomUUID()}`);
    const named = await store(`named ${crypto.randomUUID()}`);
    const book = await insertBook(
      db,
      { title: "Kept", author: null, isbn: null, description: null, language: null },
      new Date(),
    );
    await attachCover(
      db,
      systemSource,
      book.id,
      { ...named, filename: "c.png", inspected: { width: 1, height: 1 } },
      new Date(),
      blobs,
    );

    // Within the grace nothing goes.
    expect(await cleanupBlobs({ db, blobs, clock: now })).toMatchObject({ rows: 0, files: 0 });
    for (const blob of [unused, rowless, named]) expect(await blobs.exists(blob.sha256)).toBe(true);

    // One run: S3 has no delete-if-present, so two runs at once may both count one object
    // (both HEAD it, both DELETE it); rows are claimed by one run only, as on disk.
    expect(await cleanupBlobs({ db, blobs, clock: later })).toMatchObject({ rows: 1, files: 2 });
    expect(await blobs.exists(unused.sha256)).toBe(false);
    expect(await blobs.exists(rowless.sha256)).toBe(false);
    expect(await blobs.exists(named.sha256)).toBe(true);
  });
});
