// kill -9 of one instance while uploads (covers, archives) and redemptions stream in through the
// balancer: whatever a client saw acknowledged is there afterwards, byte for byte, and nothing
// half-written is left — no blob row without its file, no file or row that no record names
// except an unacknowledged upload's (the cleanup's to take), no temp file a live instance left.
import QRCode from "qrcode";
import { makeZip } from "../helpers/zip";
import { call, downloadSha256, expectStatus, sha256Hex, tricklingUpload } from "./client";
import type { Instance } from "./instances";
import type { Person } from "./people";
import { type Report, tally } from "./report";
import { readStorage } from "./storage-audit";

const BOOKS = 24;
const CODES_PER_BOOK = 4;
const CONCURRENCY = 12;
const ARCHIVE_BYTES = 1536 * 1024;
/** The kill comes once this share of the work is answered, so plenty is still in flight. */
const KILL_AFTER = 0.3;

type Task =
  | { kind: "cover"; bookId: number }
  | { kind: "archive"; versionId: number }
  | { kind: "redeem"; code: string; bookId: number; reader: Person };

interface Acknowledged {
  covers: { bookId: number; sha256: string }[];
  archives: { versionId: number; sha256: string }[];
  activations: { id: number; bookId: number; userUuid: string }[];
  /** Uploads no 2xx answered: their files may exist without a record, for the cleanup. */
  unacknowledgedUploads: Set<string>;
}

export async function checkKillDuringBurst(options: {
  report: Report;
  base: string;
  admin: Person;
  readers: Person[];
  victim: Instance;
  databaseUrl: string;
  dataDir: string;
}): Promise<void> {
  const { report, base, admin, readers, victim } = options;
  const tasks = await prepare(base, admin, readers);
  const acknowledged: Acknowledged = {
    covers: [],
    archives: [],
    activations: [],
    unacknowledgedUploads: new Set(),
  };
  const failures: { kind: string; status: string }[] = [];
  let answered = 0;
  let next = 0;
  let killedAt = 0;
  let killed: () => void = () => {};
  const killDone = new Promise<void>((resolve) => {
    killed = resolve;
  });

  const run = async (task: Task) => {
    let status: string;
    try {
      status = String(await perform(base, admin, task, acknowledged));
    } catch (error) {
      status =
        (error as Error).name === "TypeError" ? "connection error" : (error as Error).message.slice(0, 80);
    }
    if (!status.startsWith("2")) failures.push({ kind: task.kind, status });
    answered++;
    if (killedAt === 0 && answered >= tasks.length * KILL_AFTER) {
      killedAt = Date.now();
      victim.server.kill("SIGKILL");
      void victim.server.exited.then(() => killed());
    }
  };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < tasks.length) await run(tasks[next++]!);
    }),
  );
  if (killedAt === 0) {
    killedAt = Date.now();
    victim.server.kill("SIGKILL");
    killed();
  }
  await killDone;
  report.figure(
    `burst: ${tasks.length} requests (${BOOKS} covers, ${BOOKS} archives of ${ARCHIVE_BYTES / 1024} KiB, ${BOOKS * CODES_PER_BOOK} redemptions), ${CONCURRENCY} clients`,
    `${((performance.now() - started) / 1000).toFixed(1)} s; ${victim.name} killed with SIGKILL after ${Math.round(tasks.length * KILL_AFTER)} answers`,
  );
  const byKind = new Map<string, string[]>();
  for (const failure of failures)
    byKind.set(failure.kind, [...(byKind.get(failure.kind) ?? []), failure.status]);
  report.figure(
    "failures seen by clients",
    failures.length === 0 ? "none" : [...byKind].map(([kind, list]) => `${kind}: ${tally(list)}`).join("; "),
  );
  report.figure(
    "acknowledged",
    `${acknowledged.covers.length} covers, ${acknowledged.archives.length} archives, ${acknowledged.activations.length} activations`,
  );
  report.check(
    "the kill met work in flight (some clients saw their request fail)",
    failures.length > 0,
    `${failures.length} of ${tasks.length} requests failed`,
  );

  await checkAcknowledged(report, base, admin, acknowledged);
  await checkNothingHalfWritten(report, options.databaseUrl, options.dataDir, acknowledged, killedAt);
}

/** Books with a version each, and single-use codes for distinct (reader, book) pairs. */
async function prepare(base: string, admin: Person, readers: Person[]): Promise<Task[]> {
  const tasks: Task[] = [];
  for (let b = 0; b < BOOKS; b++) {
    const auth = { token: admin.token, forwardedFor: admin.address };
    const book = await expectStatus(201, base, "POST", "/book", { ...auth, json: { title: `Burst ${b}` } });
    const version = await expectStatus(201, base, "POST", "/bookversion", {
      ...auth,
      json: { bookId: book.id, versionCode: 1, versionName: "1.0" },
    });
    const codes: { code: string }[] = await expectStatus(201, base, "POST", "/activation-qr-code/batch", {
      ...auth,
      json: { bookId: book.id, quantity: CODES_PER_BOOK, maxActivations: 1 },
    });
    tasks.push({ kind: "cover", bookId: book.id }, { kind: "archive", versionId: version.id });
    for (const [j, code] of codes.entries())
      tasks.push({
        kind: "redeem",
        code: code.code,
        bookId: book.id,
        reader: readers[(b * CODES_PER_BOOK + j) % readers.length]!,
      });
  }
  // Shuffled, so uploads and redemptions are in flight together on every instance.
  for (let i = tasks.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [tasks[i], tasks[j]] = [tasks[j]!, tasks[i]!];
  }
  return tasks;
}

