// Issue 24, finding 2 (timing) on the embedded store (SQLite, or Postgres with TEST_DATABASE_URL):
// a wrong password costs the same for an unknown name, a user of the store's dearest scheme and a
// user of a cheaper one (an old phpass hash brought over from a shop), and the store names the
// schemes it holds in SQL on either dialect. The same through the real server on the WordPress
// store: test/store/wordpress-server.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { PASSWORD_HASH_COST } from "../../src/auth/passwords";
import { queuedWrite } from "../../src/db/transaction";
import { hashSchemesOf } from "../../src/store/embedded";
import { createTestApp, type TestApp } from "../helpers/test-app";

// The fixture shop's manager (test/fixtures/wordpress/schema.sql): a phpass hash made by WordPress.
const PHPASS_HASH = "$P$BUPzXysILBnabrmMI6KuloZgXsNY7x/";
const PHPASS_PASSWORD = "Pässwörd-日本語-🔐";

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Gives the registered user `email` another stored hash, as a store migrated from a shop has. */
async function setHash(t: TestApp, email: string, hash: string): Promise<void> {
  const { storeUser } = t.deps.db.tables;
  await queuedWrite(t.deps.db, (tx) =>
    tx.orm.update(storeUser).set({ userPass: hash }).where(eq(storeUser.userEmail, email)),
  );
}

describe("wrong logins on the embedded store", () => {
  let t: TestApp;
  let bcryptUser: string;
  let phpassUser: string;
  const login = (email: string, password: string) =>
    t.call("POST", "/authentication/login", { json: { email, password } });

  beforeAll(async () => {
    // The throttle stays out of the way: these are many wrong logins from one address on purpose.
    // Registrations hash at the production cost, so the bcrypt user is of the dearest scheme.
    t = await createTestApp({ env: { THROTTLE: "off" }, passwordHashCost: PASSWORD_HASH_COST });
    bcryptUser = (await t.user()).email;
    phpassUser = (await t.user()).email;
    // Most of the store is phpass, so a dummy of the majority scheme would be the cheap one.
    await setHash(t, phpassUser, PHPASS_HASH);
    for (let i = 0; i < 3; i++) await setHash(t, (await t.user()).email, PHPASS_HASH);
  });
  afterAll(() => t?.close());

  test("the phpass user still logs in with the right password", async () => {
    expect((await login(phpassUser, PHPASS_PASSWORD)).status).toBe(200);
  });

  test("medians of 15: unknown name, phpass user and bcrypt user within 1.5× of each other", async () => {
    const timed = async (email: string) => {
      const start = performance.now();
      const response = await login(email, "not the password");
      const elapsed = performance.now() - start;
      expect(response.status).toBe(401);
      return elapsed;
    };
    // Warm-up: the first failure samples the store's schemes and makes the dummy.
    await timed("nobody-warmup@example.com");
    const unknown: number[] = [];
    const phpass: number[] = [];
    const bcrypt: number[] = [];
    // Interleaved, so a busy moment of the machine weighs on all three alike.
    for (let i = 0; i < 15; i++) {
      unknown.push(await timed(`nobody-${i}@example.com`));
      phpass.push(await timed(phpassUser));
      bcrypt.push(await timed(bcryptUser));
    }
    const medians = [median(unknown), median(phpass), median(bcrypt)];
    console.log(
      `embedded wrong-login medians over 15: unknown ${medians[0]!.toFixed(1)} ms, $P$ ${medians[1]!.toFixed(1)} ms, $wp$ ${medians[2]!.toFixed(1)} ms`,
    );
    // Wide margin for a loaded CI machine: before the fix the phpass user was ~20× faster.
    expect(Math.max(...medians) / Math.min(...medians)).toBeLessThanOrEqual(1.5);
  }, 60_000);
});

describe("the embedded store's hash schemes", () => {
  let t: TestApp;
  beforeAll(async () => {
    // Registrations write what production writes: $wp$2y$10.
    t = await createTestApp({ passwordHashCost: PASSWORD_HASH_COST });
  });
  afterAll(() => t?.close());

  test("every scheme its users hold, named as passwords.ts schemeOfHash names it", async () => {
    const hashes = [
      PHPASS_HASH,
      "$P$DtQ8Z0lfyIj3NjDgvfgHKIp6shL1Hd/",
      "$2y$12$Gtn5Ttg0RAG4yF.2O1jzduLIiEP3JwJQvtPufHg1IyBnJt9oSIXN6",
      "$argon2id$v=19$m=65536,t=4,p=1$c29tZXNhbHRzb21lc2FsdA$ZAoFxB+4HZ2ayvZEQ6oqHdVYmPQ8Zd7cZ0O4U8Q2N3E",
      "5f4dcc3b5aa765d61d8327deb882cf99",
    ];
    for (const hash of hashes) await setHash(t, (await t.user()).email, hash);
    await t.user(); // registered here: bookdist's own $wp$ bcrypt
    const expected = ["$P$B", "$P$D", "$2y$12", "$argon2id$v=19$m=65536,t=4,p=1", "md5", "$wp$2y$10"];
    expect([...(await hashSchemesOf(t.deps.db))].sort()).toEqual(expected.sort());
    // The same when the users are grouped two ids per turn (a large store's many ranges).
    expect([...(await hashSchemesOf(t.deps.db, 2))].sort()).toEqual(expected.sort());
  });
});
