// Soak under auth (issue 6): the real server (SQLite, THROTTLE=off) driven for SOAK_SECONDS by a
// closed loop of concurrent clients over loopback, mixing authenticated reads (GET /book/my-books,
// GET /book/{id}), QR-code redemptions (fresh single-use codes) and logins (a password hash and a
// new session each). Prints requests/s per kind, every non-2xx answer, and the server's RSS at
// the start, every 15 s and at the end; exits 1 when any request failed or RSS kept growing.
//
// Run: bun bench/soak.ts                 (180 s)
//      SOAK_SECONDS=60 SOAK_CONCURRENCY=64 bun bench/soak.ts
import { rmSync } from "node:fs";
import { currentRssMiB, fmt, freePort, json, type Server, startBookdist, tempDir } from "./lib";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 180);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 64);
const SAMPLE_EVERY_MS = 15_000;
/** How much the server's RSS may grow over the run before the soak calls it a leak. */
const MAX_RSS_GROWTH_MIB = Number(process.env.SOAK_MAX_RSS_GROWTH_MIB ?? 32);
const ADMIN = "soak-admin@example.com";
const PASSWORD = "soak password soak password";
const BOOKS = 200;
const READERS = 20;
const REDEEMERS = 40;
const BOOKS_PER_READER = 5;
/** Single-use codes made before the run: more than the redemptions the machine can do. */
const CODES = Math.min(200_000, Math.max(20_000, SECONDS * 1_000));
/**
 * Relative weights of the kinds the main clients send. Logins (a deliberately slow password hash
 * each) get clients of their own: in one closed loop they would hold every client and starve the rest.
 */
const MIX = { myBooks: 45, book: 45, redeem: 10 } as const;
const LOGIN_CONCURRENCY = Number(process.env.SOAK_LOGIN_CONCURRENCY ?? 2);
type Kind = keyof typeof MIX | "login";
const KINDS: Kind[] = ["myBooks", "book", "redeem", "login"];

interface Tally {
  ok: number;
  failed: number;
  latencies: number[];
}

