// Login throttling by account (finding 4) and across names (finding 6, password spraying), through
// the app: every spelling of one user counts together, unknown names count by their normalised
// form, and 100 failures from one address close it to every name.
import { describe, expect, test } from "bun:test";
import { normalizedName } from "../../src/services/login-throttle";
import { testDialect } from "../helpers/databases";
import { createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";

async function withApp(work: (t: TestApp) => Promise<void>) {
  const t = await createTestApp();
  try {
    await work(t);
  } finally {
    await t.close();
  }
}

const login = (t: TestApp, email: string, password: string) =>
  t.call("POST", "/authentication/login", { json: { email, password } });

describe(`login throttling by account (${testDialect})`, () => {
  test("the login and the e-mail of one user, in any case, share one bucket of 10", () =>
    withApp(async (t) => {
      const registered = await t.call("POST", "/authentication/register", {
        json: { email: "Jane.Doe@Example.com", password: TEST_PASSWORD, firstName: "Jane", lastName: "Doe" },
      });
      expect(registered.status).toBe(201);
      const spellings = [
        "jane.doe",
        "JANE.DOE",
        "jane.doe@example.com",
        "JANE.DOE@EXAMPLE.COM",
        " Jane.Doe ",
      ];
      for (let i = 0; i < 10; i++) {
        expect((await login(t, spellings[i % spellings.length]!, `wrong-${i}-xx`)).status).toBe(401);
      }
      expect((await login(t, "jane.doe", TEST_PASSWORD)).status).toBe(429);
      expect((await login(t, "jane.doe@example.com", TEST_PASSWORD)).status).toBe(429);
    }));

  test("an unknown name counts under its normalised form: accents, case and width fold together", () =>
    withApp(async (t) => {
      const spellings = ["nobody.here", "NOBODY.HERE", "nóbody.hëre", "ｎｏｂｏｄｙ.ｈｅｒｅ"];
      for (let i = 0; i < 10; i++) {
        expect((await login(t, spellings[i % spellings.length]!, `wrong-${i}-xx`)).status).toBe(401);
      }
      expect((await login(t, "Nobody.Here", "wrong-again-xx")).status).toBe(429);
      // Another name from the same address is not affected by this one's bucket.
      const user = await t.user();
      expect((await login(t, user.email, TEST_PASSWORD)).status).toBe(200);
    }));

  test("password spraying: after 100 failed logins from one address across 100 names, every name gets 429", () =>
    withApp(async (t) => {
      const user = await t.user();
      // Batches of 10 at once: fast, and each batch is recorded before the next is checked.
      for (let batch = 0; batch < 10; batch++) {
        const responses = await Promise.all(
          Array.from({ length: 10 }, (_, i) => login(t, `sprayed-${batch}-${i}@example.com`, "Summer2026!")),
        );
        expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 10 }, () => 401));
      }
      const next = await login(t, "sprayed-next@example.com", "Summer2026!");
      expect(next.status).toBe(429);
      expect(Number(next.headers.get("retry-after"))).toBeGreaterThan(0);
      // Even a right password from that address waits: the address has used up its failures.
      expect((await login(t, user.email, TEST_PASSWORD)).status).toBe(429);
    }));
});

test("normalizedName folds what case- and accent-insensitive collations treat as equal", () => {
  expect(normalizedName(" Jáne.DOE ")).toBe("jane.doe");
  expect(normalizedName("ｊａｎｅ")).toBe("jane");
  expect(normalizedName("Straße")).toBe("strasse");
});
