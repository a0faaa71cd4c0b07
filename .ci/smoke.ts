// HTTP smoke test against a running server (started by .ci/run exactly as the README says).
// Usage: bun .ci/smoke.ts http://127.0.0.1:18080
import { childEnv } from "../test/helpers/child-env";

const base = process.argv[2] ?? "http://127.0.0.1:8080";
let passed = 0;
let failed = 0;

async function check(name: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
    passed++;
    console.log(`ok   ${name}`);
  } catch (error) {
    failed++;
    console.log(`FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function expectStatus(response: Response, status: number): void {
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}`);
}

const json = (body: unknown, token?: string): RequestInit => ({
  method: "POST",
  headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
  body: JSON.stringify(body),
});

let token = "";
const email = `smoke-${Date.now()}@example.com`;

await check("GET /health is ok", async () => {
  const response = await fetch(`${base}/health`);
  expectStatus(response, 200);
  const body = (await response.json()) as { status: string };
  if (body.status !== "ok") throw new Error(JSON.stringify(body));
});
await check("POST /authentication/register", async () => {
  const response = await fetch(
    `${base}/authentication/register`,
    json({ email, password: "smoke-test-password" }),
  );
  expectStatus(response, 201);
});
await check("POST /authentication/login", async () => {
  const response = await fetch(
    `${base}/authentication/login`,
    json({ email, password: "smoke-test-password" }),
  );
  expectStatus(response, 200);
  token = ((await response.json()) as { token: string }).token;
});
await check("GET /authentication/me", async () => {
  const response = await fetch(`${base}/authentication/me`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expectStatus(response, 200);
});
await check("POST /book needs admin (403 for a reader)", async () => {
  expectStatus(await fetch(`${base}/book`, json({ title: "Smoke" }, token)), 403);
});
await check("register, `bun run admin grant` beside the server, POST /book as admin → 201", async () => {
  const adminEmail = process.env.SMOKE_ADMIN_EMAIL ?? "smoke-admin@example.com";
  const registered = await fetch(
    `${base}/authentication/register`,
    json({ email: adminEmail, password: "smoke-admin-password" }),
  );
  expectStatus(registered, 201);
  const adminToken = ((await registered.json()) as { token: string }).token;
  expectStatus(await fetch(`${base}/book`, json({ title: "Smoke" }, adminToken)), 403);
  // The running server's DATA_DIR and nothing else, as .ci/run starts it: no `.env`, no DATABASE_URL
  // of the shell (test/helpers/child-env.ts).
  const grant = Bun.spawnSync(["bun", "run", "admin", "grant", adminEmail], {
    cwd: `${import.meta.dir}/..`,
    env: childEnv({ DATA_DIR: process.env.SMOKE_DATA_DIR ?? "./data" }),
  });
  if (grant.exitCode !== 0) throw new Error(`bun run admin grant: ${grant.stderr.toString().trim()}`);
  // The live session sees the grant at its next request.
  const response = await fetch(
    `${base}/book`,
    json({ title: "Smoke", isbn: "978-0-306-40615-7" }, adminToken),
  );
  expectStatus(response, 201);
  if (!response.headers.get("location")) throw new Error("no Location");
});
await check("GET /book lists it with X-Total-Count", async () => {
  const response = await fetch(`${base}/book`, { headers: { Authorization: `Bearer ${token}` } });
  expectStatus(response, 200);
  if (Number(response.headers.get("x-total-count")) < 1) throw new Error("empty list");
});
await check("GET /v3/api-docs and /swagger-ui", async () => {
  expectStatus(await fetch(`${base}/v3/api-docs`), 200);
  expectStatus(await fetch(`${base}/swagger-ui`), 200);
});
await check("POST /authentication/logout ends the token", async () => {
  expectStatus(await fetch(`${base}/authentication/logout`, json({}, token)), 200);
  expectStatus(
    await fetch(`${base}/authentication/me`, { headers: { Authorization: `Bearer ${token}` } }),
    401,
  );
});

console.log(`smoke: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
