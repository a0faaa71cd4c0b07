// Issue 24, finding 2 (timing): a failed check costs at least the store's most expensive scheme,
// whichever scheme most users have and whichever user was asked.
import { describe, expect, test } from "bun:test";
import { DummyHash } from "../../src/auth/dummy-hash";
import {
  DEFAULT_DUMMY_HASH,
  dummyHashOfScheme,
  schemeOfHash,
  verifyPassword,
} from "../../src/auth/passwords";

const WRONG = "not the password";

/** A DummyHash over a fixed list of schemes, and how often it was asked. */
function dummyOver(schemes: string[] | (() => Promise<string[]>)) {
  let samples = 0;
  const dummy = new DummyHash(
    () => {
      samples++;
      return typeof schemes === "function" ? schemes() : Promise.resolve(schemes);
    },
    () => 0,
  );
  return { dummy, samples: () => samples };
}

async function elapsedMs(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

describe("the dummy is of the store's most expensive scheme", () => {
  test.each([
    [["$P$B", "$P$B", "$wp$2y$10"]],
    [["$wp$2y$10", "$P$B", "md5"]],
    [["md5", "$wp$2y$10", "$2y$04", "$P$D"]],
  ])("%j → the bcrypt one, however the list is ordered", async (schemes) => {
    const { dummy } = dummyOver(schemes);
    expect(schemeOfHash((await dummy.current()).hash)).toBe("$wp$2y$10");
  });

  test("a shop of phpass and md5 hashes gets a phpass dummy of the dearer count", async () => {
    const { dummy } = dummyOver(["$P$B", "md5", "$P$D"]);
    expect(schemeOfHash((await dummy.current()).hash)).toBe("$P$D");
  });

  test("an empty store keeps the default ($wp$, what its registrations write) and is not asked again", async () => {
    const { dummy, samples } = dummyOver([]);
    expect((await dummy.current()).hash).toBe(DEFAULT_DUMMY_HASH);
    await dummy.current();
    expect(samples()).toBe(1);
  });

  test("an unreachable store keeps the default and is asked again at the next check", async () => {
    const { dummy, samples } = dummyOver(() => Promise.reject(new Error("connection refused")));
    expect((await dummy.current()).hash).toBe(DEFAULT_DUMMY_HASH);
    await dummy.current();
    expect(samples()).toBe(2);
  });
});

describe("verify", () => {
  test("right and wrong passwords are told apart, an unknown user is never let in", async () => {
    const { dummy } = dummyOver(["$2y$04"]);
    const hash = (await Bun.password.hash("secret-one", { algorithm: "bcrypt", cost: 4 })).replace(
      /^\$2b\$/,
      "$2y$",
    );
    expect(await dummy.verify("secret-one", hash)).toBe(true);
    expect(await dummy.verify(WRONG, hash)).toBe(false);
    expect(await dummy.verify("secret-one", undefined)).toBe(false);
  });

  // Bounds with wide margins (a $2y$12 check is ~100× a $P$B one), so a loaded machine stays green.
  test("a cheap scheme's failure is topped up to the dearest scheme; its success is not", async () => {
    const dearest = await dummyHashOfScheme("$2y$12");
    const cheap = await dummyHashOfScheme("$P$B");
    // A $P$B hash whose password we know: the phpass vector of the fixtures' own shop.
    const manager = "$P$BUPzXysILBnabrmMI6KuloZgXsNY7x/";
    const { dummy } = dummyOver(["$P$B", "$2y$12"]);
    await dummy.current();
    const dearCheck = await elapsedMs(() => verifyPassword(WRONG, dearest));

    expect(await elapsedMs(() => dummy.verify(WRONG, cheap))).toBeGreaterThan(dearCheck / 2);
    expect(await elapsedMs(() => dummy.verify(WRONG, undefined))).toBeGreaterThan(dearCheck / 2);
    let ok = false;
    expect(
      await elapsedMs(async () => {
        ok = await dummy.verify("Pässwörd-日本語-🔐", manager);
      }),
    ).toBeLessThan(dearCheck / 2);
    expect(ok).toBe(true);
  });
});
