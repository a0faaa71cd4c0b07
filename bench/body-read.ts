// What reading a small JSON body costs over HTTP (issue 26, finding 7: redemption's overhead):
// a bare Bun.serve answers a POST of a redemption-sized body in one of several ways, driven by wrk,
// and the server's CPU time per request is read from /proc — `await request.json()` (the floor),
// readBounded alone, readBounded plus the new Request that receivePromptBody handed the validators,
// and that plus the two idle-timeout calls. Each way runs in its own server process, in turns.
//
// Run: bun bench/body-read.ts   (needs wrk; about 40 s)
// Internal: bun bench/body-read.ts serve MODE PORT
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readBounded } from "../src/http/bounded-body";
import { freePort, median, tempDir, waitForHttp } from "./lib";

const MODES = {
  json: "await request.json() (the floor)",
  bounded: "readBounded + JSON.parse",
  rebuilt: "readBounded + new Request(…) + .json() (receivePromptBody before)",
  timeouts: "… + server.timeout twice (receivePromptBody before, whole)",
} as const;
type Mode = keyof typeof MODES;
const TURNS = 5;
const SECONDS = 2;

function serve(mode: Mode, port: number): void {
  const server = Bun.serve({
    port,
    hostname: "127.0.0.1",
    async fetch(request, srv) {
      if (request.method === "GET") return new Response("ok");
      let body: unknown;
      if (mode === "json") body = await request.json();
      else {
        if (mode === "timeouts") srv.timeout(request, 10);
        const text = await readBounded(request, 1024 * 1024);
        if (mode === "timeouts") srv.timeout(request, 255);
        if (mode === "bounded") body = JSON.parse(text);
        else {
          const rebuilt = new Request(request.url, {
            method: request.method,
            headers: request.headers,
            body: new TextEncoder().encode(text),
            signal: request.signal,
          });
          body = await rebuilt.json();
        }
      }
      return Response.json({ ok: (body as { code?: string }).code !== undefined });
    },
  });
  void server;
}

const CLOCK_TICKS = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;
function cpuTicksOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

async function main(): Promise<void> {
  if (Bun.which("wrk") === null) throw new Error("wrk is missing: apt-get install -y wrk");
  const work = tempDir("bookdist-bench-body-");
  const lua = join(work, "post.lua");
  writeFileSync(
    lua,
    `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"code":"7KQ4-M2XD-9RTF-0BHA"}'
function done(summary) io.write(string.format("RESULT %d\\n", summary.requests)) end
`,
  );
  const servers = (Object.keys(MODES) as Mode[]).map((mode) => {
    const port = freePort();
    const child = Bun.spawn(["bun", import.meta.path, "serve", mode, String(port)], {
      stdout: "inherit",
      stderr: "inherit",
    });
    return { mode, port, child, samples: [] as number[] };
  });
  try {
    for (const s of servers) await waitForHttp(`http://127.0.0.1:${s.port}/`);
    for (let turn = -1; turn < TURNS; turn++) {
      for (const s of servers) {
        const before = cpuTicksOf(s.child.pid);
        const run = Bun.spawnSync([
          "wrk",
          "-t1",
          "-c32",
          `-d${SECONDS}s`,
          "-s",
          lua,
          `http://127.0.0.1:${s.port}/`,
        ]);
        const requests = Number(/RESULT (\d+)/.exec(run.stdout.toString())?.[1]);
        const us = ((cpuTicksOf(s.child.pid) - before) * 1e6) / CLOCK_TICKS / requests;
        if (turn >= 0) s.samples.push(us); // turn -1 warms up
      }
    }
  } finally {
    for (const s of servers) s.child.kill();
    rmSync(work, { recursive: true, force: true });
  }
  console.log("\nPOST of a 31-byte JSON body: server CPU µs per request (median of turns)");
  for (const s of servers)
    console.log(`${MODES[s.mode].padEnd(70)} ${median(s.samples).toFixed(1).padStart(7)}`);
}

if (process.argv[2] === "serve") serve(process.argv[3] as Mode, Number(process.argv[4]));
else await main();
