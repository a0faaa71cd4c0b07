// SQLite contention without a frozen event loop. bun:sqlite is synchronous: its busy timeout
// blocks the whole process while another process (the sqlite3 shell, a backup) holds the write
// lock. So the busy timeout is a few milliseconds, and writers wait for the lock here instead,
// asynchronously, so that the process keeps serving while they wait.

/** How long a write waits in all for another process's lock before the request gets a 503. */
const BUSY_RETRY_BUDGET_MS = 2000;
const FIRST_PAUSE_MS = 5;
const LONGEST_PAUSE_MS = 100;

/** SQLITE_BUSY, SQLITE_LOCKED and their extended codes (SQLITE_BUSY_SNAPSHOT, …). */
export function isBusy(error: unknown): boolean {
  for (let e = error, depth = 0; depth < 5 && typeof e === "object" && e !== null; depth++) {
    const code = String((e as { code?: unknown }).code ?? "");
    if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Runs `attempt` until it does not fail for a lock, pausing between tries (backing off), for at
 * most the budget; then the last SQLITE_BUSY is thrown (the error mapper makes it a 503 with
 * Retry-After). `attempt` must be safe to repeat: a busy statement changed nothing.
 */
export async function retryWhileBusy<T>(
  attempt: () => T | Promise<T>,
  budgetMs = BUSY_RETRY_BUDGET_MS,
): Promise<T> {
  const deadline = performance.now() + budgetMs;
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
    try {
      return await attempt();
    } catch (error) {
      if (!isBusy(error) || performance.now() + pause > deadline) throw error;
    }
    await Bun.sleep(pause);
  }
}
