// A full data volume (a real tmpfs as DATA_DIR): uploads and writes the database cannot make
// answer 507 INSUFFICIENT_STORAGE with Retry-After, the log raises one storage alarm without a
// path, /health says the storage is not ok; once space is freed everything works again.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import QRCode from "qrcode";
import { adminWithBook } from "../helpers/admin-cli";
import { healthUntil } from "../helpers/health";
import { requires, requireTool } from "../helpers/requires";
import { type SpawnedServer, spawnServer } from "../helpers/spawn-server";

const ADMIN = "disk-admin@example.com";
const PASSWORD = "correct horse battery staple";

const mountPoint = mkdtempSync(join(tmpdir(), "bookdist-tmpfs-"));
// Mounting needs root (or CAP_SYS_ADMIN); without it there is no real full volume to test on.
const mounted =
  [requireTool(["mount", "umount"], "mount"), requireTool("dd", "coreutils")].every(Boolean) &&
  requires(
    Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mountPoint]).exitCode === 0,
    "mounting a tmpfs is not permitted here (needs root or CAP_SYS_ADMIN)",
  );
// The describe's afterAll, which removes it, does not run when the describe is skipped.
if (!mounted) rmSync(mountPoint, { recursive: true, force: true });

let server: SpawnedServer;
let token: string;
let bookId: number;
let png: Uint8Array;
const filler = join(mountPoint, "filler");

function fillVolume(): void {
  // dd stops with "No space left on device": exactly what we want.
  Bun.spawnSync(["dd", "if=/dev/zero", `of=${filler}`, "bs=64k"], { stderr: "ignore" });
}

const uploadCover = () => {
  const form = new FormData();
  form.append("file", new Blob([png], { type: "image/png" }), "cover.png");
  return fetch(`${server.url}/book/${bookId}/cover`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}` },
    body: form,
  });
};
const login = () =>
  fetch(`${server.url}/authentication/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: ADMIN, password: PASSWORD }),
  });

describe.if(mounted)("full data volume", () => {
  beforeAll(async () => {
    png = new Uint8Array(await QRCode.toBuffer("cover", { width: 300 }));
    server = await spawnServer({ dataDir: mountPoint });
    ({ token, bookId } = await adminWithBook(
      server,
      { DATA_DIR: mountPoint },
      {
        email: ADMIN,
        password: PASSWORD,
        bookTitle: "Full",
      },
    ));
  }, 60_000);

  afterAll(async () => {
    server?.kill("SIGKILL");
    await server?.exited;
    if (mounted) Bun.spawnSync(["umount", mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  test("507 with Retry-After for uploads and logins, /health storage not ok; well again once freed", async () => {
    expect(await (await fetch(`${server.url}/health`)).json()).toMatchObject({ storage: "ok" });
    fillVolume();

    // The checks stand for an interval (README "Health, logs and metrics"): the full volume shows within it.
    const health = await healthUntil(server.url, (answer) => answer.body.storage === "unavailable");
    expect(health.status).toBe(503);
    expect(health.retryAfter).not.toBeNull();
    expect(health.body).toMatchObject({ status: "unavailable", storage: "unavailable" });

    const upload = await uploadCover();
    const uploadText = await upload.text();
    expect(upload.status).toBe(507);
    expect(upload.headers.get("retry-after")).not.toBeNull();
    expect(JSON.parse(uploadText)).toMatchObject({ code: "INSUFFICIENT_STORAGE", status: 507 });
    expect(uploadText).not.toContain(mountPoint);

    // A login writes a session (and a throttle count): SQLite cannot grow its files.
    let loggedIn = await login();
    // The WAL may still hold a few free frames; the writes after them find no room.
    for (let tries = 0; tries < 50 && loggedIn.status === 200; tries++) loggedIn = await login();
    expect(loggedIn.status).toBe(507);
    expect(loggedIn.headers.get("retry-after")).not.toBeNull();

    // The server writes its line before it answers, but the line reaches us through a pipe of its
    // own, which this process reads in its own time: give it a moment to arrive.
    const storageAlarms = () =>
      server
        .output()
        .split("\n")
        .filter((line) => line.includes('"storage full"'));
    for (let waited = 0; waited < 5_000 && storageAlarms().length < 2; waited += 50) await Bun.sleep(50);
    const alarms = storageAlarms();
    expect(alarms.length).toBeGreaterThanOrEqual(2);
    for (const line of alarms) {
      expect(line).toContain('"alarm":"storage"');
      expect(line).not.toContain(mountPoint);
    }

    rmSync(filler);
    const healthy = await healthUntil(server.url, (answer) => answer.status === 200);
    expect(healthy.body).toMatchObject({ status: "ok", storage: "ok" });
    expect((await login()).status).toBe(200);
    expect((await uploadCover()).status).toBe(200);
  }, 60_000);
});
