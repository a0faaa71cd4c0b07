// KOReader's document ids of stored book versions (README "Reading progress"): an upload stores
// the partial MD5 of the bytes it stored; the start-up backfill (jobs/archive-partial-md5.ts)
// gives one, through the blob store's ranged reads and in slices, to every version stored
// before it was kept — the same digest the upload would have — carries on past a blob it cannot
// read, leaves versions without an archive alone, and does nothing the second time.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { asc, eq, inArray } from "drizzle-orm";
import { queuedWrite } from "../../src/db/transaction";
import { backfillPartialMd5 } from "../../src/jobs/archive-partial-md5";
import { createLogger } from "../../src/lib/logger";
import { insertBlob } from "../../src/repositories/blobs";
import { partialMd5 } from "../../src/storage/partial-md5";
import { testDialect } from "../helpers/databases";
import { bookWithArchive } from "../helpers/reading-books";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { makeZip } from "../helpers/zip";

const inMemory = (bytes: Uint8Array) =>
  partialMd5(
    async (start, end) => new DataView(bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + end)),
    bytes.length,
  );

describe(`the partial MD5 of stored archives (${testDialect})`, () => {
  let t: TestApp;
  const uploaded: { versionId: number; bytes: Uint8Array }[] = [];
  beforeAll(async () => {
    t = await createTestApp();
    const sizes = [0, 900, 5_000, 70_000, 300_000];
    for (const [i, size] of sizes.entries()) {
      const filler = new Uint8Array(size);
      for (let j = 0; j < size; j++) filler[j] = (j * 7 + i) % 251;
      uploaded.push(
        await bookWithArchive(t, `Backfill ${i}`, makeZip({ "data.bin": filler, "n.txt": String(i) })),
      );
    }
  });
  afterAll(() => t.close());

  const rows = () => {
    const { db } = t.deps;
    const { bookVersion } = db.tables;
    return db.orm
      .select({ id: bookVersion.id, md5: bookVersion.archivePartialMd5, sha256: bookVersion.archiveSha256 })
      .from(bookVersion)
      .orderBy(asc(bookVersion.id));
  };

  test("an upload stores the partial MD5 of exactly the bytes stored", async () => {
    const stored = new Map((await rows()).map((row) => [row.id, row.md5]));
    for (const { versionId, bytes } of uploaded) expect(stored.get(versionId)).toBe(await inMemory(bytes));
  });

  test("the backfill fills versions stored without one, in slices; a blob it cannot read is left and logged", async () => {
    const { db } = t.deps;
    const { bookVersion } = db.tables;
    const before = new Map((await rows()).map((row) => [row.id, row.md5]));
    const ids = uploaded.map((u) => u.versionId);
    // As migration 0010 leaves versions stored before it.
    await queuedWrite(db, (tx) =>
      tx.orm.update(bookVersion).set({ archivePartialMd5: null }).where(inArray(bookVersion.id, ids)),
    );
    // A version whose blob is recorded but gone from the store.
    const missing = "0".repeat(64);
    await insertBlob(db, missing, 10, t.clock.now());
    const bookId = (await db.orm.select().from(bookVersion).where(eq(bookVersion.id, ids[0]!)))[0]!.bookId;
    const [gone] = await queuedWrite(db, (tx) =>
      tx.orm
        .insert(bookVersion)
        .values({
          bookId,
          versionCode: 999,
          versionName: "gone",
          archiveSha256: missing,
          archiveSize: 10,
          createdAt: t.clock.now(),
          updatedAt: t.clock.now(),
        })
        .returning({ id: bookVersion.id }),
    );
    const logged: string[] = [];
    const reads: [string, number, number][] = [];
    const blobs = {
      readRange: (sha256: string, start: number, end: number) => {
        reads.push([sha256, start, end]);
        return t.deps.blobs.readRange(sha256, start, end);
      },
    };
    const logger = createLogger("warn", (line) => logged.push(line));
    const first = await backfillPartialMd5({ db, blobs, logger }, { sliceSize: 2 });
    expect(first).toEqual({ computed: 5, failed: 1 });
    const after = new Map((await rows()).map((row) => [row.id, row.md5]));
    for (const id of ids) expect(after.get(id)).toBe(before.get(id)!);
    expect(after.get(gone!.id)).toBeNull();
    // Ranged reads of at most 1 KiB, at most 12 a version.
    for (const [, start, end] of reads) expect(end - start).toBeLessThanOrEqual(1024);
    expect(reads.length).toBeLessThanOrEqual(12 * 6);
    expect(logged.join("\n")).toContain("partial MD5 failed");
    // No path or blob name in the line: the kind of failure only.
    expect(logged.join("\n")).not.toContain(missing);
    const second = await backfillPartialMd5({ db, blobs, logger }, { sliceSize: 2 });
    expect(second).toEqual({ computed: 0, failed: 1 });
  });

  test("shutdown stops it between rows, and the next run carries on", async () => {
    const { db } = t.deps;
    const { bookVersion } = db.tables;
    const ids = uploaded.map((u) => u.versionId);
    await queuedWrite(db, (tx) =>
      tx.orm.update(bookVersion).set({ archivePartialMd5: null }).where(inArray(bookVersion.id, ids)),
    );
    const stop = new AbortController();
    stop.abort();
    const logger = createLogger("silent", () => {});
    expect(await backfillPartialMd5({ db, blobs: t.deps.blobs, logger }, { signal: stop.signal })).toEqual({
      computed: 0,
      failed: 0,
    });
    expect(await backfillPartialMd5({ db, blobs: t.deps.blobs, logger })).toMatchObject({ computed: 5 });
  });
});
