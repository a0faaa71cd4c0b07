// A dependency that refuses our credentials is told apart, in the request's log line, from one
// that cannot be reached (README "Logs"): the client's answer is the same 503 either way, but the
// operator fixes a password in one case and the network in the other. Real MariaDB behind the
// real server for the user store; the real Ceph gateway for the bucket.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import QRCode from "qrcode";
import type { Deps } from "../../src/deps";
import { createLogger } from "../../src/lib/logger";
import { S3BlobStore } from "../../src/storage/s3-blob-store";
import { requireCeph } from "../helpers/ceph";
import { auditLogLine } from "../helpers/log-audit";
import { type RealServer, startRealServer } from "../helpers/real-server";
import { s3Env } from "../helpers/s3-env";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { requireStoreServer, storeServerUrl } from "../helpers/wordpress";
import { multipartFile } from "../helpers/zip";

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { code: string; detail: string };
}

/** What the client was told. */
async function answerOf(response: Response): Promise<Answer> {
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    body: (await response.json()) as Answer["body"],
  };
}

/** The same 503 the client got before this change, whatever the reason. */
function expectUnavailable(answer: Answer): void {
  expect(answer).toMatchObject({ status: 503, retryAfter: "5", body: { code: "SERVICE_UNAVAILABLE" } });
}

interface FailedLine {
  msg: string;
  code?: string;
  dependency?: string;
  reason?: string;
}

const WRONG_SECRET = "wrong-secret-never-logged-0123456789";

/** A port nothing listens on: taken from the kernel, then let go. */
function closedPort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

describe.if(requireStoreServer())("the WordPress user store on MariaDB", () => {
  const servers: RealServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop();
  });

  /** A login against a real server whose store is `url`: its answer and its "request failed" line. */
  async function loginAgainst(url: string): Promise<{ answer: Answer; line: FailedLine; output: string }> {
    const server = await startRealServer({ env: { STORE_DRIVER: "wordpress", STORE_DATABASE_URL: url } });
    servers.push(server);
    const response = await fetch(`${server.url}/authentication/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "admin", password: "correct horse battery staple" }),
    });
    const answer = await answerOf(response);
    expectUnavailable(answer);
    for (let i = 0; i < 100; i++) {
      const line = server
        .output()
        .filter((text) => text.startsWith("{"))
        .map((text) => JSON.parse(text) as FailedLine)
        .find((entry) => entry.msg === "request failed");
      if (line) return { answer, line, output: server.output().join("\n") };
      await Bun.sleep(20);
    }
    throw new Error("no request failed line");
  }

  test("a wrong password logs credentials refused; a closed port, cannot be reached; both answer 503", async () => {
    const wrong = new URL(storeServerUrl!);
    wrong.username = "root";
    wrong.password = WRONG_SECRET;
    wrong.pathname = "/mysql";
    const refused = await loginAgainst(wrong.toString());
    expect(refused.line).toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      dependency: "user store",
      reason: "credentials refused",
    });
    expect(refused.output).not.toContain(WRONG_SECRET);

    const closed = await loginAgainst(`mysql://root@127.0.0.1:${closedPort()}/wordpress`);
    expect(closed.line).toMatchObject({ dependency: "user store", reason: "cannot be reached" });
    // The answers say the same, whatever the reason.
    expect(refused.answer).toEqual(closed.answer);
  }, 60_000);
});

describe.if(requireCeph())("the bucket on Ceph", () => {
  let t: TestApp;
  const lines: string[] = [];
  let coverPath: string;

  beforeAll(async () => {
    t = await createTestApp({
      env: await s3Env("proxy"),
      logger: createLogger("info", (line) => {
        lines.push(line);
        auditLogLine(line, "credentials-refused app");
      }),
    });
    const admin = await t.admin();
    const created = await t.call("POST", "/book", { token: admin.token, json: { title: "Keys" } });
    const { id } = (await created.json()) as { id: number };
    const png = new Uint8Array(await QRCode.toBuffer("keys", { width: 100 }));
    const uploaded = await t.call("POST", `/book/${id}/cover`, {
      token: admin.token,
      body: multipartFile(png),
    });
    expect(uploaded.status).toBe(200);
    coverPath = `/book/${id}/cover`;
  }, 180_000);
  afterAll(() => t?.close());

  /** The cover's download through a bucket client changed by `change`, and its log line. */
  async function downloadWith(change: Partial<{ endpoint: string; secretAccessKey: string }>) {
    const deps = t.deps as Deps;
    const working = deps.blobs;
    const storage = t.config.storage;
    if (storage.driver !== "s3") throw new Error("an S3 app");
    deps.blobs = new S3BlobStore({ ...storage, ...change }, `${t.dataDir}/blobs`);
    try {
      const from = lines.length;
      const answer = await answerOf(await t.call("GET", coverPath));
      expectUnavailable(answer);
      const line = lines
        .slice(from)
        .map((text) => JSON.parse(text) as FailedLine)
        .find((entry) => entry.msg === "request failed");
      return { answer, line, logged: lines.slice(from).join("\n") };
    } finally {
      deps.blobs = working;
    }
  }

  test("a wrong secret key logs credentials refused; a closed port, cannot be reached; both answer 503", async () => {
    const refused = await downloadWith({ secretAccessKey: WRONG_SECRET });
    expect(refused.line).toMatchObject({ dependency: "storage", reason: "credentials refused" });
    expect(refused.logged).not.toContain(WRONG_SECRET);
    const closed = await downloadWith({ endpoint: `http://127.0.0.1:${closedPort()}` });
    expect(closed.line).toMatchObject({ dependency: "storage", reason: "cannot be reached" });
    expect(refused.answer).toEqual(closed.answer);
    // And the bucket still serves with the right key.
    expect((await t.call("GET", coverPath)).status).toBe(200);
  }, 60_000);
});
