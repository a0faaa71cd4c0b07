// Where one request's time goes (issue 17, "find the cost before cutting it"): the real app
// in-process (`app.request`, no network) over a fresh SQLite database, one endpoint in a loop under
// Bun's sampling profiler (--cpu-prof), and the samples' self time summed by layer — routing and
// middleware (Hono), our own frame/405/HAL code, auth, validation (zod), Drizzle, SQLite, and the
// native Request/Response/JSON work — printed as a share and as µs per request.
//
// Run: bun bench/profile-request.ts [book|mybooks|redeem]   (default book; about 30 s)
// Internal: bun --cpu-prof … bench/profile-request.ts run MODE COUNT   (the profiled child)
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp } from "../test/helpers/test-app";

const MODES = ["book", "mybooks", "redeem"] as const;
type Mode = (typeof MODES)[number];
const COUNT: Record<Mode, number> = { book: 100_000, mybooks: 40_000, redeem: 8_000 };
/** Redemptions need a fresh (reader, book) pair each: READERS × books of them. */
const READERS = 20;

// ---------------------------------------------------------------------------------------------
// The profiled loop

async function runLoop(mode: Mode, count: number): Promise<void> {
  const t = await createTestApp({ env: { THROTTLE: "off", LOG_LEVEL: "silent" } });
  const admin = await t.admin();
  // Few readers (each registration hashes a password, which would swamp the profile); for
  // redemptions, enough books that every (reader, book) pair is used once.
  const users = await Promise.all(
    Array.from({ length: READERS }, (_, i) => t.user(`reader${i}@example.com`)),
  );
  const BOOKS = mode === "redeem" ? Math.ceil(count / READERS) : 50;
  const codes: string[] = [];
  for (let b = 0; b < BOOKS; b++) {
    const book = (await (
      await t.call("POST", "/book", { token: admin.token, json: { title: `B${b}` } })
    ).json()) as {
      id: number;
    };
    if (mode !== "redeem") continue;
    const batch = (await (
      await t.call("POST", "/activation-qr-code/batch", {
        token: admin.token,
        json: { bookId: book.id, quantity: users.length },
      })
    ).json()) as Array<{ code: string }>;
    codes.push(...batch.map((c) => c.code));
  }
  // Every reader holds a few books, so my-books has rows to show.
  if (mode === "mybooks") {
    for (const [u, user] of users.entries())
      for (let b = 1; b <= 5; b++)
        await t.call("POST", "/activation", {
          token: admin.token,
          json: { bookId: ((u + b) % BOOKS) + 1, userUuid: user.uuid },
        });
  }
  const auth = users.map((u) => ({ Authorization: `Bearer ${u.token}`, "Content-Type": "application/json" }));
  const request = (i: number) => {
    if (mode === "book") return t.app.request(`/book/${(i % BOOKS) + 1}`, { headers: auth[i % auth.length] });
    if (mode === "mybooks") return t.app.request("/book/my-books", { headers: auth[i % auth.length] });
    // Code j of book b was made for reader j: pair them so every redemption is a fresh one.
    const book = Math.floor(i / READERS);
    const reader = i % READERS;
    return t.app.request("/activation/by-qr-code", {
      method: "POST",
      headers: auth[reader],
      body: JSON.stringify({ code: codes[book * users.length + reader] }),
    });
  };
  const warmup = Math.floor(count / 10);
  for (let i = 0; i < warmup; i++) await (await request(i)).arrayBuffer();
  const started = performance.now();
  for (let i = warmup; i < count; i++) {
    const response = await request(i);
    if (response.status >= 300) throw new Error(`${mode}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
    // A request per event-loop turn, as a server answers at the least, so that SQLite's read
    // snapshot (src/db/read-snapshot.ts) ends with each request rather than spanning the loop.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const perRequest = ((performance.now() - started) * 1000) / (count - warmup);
  console.log(`RESULT ${JSON.stringify({ perRequest, requests: count - warmup })}`);
  await t.close();
}

// ---------------------------------------------------------------------------------------------
// The profile, summed by layer

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

/** Which layer a sampled function belongs to, by the file it is in (native code has none). */
function layerOf(url: string, functionName: string): string {
  if (url.includes("/hono/dist/")) return "Hono: routing, compose, context";
  if (url.includes("@hono/zod-openapi") || url.includes("/zod/")) return "zod validation";
  if (url.includes("drizzle-orm")) return "Drizzle: building SQL, mapping rows";
  if (/\/src\/(auth|services\/(sessions|account-check))/.test(url)) return "auth: token, session";
  if (url.includes("/src/lib/")) return "bookdist lib: frame, 405, HAL, problems";
  if (url.includes("/src/")) return "bookdist routes, services, repositories";
  if (url.includes("bun:sqlite")) return "bun:sqlite (JS)";
  if (url === "") {
    // A profile names native functions only: bun:sqlite's statement calls share these names with
    // Map's and Headers' getters, so this row holds some of those too.
    if (["values", "run", "get", "all"].includes(functionName))
      return "native values/get/run/all (mostly bun:sqlite)";
    if (["Request", "Response", "Headers", "set", "append"].includes(functionName))
      return "native Request/Response/Headers";
    if (["parse", "stringify", "toISOString"].includes(functionName)) return "native JSON and dates";
    if (["CryptoHasher", "update", "digest", "Buffer", "toString"].includes(functionName))
      return "native crypto and buffers (token MAC)";
    return "other native";
  }
  if (url.includes("profile-request.ts")) return "this bench's loop";
  return "other JS";
}

function summarise(path: string, perRequest: number): void {
  const profile = JSON.parse(readFileSync(path, "utf8")) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byLayer = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id)!.callFrame;
    const layer = layerOf(frame.url, frame.functionName);
    byLayer.set(layer, (byLayer.get(layer) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...byLayer.values()].reduce((a, b) => a + b, 0);
  const rows = [...byLayer].sort((a, b) => b[1] - a[1]);
  const width = Math.max(...rows.map(([layer]) => layer.length));
  console.log(`\n${"layer".padEnd(width)}  share   µs/request`);
  for (const [layer, time] of rows) {
    const share = time / total;
    console.log(
      `${layer.padEnd(width)}  ${(share * 100).toFixed(1).padStart(5)} %  ${(share * perRequest).toFixed(1).padStart(8)}`,
    );
  }
  console.log(
    "\nSelf time of the sampled functions, set-up included (a few % at most); the profiler adds its own overhead to µs/request.",
  );
}

async function main(): Promise<void> {
  const mode = (process.argv[2] ?? "book") as Mode;
  if (!MODES.includes(mode)) throw new Error(`mode is one of ${MODES.join(", ")}`);
  const dir = mkdtempSync(join(tmpdir(), "bookdist-profile-"));
  try {
    const child = Bun.spawnSync(
      ["bun", "--cpu-prof", `--cpu-prof-dir=${dir}`, import.meta.path, "run", mode, String(COUNT[mode])],
      { stdout: "pipe", stderr: "inherit" },
    );
    const line = child.stdout
      .toString()
      .split("\n")
      .find((l) => l.startsWith("RESULT "));
    if (child.exitCode !== 0 || !line) throw new Error(`the profiled run failed: ${child.stdout.toString()}`);
    const { perRequest, requests } = JSON.parse(line.slice("RESULT ".length)) as {
      perRequest: number;
      requests: number;
    };
    console.log(
      `${mode}: ${perRequest.toFixed(1)} µs per request in-process (${requests} requests, under the profiler)`,
    );
    const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
    if (!file) throw new Error("no profile was written");
    summarise(join(dir, file), perRequest);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "run") await runLoop(process.argv[3] as Mode, Number(process.argv[4]));
else await main();
