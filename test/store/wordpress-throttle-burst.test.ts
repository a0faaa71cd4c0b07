// The login throttle's bound under a parallel burst on the WordPress store (MariaDB), where the
// account is resolved by the shop's database before the slot is taken: 100 parallel wrong
// passwords for one fixture user are evaluated 10 times, the rest 429; a user with 9 failures
// logging in 10 times at once always succeeds. Through the real server (services/throttle-in-flight.test.ts
// has the same on the embedded store).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type RealServer, startRealServer } from "../helpers/real-server";
import {
  createWordPressDatabase,
  fixtureLogins,
  requireStoreServer,
  storeServerUrl,
  type WordPressDatabase,
} from "../helpers/wordpress";

describe.if(requireStoreServer())("login bursts on the WordPress store, real server (MariaDB)", () => {
  let wp: WordPressDatabase;
  let server: RealServer;

  beforeAll(async () => {
    wp = await createWordPressDatabase(storeServerUrl!);
    server = await startRealServer({
      env: {
        THROTTLE: "on",
        // Each test a client of its own (X-Forwarded-For), so one's failures never close the other's address.
        TRUSTED_PROXIES: "127.0.0.1",
        STORE_DRIVER: "wordpress",
        STORE_DATABASE_URL: wp.url,
        STORE_TABLE_PREFIX: "wp_",
      },
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await wp?.drop();
  });

  const login = (client: string, email: string, password: string) =>
    fetch(`${server.url}/authentication/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Forwarded-For": client },
      body: JSON.stringify({ email, password }),
    });

  async function statuses(n: number, request: (i: number) => Promise<Response>): Promise<number[]> {
    const responses = await Promise.all(Array.from({ length: n }, (_, i) => request(i)));
    for (const response of responses) await response.arrayBuffer();
    return responses.map((response) => response.status);
  }

  test("100 parallel wrong passwords for one user: 10 × 401, 90 × 429", async () => {
    const answered = await statuses(100, (i) => login("192.0.2.1", "Jane.Doe@Example.com", `wrong-${i}-xx`));
    expect(answered.filter((status) => status === 401)).toHaveLength(10);
    expect(answered.filter((status) => status === 429)).toHaveLength(90);
  });

  test("a user with 9 failures logging in 10 times at once: all 200", async () => {
    const admin = fixtureLogins.find((fixture) => fixture.name === "admin")!;
    for (let i = 0; i < 9; i++)
      expect((await login("192.0.2.2", admin.name, `wrong-${i}-xx`)).status).toBe(401);
    expect(await statuses(10, () => login("192.0.2.2", admin.name, admin.password))).toEqual(
      Array(10).fill(200),
    );
  });
});
