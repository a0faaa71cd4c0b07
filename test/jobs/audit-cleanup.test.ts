// AUDIT_RETENTION (README "Audit log"): the cleanup job deletes the events older than it, in
// slices with a turn of the event loop between them, and nothing younger; the log's counter
// follows. On the database of this run (SQLite, or Postgres with TEST_DATABASE_URL).
import { afterAll, expect, test } from "bun:test";
import { AUDIT_CLEANUP_SLICE, cleanupAuditEvents } from "../../src/jobs/audit-cleanup";
import { fixedClock } from "../../src/lib/clock";
import {
  type AuditEventFields,
  countAuditEvents,
  insertAuditEvents,
} from "../../src/repositories/audit-events";
import { createTestDatabase } from "../helpers/databases";

const database = await createTestDatabase();
const db = database.handle.db;
afterAll(() => database.drop());

const DAY = 86_400_000;
const clock = fixedClock("2026-11-28T10:00:00.000Z");
const event = (at: Date, i: number): AuditEventFields => ({
  at,
  actorUuid: null,
  actorEmail: null,
  actorVia: "system",
  action: "book.update",
  targetType: "book",
  targetId: String(i),
  changes: "{}",
  requestId: null,
  client: null,
});

test("events past AUDIT_RETENTION go in slices that let the loop run; younger ones stay", async () => {
  const old = 2 * AUDIT_CLEANUP_SLICE + 500;
  const rows = Array.from({ length: old }, (_, i) =>
    event(new Date(clock.now().getTime() - 400 * DAY - i), i),
  );
  // One statement per 500 rows: Postgres takes at most 65,535 parameters per statement.
  for (let i = 0; i < rows.length; i += 500) await insertAuditEvents(db, rows.slice(i, i + 500));
  const kept = [364, 100, 0].map((days, i) => event(new Date(clock.now().getTime() - days * DAY), i));
  await insertAuditEvents(db, kept);
  expect(await countAuditEvents(db)).toBe(old + kept.length);

  let turns = 0;
  const counting = setInterval(() => turns++, 0);
  const result = await cleanupAuditEvents({ db, config: { auditRetentionMs: 365 * DAY }, clock });
  clearInterval(counting);
  expect(result).toEqual({ auditEvents: old });
  // Three slices, two turns of the loop between them at least.
  expect(turns).toBeGreaterThanOrEqual(1);
  expect(await countAuditEvents(db)).toBe(kept.length);
  expect(await countAuditEvents(db, { from: new Date(clock.now().getTime() - 365 * DAY) })).toBe(kept.length);
  // Nothing more to do: idempotent.
  expect(await cleanupAuditEvents({ db, config: { auditRetentionMs: 365 * DAY }, clock })).toEqual({
    auditEvents: 0,
  });
});
