// The scheduled jobs' last runs, as the console's system screen shows them (README "Console"): when
// each job of this process last started and ended, and how (what it did, or why it failed). Kept in
// the process's memory by the scheduler (jobs/scheduler.ts) — nothing is written per run, and
// another instance's runs are not seen here; the shop sync's shared record is shop_sync_state
// (services/shop-status.ts). One board per app's deps, so that two apps in one process (tests) keep
// their runs apart.
import { Cron } from "croner";
import { describeError } from "../lib/logger";

export type JobOutcome = "running" | "done" | "failed";

export interface JobRun {
  startedAt: Date;
  finishedAt: Date | null;
  outcome: JobOutcome;
  /** What a finished run did ("sessions 3, blobs 0"), or the message of its failure. */
  summary: string | null;
}

/** A job's runs on this instance: the last one started, and the last one that ended. */
export interface JobRecord {
  /** Its cron pattern, or "at start" for a job run once when the process starts. */
  schedule: string;
  current: JobRun | null;
  lastEnded: JobRun | null;
}

/** What a run returned, as one line: its numeric and text fields. */
function summaryOf(result: object): string {
  return Object.entries(result)
    .filter(([, value]) => typeof value === "number" || typeof value === "string")
    .map(([name, value]) => `${name} ${value}`)
    .join(", ")
    .slice(0, 300);
}

export class JobBoard {
  private readonly jobs = new Map<string, JobRecord>();

  /** A job the scheduler set up on this instance (before its first run). */
  register(name: string, schedule: string): void {
    if (!this.jobs.has(name)) this.jobs.set(name, { schedule, current: null, lastEnded: null });
  }

  started(name: string, at: Date): void {
    const job = this.jobs.get(name);
    if (job) job.current = { startedAt: at, finishedAt: null, outcome: "running", summary: null };
  }

  finished(name: string, at: Date, result: object): void {
    this.end(name, at, "done", summaryOf(result));
  }

  failed(name: string, at: Date, error: unknown): void {
    this.end(name, at, "failed", describeError(error).message);
  }

  /** The job's record on this instance; undefined: not set up here (off, or no scheduler runs). */
  get(name: string): JobRecord | undefined {
    return this.jobs.get(name);
  }

  private end(name: string, at: Date, outcome: JobOutcome, summary: string): void {
    const job = this.jobs.get(name);
    if (!job?.current) return;
    job.current = { ...job.current, finishedAt: at, outcome, summary };
    job.lastEnded = job.current;
  }
}

const boards = new WeakMap<object, JobBoard>();

/** The job board of the app these deps belong to (made on first use). */
export function jobBoardOf(deps: object): JobBoard {
  let board = boards.get(deps);
  if (!board) {
    board = new JobBoard();
    boards.set(deps, board);
  }
  return board;
}

/** When a cron pattern fires next after `from` (UTC, as croner runs the jobs); null: never. */
export function nextRunOf(pattern: string, from: Date): Date | null {
  let cron: Cron | undefined;
  try {
    cron = new Cron(pattern, { paused: true });
    return cron.nextRun(from);
  } catch {
    return null;
  } finally {
    cron?.stop();
  }
}