async function main(): Promise<void> {
  if (!Number.isFinite(SECONDS) || SECONDS <= 0) throw new Error("SOAK_SECONDS must be a positive number");
  const dataDir = tempDir("bookdist-soak-");
  const port = freePort();
  const server = await startBookdist({ port, dataDir });
  const base = server.url;
  try {
    const started = performance.now();
    const seeded = await seed(base, server);
    console.log(
      `seeded ${BOOKS} books, ${READERS} readers × ${BOOKS_PER_READER} books, ${REDEEMERS} redeemers, ${seeded.codes.length} codes in ${fmt((performance.now() - started) / 1000)} s`,
    );

    // A short warm-up, so the first RSS figure is the running server's, not the freshly started one's.
    await drive(base, seeded, 3_000, CONCURRENCY, seeded.cursor);
    const pid = server.process.pid;
    const rss: { at: number; mib: number }[] = [{ at: 0, mib: await currentRssMiB(pid) }];
    console.log(
      `soak: ${SECONDS} s, ${CONCURRENCY} concurrent clients (mix ${JSON.stringify(MIX)}) + ${LOGIN_CONCURRENCY} logging in; RSS at start ${fmt(rss[0]!.mib)} MiB`,
    );
    const runStart = performance.now();
    const sampler = setInterval(async () => {
      const mib = await currentRssMiB(pid);
      const at = (performance.now() - runStart) / 1000;
      rss.push({ at, mib });
      console.log(`  t=${fmt(at, 0)} s  RSS ${fmt(mib)} MiB`);
    }, SAMPLE_EVERY_MS);
    const result = await drive(base, seeded, SECONDS * 1000, CONCURRENCY, seeded.cursor);
    clearInterval(sampler);
    const endRss = await currentRssMiB(pid);
    rss.push({ at: result.seconds, mib: endRss });

    console.log("\nkind        requests   req/s   p50 ms   p99 ms   non-2xx");
    let total = 0;
    let failed = 0;
    for (const kind of KINDS) {
      const tally = result.tallies[kind];
      const count = tally.ok + tally.failed;
      total += count;
      failed += tally.failed;
      const sorted = tally.latencies.sort((a, b) => a - b);
      const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
      console.log(
        `${kind.padEnd(10)} ${String(count).padStart(9)} ${fmt(count / result.seconds, 0).padStart(7)} ${fmt(pct(0.5), 2).padStart(8)} ${fmt(pct(0.99), 2).padStart(8)} ${String(tally.failed).padStart(9)}`,
      );
    }
    console.log(
      `${"all".padEnd(10)} ${String(total).padStart(9)} ${fmt(total / result.seconds, 0).padStart(7)}`,
    );
    if (result.codesRanOut) console.log("note: the fresh codes ran out; later redemptions were skipped");
    console.log(
      `\nRSS: start ${fmt(rss[0]!.mib)} MiB, end ${fmt(endRss)} MiB, min ${fmt(Math.min(...rss.map((s) => s.mib)))}, max ${fmt(Math.max(...rss.map((s) => s.mib)))} (samples every ${SAMPLE_EVERY_MS / 1000} s)`,
    );
    const growth = rssGrowth(rss);
    console.log(
      `RSS growth over the run: ${fmt(growth.mib)} MiB (allowed ${fmt(growth.allowedMib)} MiB): ${growth.flat ? "flat" : "GROWING"}`,
    );
    if (!growth.flat) process.exitCode = 1;
    if (failed > 0) {
      console.log(`\n${failed} requests failed:`);
      for (const [key, sample] of result.errors) console.log(`  ${key} ×${sample.count}: ${sample.body}`);
      process.exitCode = 1;
    } else console.log("non-2xx: none");
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Memory is "flat" when the last third of the run stays within a margin of the first sample.
 * A leak of a few bytes per request shows here as steady growth; allocator noise and SQLite's
 * page cache filling up (bounded) stay inside the margin. Comparing the mean of the last third,
 * not the last sample alone, keeps one GC-timing spike from failing the run.
 */
function rssGrowth(samples: { at: number; mib: number }[]): {
  mib: number;
  allowedMib: number;
  flat: boolean;
} {
  const start = samples[0]!.mib;
  const tail = samples.slice(Math.max(1, Math.floor((samples.length * 2) / 3)));
  const tailMean = tail.reduce((sum, s) => sum + s.mib, 0) / Math.max(1, tail.length);
  const allowedMib = Math.max(MAX_RSS_GROWTH_MIB, start * 0.25);
  const mib = tailMean - start;
  return { mib, allowedMib, flat: mib <= allowedMib };
}

interface Seeded {
  adminToken: string;
  readers: { email: string; token: string }[];
  redeemers: string[];
  /** Accounts only the login clients use. */
  loginEmails: string[];
  bookIds: number[];
  codes: string[];
  cursor: { codeCursor: number };
}

async function seed(base: string, server: Server): Promise<Seeded> {
  const post = async (path: string, body: unknown, token?: string) =>
    json(
      await fetch(`${base}${path}`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      }),
    );
  const register = (email: string) => post("/authentication/register", { email, password: PASSWORD });
  const admin = await register(ADMIN);
  await server.admin("grant", ADMIN);
  const adminToken: string = admin.token;

  const bookIds: number[] = [];
  for (let i = 0; i < BOOKS; i++) {
    bookIds.push(
      (await post("/book", { title: `Soak book ${i + 1}`, author: `Author ${i % 13}` }, adminToken)).id,
    );
  }
  // Registration hashes a password: a few at a time.
  const registerAll = async (prefix: string, count: number) => {
    const sessions: { email: string; token: string; uuid: string }[] = [];
    for (let i = 0; i < count; i += 8) {
      const batch = Array.from({ length: Math.min(8, count - i) }, (_, j) => `${prefix}${i + j}@example.com`);
      const made = await Promise.all(batch.map(register));
      made.forEach((session, j) => {
        sessions.push({ email: batch[j]!, token: session.token, uuid: session.user.uuid });
      });
    }
    return sessions;
  };
  const readers = await registerAll("soak-reader", READERS);
  const redeemers = await registerAll("soak-redeemer", REDEEMERS);
  // Logins go to accounts of their own: a user holds at most 100 sessions, so a reader logging in
  // all run long would end the session its reads use.
  const loginAccounts = await registerAll("soak-login", READERS);
  for (const [r, reader] of readers.entries()) {
    for (let b = 0; b < BOOKS_PER_READER; b++) {
      await post(
        "/activation",
        { bookId: bookIds[(r * BOOKS_PER_READER + b) % BOOKS], userUuid: reader.uuid },
        adminToken,
      );
    }
  }
  const codes: string[] = [];
  for (let batch = 0; codes.length < CODES; batch++) {
    const quantity = Math.min(10_000, CODES - codes.length);
    const made = (await post(
      "/activation-qr-code/batch",
      { bookId: bookIds[batch % BOOKS], quantity, label: "soak" },
      adminToken,
    )) as { code: string }[];
    codes.push(...made.map((qr) => qr.code));
  }
  return {
    adminToken,
    readers: readers.map(({ email, token }) => ({ email, token })),
    redeemers: redeemers.map((r) => r.token),
    loginEmails: loginAccounts.map(({ email }) => email),
    bookIds,
    codes,
    cursor: { codeCursor: 0 },
  };
}

const mixed = Object.keys(MIX) as (keyof typeof MIX)[];
const weightTotal = mixed.reduce((sum, kind) => sum + MIX[kind], 0);
function pickKind(): Kind {
  let roll = Math.random() * weightTotal;
  for (const kind of mixed) {
    roll -= MIX[kind];
    if (roll < 0) return kind;
  }
  return "book";
}

async function drive(
  base: string,
  seeded: Seeded,
  durationMs: number,
  concurrency: number,
  cursor: { codeCursor: number },
): Promise<{
  seconds: number;
  tallies: Record<Kind, Tally>;
  errors: Map<string, { count: number; body: string }>;
  codesRanOut: boolean;
}> {
  const tallies = Object.fromEntries(
    KINDS.map((k) => [k, { ok: 0, failed: 0, latencies: [] }]),
  ) as unknown as Record<Kind, Tally>;
  const errors = new Map<string, { count: number; body: string }>();
  let codesRanOut = false;
  const start = performance.now();
  const deadline = start + durationMs;
  let counter = 0;

  const request = (kind: Kind): [string, RequestInit] | null => {
    const n = counter++;
    const reader = seeded.readers[n % seeded.readers.length]!;
    const auth = { Authorization: `Bearer ${reader.token}` };
    switch (kind) {
      case "myBooks":
        return [`${base}/book/my-books`, { headers: auth }];
      case "book":
        return [`${base}/book/${seeded.bookIds[(n * 7919) % seeded.bookIds.length]}`, { headers: auth }];
      case "redeem": {
        const code = seeded.codes[cursor.codeCursor++];
        if (code === undefined) {
          codesRanOut = true;
          return null;
        }
        return [
          `${base}/activation/by-qr-code`,
          {
            method: "POST",
            headers: {
              Authorization: `Bearer ${seeded.redeemers[n % seeded.redeemers.length]}`,
              "Content-Type": "application/json",
            },
            body: JSON.stringify({ code }),
          },
        ];
      }
      case "login":
        return [
          `${base}/authentication/login`,
          {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({
              email: seeded.loginEmails[n % seeded.loginEmails.length],
              password: PASSWORD,
            }),
          },
        ];
    }
  };

  const worker = async (pick: () => Kind) => {
    while (performance.now() < deadline) {
      const kind = pick();
      const next = request(kind);
      if (!next) continue;
      const sent = performance.now();
      let status = 0;
      let body = "";
      try {
        const response = await fetch(next[0], next[1]);
        status = response.status;
        body = await response.text();
      } catch (error) {
        body = String(error);
      }
      const tally = tallies[kind];
      tally.latencies.push(performance.now() - sent);
      if (status >= 200 && status < 300) tally.ok++;
      else {
        tally.failed++;
        const key = `${kind} ${status || "network"}`;
        const seen = errors.get(key) ?? { count: 0, body: body.slice(0, 300) };
        seen.count++;
        errors.set(key, seen);
      }
    }
  };
  await Promise.all([
    ...Array.from({ length: concurrency }, () => worker(pickKind)),
    ...Array.from({ length: LOGIN_CONCURRENCY }, () => worker(() => "login")),
  ]);
  return { seconds: (performance.now() - start) / 1000, tallies, errors, codesRanOut };
}

await main();