async function perform(base: string, admin: Person, task: Task, acknowledged: Acknowledged): Promise<number> {
  if (task.kind === "redeem") {
    const answer = await call(base, "POST", "/activation/by-qr-code", {
      token: task.reader.token,
      json: { code: task.code },
      forwardedFor: task.reader.address,
    });
    if (answer.status === 201)
      acknowledged.activations.push({ id: answer.body.id, bookId: task.bookId, userUuid: task.reader.uuid });
    return answer.status;
  }
  const file =
    task.kind === "cover"
      ? new Uint8Array(await QRCode.toBuffer(`cover ${crypto.randomUUID()}`, { width: 256 }))
      : makeZip({ "book.bin": randomBytes(ARCHIVE_BYTES) });
  const sha256 = sha256Hex(file);
  acknowledged.unacknowledgedUploads.add(sha256);
  const upload =
    task.kind === "cover"
      ? tricklingUpload(file, "cover.png", "image/png", { chunkBytes: 512, pauseMs: 40 })
      : tricklingUpload(file, "book.zip", "application/zip", { chunkBytes: 64 * 1024, pauseMs: 20 });
  const path = task.kind === "cover" ? `/book/${task.bookId}/cover` : `/bookversion/${task.versionId}/upload`;
  const answer = await call(base, "POST", path, {
    token: admin.token,
    forwardedFor: admin.address,
    body: upload.body,
    headers: { "Content-Type": upload.contentType },
  });
  if (answer.status === 200) {
    acknowledged.unacknowledgedUploads.delete(sha256);
    if (task.kind === "cover") acknowledged.covers.push({ bookId: task.bookId, sha256 });
    else acknowledged.archives.push({ versionId: task.versionId, sha256 });
  }
  return answer.status;
}

function randomBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  // getRandomValues fills at most 64 KiB per call.
  for (let offset = 0; offset < size; offset += 65536)
    crypto.getRandomValues(bytes.subarray(offset, Math.min(size, offset + 65536)));
  return bytes;
}

async function checkAcknowledged(
  report: Report,
  base: string,
  admin: Person,
  acknowledged: Acknowledged,
): Promise<void> {
  const lost: string[] = [];
  for (const cover of acknowledged.covers) {
    const book = await call(base, "GET", `/book/${cover.bookId}`, { token: admin.token });
    const file = await downloadSha256(base, `/book/${cover.bookId}/cover`, admin.token);
    if (book.body?.cover?.sha256 !== cover.sha256 || file.status !== 200 || file.sha256 !== cover.sha256)
      lost.push(`cover of book ${cover.bookId} (${file.status})`);
  }
  for (const archive of acknowledged.archives) {
    const file = await downloadSha256(base, `/bookversion/${archive.versionId}/download`, admin.token);
    if (file.status !== 200 || file.sha256 !== archive.sha256)
      lost.push(`archive of version ${archive.versionId} (${file.status})`);
  }
  for (const activation of acknowledged.activations) {
    const stored = await call(base, "GET", `/activation/${activation.id}`, { token: admin.token });
    if (
      stored.status !== 200 ||
      stored.body.bookId !== activation.bookId ||
      stored.body.userUuid !== activation.userUuid
    )
      lost.push(`activation ${activation.id} (${stored.status})`);
  }
  const total = acknowledged.covers.length + acknowledged.archives.length + acknowledged.activations.length;
  report.check(
    "nothing acknowledged is lost: every 2xx upload downloads with its sha256, every 201 activation exists",
    lost.length === 0,
    lost.length === 0
      ? `${total} acknowledged, all there`
      : `${lost.length} of ${total} missing: ${lost.slice(0, 5).join(", ")}`,
  );
}

async function checkNothingHalfWritten(
  report: Report,
  databaseUrl: string,
  dataDir: string,
  acknowledged: Acknowledged,
  killedAt: number,
): Promise<void> {
  const state = await readStorage(databaseUrl, dataDir);
  const rowsWithoutFile = [...state.blobRows].filter((sha) => !state.files.has(sha));
  report.check(
    "no blob row without its file",
    rowsWithoutFile.length === 0,
    `${state.blobRows.size} blob rows, ${state.files.size} files, ${rowsWithoutFile.length} rows without a file`,
  );
  const unclaimed = [...state.files, ...state.blobRows].filter((sha) => !state.referenced.has(sha));
  const unexplained = [...new Set(unclaimed)].filter((sha) => !acknowledged.unacknowledgedUploads.has(sha));
  report.check(
    "no file or blob row that no record names, except unacknowledged uploads (the cleanup takes those)",
    unexplained.length === 0,
    `${new Set(unclaimed).size} unreferenced (of ${acknowledged.unacknowledgedUploads.size} unacknowledged uploads), ${unexplained.length} unexplained`,
  );
  report.check(
    "activations match their codes (count = activations made, none over maxActivations)",
    state.miscountedCodes === 0 && state.overusedCodes === 0,
    `${state.miscountedCodes} miscounted codes, ${state.overusedCodes} over their limit`,
  );
  // A temp file written after the kill belongs to a live instance whose upload has ended (every
  // client has its answer by now): it should have been published or removed.
  const liveLeftovers = state.temp.filter((file) => file.mtimeMs > killedAt + 1000);
  report.check(
    "no temp file left by a live instance (what is left stopped at the kill: the killed instance's)",
    liveLeftovers.length === 0,
    `${state.temp.length} temp files left, ${liveLeftovers.length} written after the kill`,
  );
}
