// A user holds at most 100 sessions (issue 34, finding 7): through the real server, the 101st
// login ends the first session (401 for its token) and leaves the others; the table then holds
// 100 rows for the user, none of them an id a token carries.

import { Database as SqliteConnection } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SQL } from "bun";
import { type RealServer, startRealServer } from "../helpers/real-server";

const PASSWORD = "correct horse battery staple";
/** The contract's number (README "Admins"), not read from the code under test. */
const MAX_SESSIONS_PER_USER = 100;

function sidOf(token: string): string {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")).sid;
}

describe("sessions per user (real server)", () => {
  let server: RealServer;
  beforeAll(async () => {
    server = await startRealServer();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  async function sessionRows(userUuid: string): Promise<string[]> {
    const url = server.dataEnv.DATABASE_URL;
    if (url) {
      const sql = new SQL(url);
      try {
        const rows = await sql`SELECT id FROM user_session WHERE user_uuid = ${userUuid}`;
        return rows.map((row: { id: string }) => row.id);
      } finally {
        await sql.close();
      }
    }
    const db = new SqliteConnection(join(server.dataDir, "bookdist.sqlite"), { readonly: true });
    try {
      return db
        .query<{ id: string }, [string]>("SELECT id FROM user_session WHERE user_uuid = ?")
        .all(userUuid)
        .map((row) => row.id);
    } finally {
      db.close();
    }
  }

  const me = (token: string) =>
    fetch(`${server.url}/authentication/me`, { headers: { Authorization: `Bearer ${token}` } });

  test(`the ${MAX_SESSIONS_PER_USER + 1}st login ends the first session`, async () => {
    const email = `many-${crypto.randomUUID()}@example.com`;
    const registered = await fetch(`${server.url}/authentication/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    expect(registered.status).toBe(201);
    const first = (await registered.json()) as { token: string };
    const login = async () => {
      const response = await fetch(`${server.url}/authentication/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { token: string }).token;
    };
    const tokens = [first.token];
    // 99 more, one after the other: the user holds 100, all alive.
    while (tokens.length < MAX_SESSIONS_PER_USER) tokens.push(await login());
    expect((await me(tokens[0]!)).status).toBe(200);
    const userUuid = ((await (await me(tokens[0]!)).json()) as { uuid: string }).uuid;
    expect(await sessionRows(userUuid)).toHaveLength(MAX_SESSIONS_PER_USER);

    const newest = await login();
    expect((await me(tokens[0]!)).status).toBe(401);
    expect((await me(tokens[1]!)).status).toBe(200);
    expect((await me(newest)).status).toBe(200);
    const rows = await sessionRows(userUuid);
    expect(rows).toHaveLength(MAX_SESSIONS_PER_USER);
    // No row holds an id a token carries.
    const sids = new Set([...tokens, newest].map(sidOf));
    expect(rows.filter((id) => sids.has(id))).toEqual([]);
  }, 180_000);
});
