// The WordPress store on MariaDB, through the app: hash dispatch as WordPress 6.8's
// wp_check_password() (finding 11), what an unknown name costs next to a real $P$ customer
// (finding 5), and the login throttle keyed on the account MariaDB's collation resolves (finding 4).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../../src/store/open-store";
import { createTestApp, type TestApp } from "../helpers/test-app";
import {
  createWordPressDatabase,
  requireStoreServer,
  storeServerUrl,
  type WordPressDatabase,
  wordpressFixtures,
} from "../helpers/wordpress";

const phpass = (
  JSON.parse(readFileSync(join(wordpressFixtures, "password-vectors.json"), "utf8")) as {
    vectors: Array<{ id: string; password: string; hash: string }>;
  }
).vectors.find((vector) => vector.id === "phpass/ascii")!;

/** The app over a fresh fixture shop; `env` e.g. THROTTLE=off. */
async function shopApp(wp: WordPressDatabase, env: Record<string, string> = {}): Promise<TestApp> {
  return createTestApp({
    env,
    store: (deps) =>
      openStore(
        { ...deps.config, storeDriver: "wordpress", storeDatabaseUrl: wp.url, storeTablePrefix: "wp_" },
        deps.db,
        deps.clock,
      ),
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

describe.if(requireStoreServer())("the WordPress store's hashes (MariaDB)", () => {
  let wp: WordPressDatabase;
  let t: TestApp;
  const login = (email: string, password: string) =>
    t.call("POST", "/authentication/login", { json: { email, password } });

  beforeAll(async () => {
    wp = await createWordPressDatabase(storeServerUrl!);
    // A shop of long-standing customers: most carry phpass ($P$) hashes, as most real shops do.
    const customers = Array.from({ length: 12 }, (_, i) => [
      `legacy${i}`,
      phpass.hash,
      `legacy${i}`,
      `legacy${i}@example.com`,
      "2020-01-01 00:00:00",
      `Legacy ${i}`,
    ]);
    await wp.admin.query(
      "INSERT INTO wp_users (user_login, user_pass, user_nicename, user_email, user_registered, display_name) VALUES ?",
      [customers],
    );
    // The throttle stays out of the way: these are many wrong logins from one address on purpose.
    t = await shopApp(wp, { THROTTLE: "off" });
  });
  afterAll(async () => {
    await t?.close();
    await wp?.drop();
  });

  test("a $P$ hash logs in; the same hash marked $H$ (phpBB) is refused, as WordPress 6.8 does", async () => {
    expect((await login("legacy0", phpass.password)).status).toBe(200);
    await wp.admin.query("UPDATE wp_users SET user_pass = ? WHERE user_login = 'legacy1'", [
      `$H$${phpass.hash.slice(3)}`,
    ]);
    expect((await login("legacy1", phpass.password)).status).toBe(401);
  });

  test("30 wrong logins: an unknown name costs what a $P$ customer costs (medians within 1.3×)", async () => {
    const timed = async (email: string) => {
      const start = performance.now();
      const response = await login(email, "not the password");
      const elapsed = performance.now() - start;
      expect(response.status).toBe(401);
      return elapsed;
    };
    // Warm-up: the first look-up samples the shop's schemes and makes the dummy.
    await timed("nobody-warmup@example.com");
    await timed("legacy2@example.com");
    const unknown: number[] = [];
    const known: number[] = [];
    // Interleaved, so a busy moment of the machine weighs on both alike.
    for (let i = 0; i < 30; i++) {
      unknown.push(await timed(`nobody-${i}@example.com`));
      known.push(await timed("legacy2@example.com"));
    }
    const unknownMedian = median(unknown);
    const knownMedian = median(known);
    console.log(
      `wrong-login medians over 30: unknown name ${unknownMedian.toFixed(2)} ms, $P$ customer ${knownMedian.toFixed(2)} ms (ratio ${(Math.max(unknownMedian, knownMedian) / Math.min(unknownMedian, knownMedian)).toFixed(2)})`,
    );
    expect(Math.max(unknownMedian, knownMedian) / Math.min(unknownMedian, knownMedian)).toBeLessThanOrEqual(
      1.3,
    );
    // Both cost the shop's dearest scheme, the fixture users' $wp$ bcrypt: 60 of them take seconds.
  }, 60_000);
});

describe.if(requireStoreServer())("the login throttle on the WordPress store (MariaDB)", () => {
  let wp: WordPressDatabase;
  let t: TestApp;
  beforeAll(async () => {
    wp = await createWordPressDatabase(storeServerUrl!);
    t = await shopApp(wp);
  });
  afterAll(async () => {
    await t?.close();
    await wp?.drop();
  });

  test("every spelling MariaDB resolves to Jane (login, e-mail, case, accents) shares her bucket of 10", async () => {
    const spellings = ["jane.doe", "JANE.DOE", "jáne.doe", "Jane.Doe@Example.com", "JANE.DOE@EXAMPLE.COM"];
    for (let i = 0; i < 10; i++) {
      const response = await t.call("POST", "/authentication/login", {
        json: { email: spellings[i % spellings.length], password: `wrong-${i}-xx` },
      });
      expect(response.status).toBe(401);
    }
    const right = await t.call("POST", "/authentication/login", {
      json: { email: "jane.doe", password: `it's "quoted"` },
    });
    expect(right.status).toBe(429);
  });
});
