// The system screen (API.md §10 /console/system): each scheduled job of jobs/scheduler.ts with its
// schedule, next run and its last run on this instance (start, end, outcome), from the job board the
// scheduler keeps in memory; a job that is off says so. SQLite or Postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Scheduler, startJobs } from "../../src/jobs/scheduler";
import { jobBoardOf } from "../../src/services/job-runs";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { consoleRequest, signedInAdmin, textOf } from "./helpers";

describe("console system: the jobs and their last runs", () => {
  let t: TestApp;
  let cookie: string;
  let jobs: Scheduler | undefined;
  beforeAll(async () => {
    // The cleanup every second; the blob cleanup once a year (not during this test).
    t = await createTestApp({ env: { SESSION_CLEANUP_CRON: "* * * * * *", BLOB_CLEANUP_CRON: "0 3 1 1 *" } });
    ({ cookie } = await signedInAdmin(t));
  });
  afterAll(async () => {
    jobs?.stop();
    await t.close();
  });

  const systemText = async () => {
    const response = await consoleRequest(t, "GET", "/console/system", { cookie });
    expect(response.status).toBe(200);
    return textOf(await response.text());
  };

  test("before the scheduler starts: every job's row, none run on this instance", async () => {
    const text = await systemText();
    expect(text).toContain("Scheduled jobs and their last runs on this instance");
    expect(text).toContain("Session, throttle and audit cleanup * * * * * *");
    expect(text).toMatch(/Blob cleanup 0 3 1 1 \* 2027-01-01 03:00 UTC not scheduled on this instance/);
    expect(text).toContain("Shop sync off");
    expect(text).toContain("Archive format backfill once at start");
    expect(text).toContain("The shop sync's last run on any instance: never.");
  });

  test("a run of the cleanup: its start, end and what it did; a failure says why", async () => {
    jobs = startJobs(t.deps);
    const board = jobBoardOf(t.deps);
    const deadline = Date.now() + 5000;
    while (!board.get("session-cleanup")?.lastEnded && Date.now() < deadline) await Bun.sleep(50);
    expect(board.get("session-cleanup")?.lastEnded?.outcome).toBe("done");
    let text = await systemText();
    // The test clock stands at 2026-11-21 10:00; the run's summary is what the job returned.
    expect(text).toMatch(
      /Session, throttle and audit cleanup \* \* \* \* \* \* \S+ \S+ UTC 2026-11-21 10:00 UTC 2026-11-21 10:00 UTC done: \w+ \d+/,
    );
    expect(text).toMatch(/Blob cleanup 0 3 1 1 \* 2027-01-01 03:00 UTC not run yet on this instance/);
    // The board as the scheduler moves it when a run throws (jobs/scheduler.ts `tracked`).
    board.started("blob-cleanup", t.clock.now());
    expect(await systemText()).toMatch(/Blob cleanup .* 2026-11-21 10:00 UTC running —/);
    board.failed("blob-cleanup", t.clock.now(), new Error("the bucket is gone"));
    text = await systemText();
    expect(text).toMatch(
      /Blob cleanup .* 2026-11-21 10:00 UTC 2026-11-21 10:00 UTC failed: the bucket is gone/,
    );
  });
});
