// AUDIT_RETENTION (README "Audit log"): the events older than it are deleted, a bounded slice at
// a time with a turn of the event loop between slices, so a year's backlog never holds the loop
// or the SQLite write lock for long. Idempotent, so several instances may run it.
import type { Database } from "#db";
import type { Config } from "../config";
import type { Clock } from "../lib/clock";
import { nextTurn } from "../lib/loop-slices";
import { deleteAuditEventsBefore } from "../repositories/audit-events";

/** Events per DELETE: a few milliseconds of the write lock (bench/README.md, Audit log). */
export const AUDIT_CLEANUP_SLICE = 1000;

export async function cleanupAuditEvents(deps: {
  db: Database;
  config: Pick<Config, "auditRetentionMs">;
  clock: Clock;
}): Promise<{ auditEvents: number }> {
  const before = new Date(deps.clock.now().getTime() - deps.config.auditRetentionMs);
  let deleted = 0;
  for (;;) {
    const slice = await deleteAuditEventsBefore(deps.db, before, AUDIT_CLEANUP_SLICE);
    deleted += slice;
    if (slice < AUDIT_CLEANUP_SLICE) return { auditEvents: deleted };
    await nextTurn();
  }
}
