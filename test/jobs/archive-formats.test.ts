// The backfill of archive recognition (jobs/archive-formats.ts) on a database filled before
// migration 0008: its stored archives have no format; after the migration the backfill reads each
// from the blob store in slices, records EPUBs with their metadata and the rest as zips, leaves
// versions without an archive alone, carries on past a blob it cannot read, and does nothing the
// second time.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { asc } from "drizzle-orm";
import { queuedWrite } from "../../src/db/transaction";
import { backfillArchiveFormats } from "../../src/jobs/archive-formats";
import { createLogger } from "../../src/lib/logger";
import { recordArchiveFormat } from "../../src/repositories/book-versions";
import { archiveEpub, archiveFormat } from "../../src/services/archive-format";
import { LocalBlobStore } from "../../src/storage/blob-store";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";
import { buildEpub } from "../helpers/epub";
import { migrateUntil } from "../helpers/migrations-until";
import { makeZip } from "../helpers/zip";

describe(`the archive format backfill after migration 0008 (${testDialect})`, () => {
  let dir: string;
  let database: TestDatabase;
  let blobs: LocalBlobStore;
  const logged: string[] = [];
  const logger = createLogger("warn", (line) => logged.push(line));
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "bookdist-archive-formats-"));
    database = await createTestDatabase({ migrate: false });
    blobs = new LocalBlobStore(join(dir, "blobs"));
    await blobs.init();
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("recognises the stored archives in slices, idempotently", async () => {
    const { db } = database.handle;
    const old = await migrateUntil(database, "epub-archive");
    expect(old.lastTag).toBe("0007_deployment-id");
    const { run } = old;
    const now = new Date("2026-11-20T10:00:00.000Z");
    const at = old.timestamp(now);

    // Seven versions: five stored archives (three EPUBs, a pretender, a plain zip), one whose blob
    // is gone from the store, one without an archive.
    const archives = [
      buildEpub("epub3"),
      makeZip({ "a.txt": "plain" }),
      buildEpub("unicode"),
      buildEpub("epub3", { replace: { "EPUB/package.opf": null } }),
      buildEpub("epub2", { compressMimetype: true }),
    ];
    await run(`INSERT INTO book (id, title, created_at, updated_at) VALUES (1, 'Old', ${at}, ${at})`);
    const stored: string[] = [];
    for (const bytes of archives) {
      const written = await blobs.write(new Blob([bytes]).stream(), { maxBytes: 1 << 20 });
      stored.push(written.sha256);
    }
    const lost = "0".repeat(64);
    for (const [i, sha256] of [...stored, lost].entries()) {
      const size = i < archives.length ? archives[i]!.byteLength : 1000;
      await run(`INSERT INTO blob (sha256, size, created_at) VALUES ('${sha256}', ${size}, ${at})`);
      await run(`INSERT INTO book_version (book_id, version_code, version_name, archive_sha256, archive_size,
                   archive_filename, archive_uploaded_at, created_at, updated_at)
                 VALUES (1, ${i + 1}, '${i + 1}', '${sha256}', ${size}, 'old.zip', ${at}, ${at}, ${at})`);
    }
    await run(`INSERT INTO book_version (book_id, version_code, version_name, created_at, updated_at)
               VALUES (1, 99, 'none', ${at}, ${at})`);

    await old.migrateToEnd();
    const rows = () =>
      db.orm.select().from(db.tables.bookVersion).orderBy(asc(db.tables.bookVersion.versionCode));
    // Not inspected yet: no format, and the API reads such an archive as a zip.
    for (const row of await rows()) {
      expect(row.archiveFormat).toBeNull();
      expect(archiveFormat(row)).toBe("zip");
    }

    const first = await backfillArchiveFormats({ db, blobs, logger }, { sliceSize: 2 });
    expect(first).toEqual({ recognised: 5, epubs: 3, failed: 1 });
    const after = await rows();
    expect(after.map((row) => row.archiveFormat)).toEqual(["epub", "zip", "epub", "zip", "epub", null, null]);
    expect(archiveEpub(after[0]!)?.title).toBe("The Little Test Book");
    expect(archiveEpub(after[2]!)?.creators).toEqual(["村上 春樹", "Dvořák & <Syn>"]);
    expect(archiveEpub(after[4]!)).toMatchObject({ title: "Pride & Prejudice", modified: null });
    expect(after[1]!.archiveEpub).toBeNull();
    // updatedAt is the admin's, not the backfill's.
    for (const row of after) expect(row.updatedAt.toISOString()).toBe(now.toISOString());
    // The failure is logged by version id, without the blob's path.
    expect(
      logged.some((line) => line.includes("archive recognition failed") && line.includes("ENOENT")),
    ).toBe(true);
    expect(logged.join("\n")).not.toContain(dir);

    // Done rows are not read again; the lost blob is tried again (and fails again).
    expect(await backfillArchiveFormats({ db, blobs, logger }, { sliceSize: 2 })).toEqual({
      recognised: 0,
      epubs: 0,
      failed: 1,
    });

    // An archive replaced while the backfill read the old one: the stale result is not written.
    const lostRow = after[5]!;
    expect(
      await queuedWrite(db, (tx) =>
        recordArchiveFormat(tx, lostRow.id, stored[0]!, { archiveFormat: "zip", archiveEpub: null }),
      ),
    ).toBe(false);
    // And a stopped run stops between rows.
    const stop = new AbortController();
    stop.abort();
    expect(await backfillArchiveFormats({ db, blobs, logger }, { signal: stop.signal })).toEqual({
      recognised: 0,
      epubs: 0,
      failed: 0,
    });
  });
});
