// The WAL's size as its index tells it (src/db/wal-index.ts), held to SQLite's own count: the
// frames `wal_checkpoint` reports, whatever the page size, and only the new ones once the WAL is
// started over in place, when the file's size still says megabytes.
import { Database as SqliteConnection } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WalIndex } from "../../src/db/wal-index";

const folder = mkdtempSync(join(tmpdir(), "bookdist-wal-index-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A WAL-mode database of `pageSize` whose checkpoints only we run. */
function walDatabase(name: string, pageSize: number) {
  const path = join(folder, name);
  const connection = new SqliteConnection(path, { create: true, strict: true });
  connection.exec(`PRAGMA page_size = ${pageSize}`);
  connection.exec("PRAGMA journal_mode = WAL");
  connection.exec("PRAGMA wal_autocheckpoint = 0");
  connection.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  const insert = connection.prepare("INSERT INTO t (body) VALUES (?)");
  const write = (rows: number) =>
    connection.transaction(() => {
      for (let i = 0; i < rows; i++) insert.run(crypto.randomUUID().repeat(20));
    })();
  /** SQLite's count of the WAL's frames (a PASSIVE checkpoint copies them but keeps them). */
  const frames = () => (connection.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number }).log;
  return { path, connection, write, frames };
}

describe("the WAL index", () => {
  for (const pageSize of [4096, 65_536]) {
    test(`counts the WAL's frames as SQLite does (${pageSize}-byte pages)`, () => {
      const db = walDatabase(`count-${pageSize}.sqlite`, pageSize);
      const index = new WalIndex(`${db.path}-shm`);
      try {
        for (const rows of [1, 10, 200]) {
          db.write(rows);
          expect(index.bytes()).toBe(db.frames() * (pageSize + 24));
        }
        expect(index.bytes()).toBeGreaterThan(2 * pageSize);
      } finally {
        // The connection first: closing the index's descriptor gives up the process's locks.
        db.connection.close();
        index.close();
      }
    });
  }

  test("counts only the new frames once the WAL starts over in place, in a file that keeps its size", () => {
    const db = walDatabase("restart.sqlite", 4096);
    const index = new WalIndex(`${db.path}-shm`);
    try {
      db.write(500);
      const size = statSync(`${db.path}-wal`).size;
      expect(index.bytes()).toBeGreaterThan(100_000);
      db.connection.query("PRAGMA wal_checkpoint(RESTART)").get();
      // The next write starts the WAL over from its first frame: the index counts its frames only.
      db.write(1);
      expect(index.bytes()).toBe(db.frames() * (4096 + 24));
      expect(index.bytes()).toBeLessThan(20_000);
      expect(statSync(`${db.path}-wal`).size).toBe(size);
    } finally {
      db.connection.close();
      index.close();
    }
  });

  test("says none before the WAL has an index", () => {
    const index = new WalIndex(join(folder, "none.sqlite-shm"));
    expect(index.bytes()).toBe(0);
    index.close();
  });
});
