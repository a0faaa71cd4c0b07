// A fresh database per test file: a temp SQLite file, or — when TEST_DATABASE_URL is set — a new
// Postgres database created on that server and dropped afterwards.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { type DatabaseHandle, openDatabase } from "../../src/db/client";
import type { Logger } from "../../src/lib/logger";
import { type AuditEventRow, listAuditEvents } from "../../src/repositories/audit-events";
import { auditAuditEvent } from "./log-audit";

export interface TestDatabase {
  url: string;
  handle: DatabaseHandle;
  dialect: "sqlite" | "postgres";
  drop(): Promise<void>;
}

export const testDialect: "sqlite" | "postgres" = process.env.TEST_DATABASE_URL ? "postgres" : "sqlite";

export async function createTestDatabase(
  options: {
    onQuery?: (query: string) => void;
    logger?: Logger;
    migrate?: boolean;
    /** Who checkpoints SQLite's WAL (OpenDatabaseOptions): "worker" as the server does. */
    checkpoints?: "on-commit" | "worker";
    /** "sqlite": a SQLite file whatever TEST_DATABASE_URL says (the copy to Postgres reads one). */
    dialect?: "sqlite";
  } = {},
): Promise<TestDatabase> {
  const { dialect, ...openOptions } = options;
  const serverUrl = dialect === "sqlite" ? undefined : process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const dir = mkdtempSync(join(tmpdir(), "bookdist-db-"));
    const url = `sqlite:${join(dir, "test.sqlite")}`;
    // Test mode for the write door (db/transaction.ts): a transaction that outlives its
    // event-loop turn fails, so the test that drives such a code path finds it.
    const handle = await openDatabase(url, { migrate: true, strictTurns: true, ...openOptions });
    return {
      url,
      handle,
      dialect: "sqlite",
      async drop() {
        await auditEventsOf(handle);
        await handle.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `bookdist_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = new SQL(serverUrl);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase(url.toString(), { migrate: true, ...openOptions });
  return {
    url: url.toString(),
    handle,
    dialect: "postgres",
    async drop() {
      await auditEventsOf(handle);
      await handle.close();
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}

/**
 * Every audit event the test wrote, through the run-wide audit (test/helpers/log-audit.ts): a
 * secret in any event of the run fails it. A database a test broke on purpose is left alone.
 */
async function auditEventsOf(handle: DatabaseHandle): Promise<void> {
  let after: AuditEventRow | undefined;
  try {
    for (;;) {
      const rows = await listAuditEvents(handle.db, { sort: [], limit: 1000 }, {}, after);
      for (const row of rows) auditAuditEvent(row, "audit_event");
      if (rows.length < 1000) return;
      after = rows.at(-1);
    }
  } catch {
    // No audit_event table (a test of the migrations themselves), or the database is gone.
  }
}
