// Issue 24, finding 1: an anonymous Range header froze the whole server. The former
// /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i backtracked in cubic time on a run of spaces failing at
// its end: the 4 KB header held the event loop for 3.2 s, and /health with it. Against the
// real server: hostile Range and If-Range headers, up to the 16 KB Bun accepts, on a public cover
// download (GET and HEAD) are answered at once, and /health answers while they are sent.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import QRCode from "qrcode";
import { adminWithBook } from "../helpers/admin-cli";
import { type RealServer, startRealServer } from "../helpers/real-server";
import { TEST_PASSWORD } from "../helpers/test-app";

const ADMIN = "range-admin@example.com";
/** A few milliseconds once fixed; generous, so that a loaded CI machine stays green. */
const BOUND_MS = 1_000;
/** Each side of the `-` in a 16 KB header: Bun answers 431 beyond about 16,200 bytes of one value. */
const SIDE = 7_990;

let server: RealServer;
let coverUrl: string;
let cover: Uint8Array;
let etag: string;

beforeAll(async () => {
  server = await startRealServer();
  const { token, bookId: id } = await adminWithBook(server, server.dataEnv, {
    email: ADMIN,
    password: TEST_PASSWORD,
    bookTitle: "Ranges",
  });
  const auth = { Authorization: `Bearer ${token}` };
  cover = new Uint8Array(await QRCode.toBuffer("cover", { width: 240 }));
  const form = new FormData();
  form.append("file", new Blob([cover], { type: "image/png" }), "cover.png");
  const uploaded = await fetch(`${server.url}/book/${id}/cover`, {
    method: "POST",
    headers: auth,
    body: form,
  });
  expect(uploaded.status).toBe(200);
  coverUrl = `${server.url}/book/${id}/cover`;
  etag = (await fetch(coverUrl, { method: "HEAD" })).headers.get("etag") ?? "";
  expect(etag).toStartWith('"');
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

/** The request's answer and how long it took, whole body read. */
async function timed(
  url: string,
  init: RequestInit,
): Promise<{ response: Response; body: Uint8Array; ms: number }> {
  const started = performance.now();
  const response = await fetch(url, init);
  const body = new Uint8Array(await response.arrayBuffer());
  return { response, body, ms: performance.now() - started };
}

/** The shape: `bytes=`, spaces, `-`, spaces, and a character that makes it fail at the end. */
const spacedRange = (side: number) => `bytes=${" ".repeat(side)}-${" ".repeat(side)}x`;

// The 4 KB shape first: on the former parser it alone takes seconds, so the test fails
// there before the 16 KB shapes (minutes each) are ever sent.
const shapes: [string, () => Record<string, string>][] = [
  ["the issue's 4 KB Range", () => ({ Range: spacedRange(2_000) })],
  ["a 16 KB Range of spaces", () => ({ Range: spacedRange(SIDE) })],
  [
    "a 16 KB Range of tabs under a matching If-Range",
    () => ({ Range: `bytes=${"\t".repeat(SIDE)}-${"\t".repeat(SIDE)}-`, "If-Range": etag }),
  ],
  ["a 16 KB Range of digits", () => ({ Range: `bytes=${"1".repeat(SIDE)}-${"2".repeat(SIDE)}x` })],
  ["a 16 KB If-Range of spaces", () => ({ Range: "bytes=0-9", "If-Range": `"${" ".repeat(2 * SIDE)}x` })],
  [
    "a 16 KB If-Range shaped like a date",
    () => ({ Range: "bytes=0-9", "If-Range": `Sat, 21 Nov 2026 ${" ".repeat(2 * SIDE)}x` }),
  ],
];

describe("a hostile Range or If-Range on a public cover download", () => {
  test("a valid range still gets its bytes", async () => {
    const { response, body } = await timed(coverUrl, { headers: { Range: "bytes=0-9" } });
    expect(response.status).toBe(206);
    expect(response.headers.get("content-range")).toBe(`bytes 0-9/${cover.length}`);
    expect(body).toEqual(cover.slice(0, 10));
  });

  test.each(["GET", "HEAD"])(
    "%s: each is ignored (the whole file) at once, and /health answers meanwhile",
    async (method) => {
      for (const [name, headers] of shapes) {
        const hostile = timed(coverUrl, { method, headers: headers() });
        // Sent while the hostile request is being handled: a blocked event loop holds it too.
        const health = Bun.sleep(5).then(() => timed(`${server.url}/health`, {}));
        const [answer, healthAnswer] = await Promise.all([hostile, health]);
        expect(answer.response.status, name).toBe(200);
        expect(answer.response.headers.get("content-length"), name).toBe(String(cover.length));
        expect(answer.body, name).toEqual(method === "HEAD" ? new Uint8Array() : cover);
        expect(answer.ms, `${name} took ${answer.ms.toFixed(0)} ms`).toBeLessThan(BOUND_MS);
        expect(healthAnswer.response.status, name).toBe(200);
        expect(healthAnswer.ms, `/health during ${name} took ${healthAnswer.ms.toFixed(0)} ms`).toBeLessThan(
          BOUND_MS,
        );
      }
    },
  );
});
