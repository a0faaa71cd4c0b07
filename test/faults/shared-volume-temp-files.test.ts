// Two instances share one DATA_DIR, the second in its own PID namespace (a container with the
// same hostname): the second one's start-up must not take the first one's upload in flight,
// whose pid it cannot see. Temp files go by their lease (mtime), not by a pid.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import QRCode from "qrcode";
import { adminWithBook } from "../helpers/admin-cli";
import { type SpawnedServer, spawnServer } from "../helpers/spawn-server";

const ADMIN = "volume-admin@example.com";
const PASSWORD = "correct horse battery staple";

// unshare --pid needs root (or user namespaces); without it the second instance runs plainly,
// which still shows that start-up goes by the lease and not by whether a pid is alive (so no
// skip here). Without util-linux's unshare on PATH at all, the same.
const pidNamespace =
  Bun.which("unshare") !== null && Bun.spawnSync(["unshare", "--pid", "--fork", "true"]).exitCode === 0;

let dataDir: string;
let otherDir: string;
let first: SpawnedServer;
let second: SpawnedServer | undefined;
let token: string;
let bookId: number;

const tempDir = () => join(dataDir, "blobs", "tmp");
const partFiles = () => readdirSync(tempDir()).filter((name) => name.endsWith(".part"));

describe("temp files on a shared volume", () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "bookdist-shared-"));
    otherDir = mkdtempSync(join(tmpdir(), "bookdist-shared-db-"));
    first = await spawnServer({ dataDir });
    ({ token, bookId } = await adminWithBook(
      first,
      { DATA_DIR: dataDir },
      {
        email: ADMIN,
        password: PASSWORD,
        bookTitle: "Shared",
      },
    ));
  }, 60_000);

  afterAll(async () => {
    for (const server of [first, second]) {
      server?.kill("SIGKILL");
      await server?.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(otherDir, { recursive: true, force: true });
  });

  test("an upload in flight on one instance survives another's start-up; stale temp files go", async () => {
    const png = new Uint8Array(await QRCode.toBuffer("shared volume", { width: 300 }));
    const boundary = "bookdist-shared-volume-boundary";
    const encoder = new TextEncoder();
    const head = encoder.encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cover.png"\r\n` +
        "Content-Type: image/png\r\n\r\n",
    );
    const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
    let sendRest: () => void = () => {};
    const restAllowed = new Promise<void>((resolve) => {
      sendRest = resolve;
    });
    const half = Math.floor(png.length / 2);
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(head);
        controller.enqueue(png.slice(0, half));
        await restAllowed;
        controller.enqueue(png.slice(half));
        controller.enqueue(tail);
        controller.close();
      },
    });
    const upload = fetch(`${first.url}/book/${bookId}/cover`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${token}`,
        "Content-Type": `multipart/form-data; boundary=${boundary}`,
      },
      body,
      duplex: "half",
    } as RequestInit);

    // The first half is in the first instance's temp file.
    for (let waited = 0; partFiles().length === 0; waited += 20) {
      expect(waited).toBeLessThan(10_000);
      await Bun.sleep(20);
    }
    const inFlight = partFiles();

    // Leftovers of a crashed upload (any owner), untouched for an hour: start-up removes them.
    const stale = join(tempDir(), `${crypto.randomUUID()}.${crypto.randomUUID()}.part`);
    writeFileSync(stale, "half an upload");
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(stale, anHourAgo, anHourAgo);

    second = await spawnServer({
      dataDir,
      env: { DATABASE_URL: `sqlite:${join(otherDir, "second.sqlite")}` },
      // --kill-child: the server dies with unshare (PR_SET_PDEATHSIG), so killing the wrapper ends it.
      wrapper: pidNamespace ? ["unshare", "--pid", "--fork", "--kill-child"] : [],
    });
    expect(partFiles()).toEqual(inFlight);

    sendRest();
    const response = await upload;
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ cover: { size: png.length } });
    expect(partFiles()).toEqual([]);
  }, 60_000);
});
