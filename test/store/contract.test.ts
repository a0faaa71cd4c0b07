// One contract for every StoreDirectory: the embedded store always, the WordPress store against
// MySQL/MariaDB when TEST_STORE_DATABASE_URL is set (e.g. mysql://root@127.0.0.1:3306).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { join } from "node:path";
import { asc, eq, sql } from "drizzle-orm";
import mysql, { type RowDataPacket } from "mysql2/promise";
import type { Database } from "#db";
import { PASSWORD_HASH_COST, verifyPassword } from "../../src/auth/passwords";
import { queuedWrite } from "../../src/db/transaction";
import { type Clock, fixedClock } from "../../src/lib/clock";
import { AppError } from "../../src/lib/problems";
import type { StoreDirectory, StoreUser } from "../../src/store/directory";
import { EmbeddedStore } from "../../src/store/embedded";
import { WordPressStore } from "../../src/store/wordpress";
import { createTestDatabase, type TestDatabase } from "../helpers/databases";
import {
  createWordPressDatabase,
  requireStoreServer,
  storeServerUrl,
  type WordPressDatabase,
  wordpressFixtures,
} from "../helpers/wordpress";

const NOW = "2026-11-21T10:00:00.000Z";
const NOW_WORDPRESS = "2026-11-21 10:00:00";
const PASSWORD = 'it\'s a "quoted" passphrase';
const UUID_KEY = "_bookdist_uuid";

interface PasswordVector {
  id: string;
  password: string;
  hash: string;
  expected: boolean;
}

const vectors = (
  JSON.parse(readFileSync(join(wordpressFixtures, "password-vectors.json"), "utf8")) as {
    vectors: PasswordVector[];
  }
).vectors;

/** A user row in WordPress's column names, whichever store holds it. */
interface StoredUserRow {
  id: string;
  login: string;
  pass: string;
  nicename: string;
  email: string;
  url: string;
  registered: string;
  activationKey: string;
  status: number;
  displayName: string;
}

/** A store under test plus the means to look behind it. */
interface StoreHarness {
  store: StoreDirectory;
  /** The service's own database (store_user_link lives there). */
  serviceDb: Database;
  prefix: string;
  /** Every user row whose e-mail matches, case-insensitively. */
  usersWithEmail(email: string): Promise<StoredUserRow[]>;
  /** The user's usermeta rows in umeta_id order. */
  metaOf(userId: string): Promise<Array<{ id: number; key: string; value: string }>>;
  setPasswordHash(userId: string, hash: string): Promise<void>;
  close(): Promise<void>;
}

type MakeStore = (clock: Clock) => Promise<StoreHarness>;

function expectedCustomerMeta(
  prefix: string,
  login: string,
  firstName: string,
  lastName: string,
  uuid: string,
) {
  return [
    ["nickname", login],
    ["first_name", firstName],
    ["last_name", lastName],
    ["description", ""],
    ["rich_editing", "true"],
    ["syntax_highlighting", "true"],
    ["comment_shortcuts", "false"],
    ["admin_color", "fresh"],
    ["use_ssl", "0"],
    ["show_admin_bar_front", "true"],
    ["locale", ""],
    [`${prefix}capabilities`, 'a:1:{s:8:"customer";b:1;}'],
    [`${prefix}user_level`, "0"],
    [UUID_KEY, uuid],
  ];
}

async function appErrorOf(pending: Promise<unknown>): Promise<AppError> {
  try {
    await pending;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected an AppError, but the call succeeded");
}

async function linksOf(db: Database, uuid: string) {
  const { storeUserLink } = db.tables;
  return db.orm
    .select({ uuid: storeUserLink.uuid, storeUserId: storeUserLink.storeUserId })
    .from(storeUserLink)
    .where(eq(storeUserLink.uuid, uuid));
}

function describeStoreContract(name: string, makeStore: MakeStore): void {
  describe(`StoreDirectory contract: ${name}`, () => {
    const clock = fixedClock(NOW);
    let h: StoreHarness;

    beforeAll(async () => {
      h = await makeStore(clock);
    });
    afterAll(async () => {
      await h?.close();
    });

    async function onlyUser(email: string): Promise<StoredUserRow> {
      const rows = await h.usersWithEmail(email);
      expect(rows).toHaveLength(1);
      return rows[0]!;
    }

    test("registers a WooCommerce customer: the users row and every usermeta row", async () => {
      const user = await h.store.register({
        email: "Mary.Major@Example.com",
        password: PASSWORD,
        firstName: "Mary",
        lastName: "Major",
      });
      expect(user).toMatchObject({
        login: "mary.major",
        email: "Mary.Major@Example.com",
        displayName: "Mary Major",
        firstName: "Mary",
        lastName: "Major",
        storeRoles: ["customer"],
      });
      expect(user.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

      const row = await onlyUser("mary.major@example.com");
      expect(row.id).toBe(user.storeUserId);
      expect(row).toMatchObject({
        login: "mary.major",
        nicename: "mary-major",
        email: "Mary.Major@Example.com",
        url: "",
        registered: NOW_WORDPRESS,
        activationKey: "",
        status: 0,
        displayName: "Mary Major",
      });
      expect(row.pass).toStartWith("$wp$2y$10$");
      expect(row.pass).toHaveLength(63);
      expect(await verifyPassword(PASSWORD, row.pass)).toBe(true);
      expect(await verifyPassword("wrong", row.pass)).toBe(false);

      const meta = await h.metaOf(user.storeUserId);
      expect(meta.map((m) => [m.key, m.value])).toEqual(
        expectedCustomerMeta(h.prefix, "mary.major", "Mary", "Major", user.uuid),
      );
      const ids = meta.map((m) => m.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    });

    test("makes login and nicename unique with -2, and falls back to the e-mail's local part", async () => {
      const twin = await h.store.register({
        email: "mary.major@another.example",
        password: PASSWORD,
        firstName: "Mary",
        lastName: "Major",
      });
      expect(twin.login).toBe("mary.major-2");
      expect((await onlyUser("mary.major@another.example")).nicename).toBe("mary-major-2");

      const nameless = await h.store.register({
        email: "Richard.Roe+books@example.com",
        password: PASSWORD,
        firstName: "",
        lastName: "",
      });
      expect(nameless).toMatchObject({
        login: "richard.roebooks",
        displayName: "richard.roebooks",
        firstName: "",
      });
      const row = await onlyUser("richard.roe+books@example.com");
      expect(row).toMatchObject({
        login: "richard.roebooks",
        nicename: "richard-roebooks",
        displayName: "richard.roebooks",
      });
      const meta = await h.metaOf(row.id);
      expect(meta.map((m) => [m.key, m.value])).toEqual(
        expectedCustomerMeta(h.prefix, "richard.roebooks", "", "", nameless.uuid),
      );
    });

    test("stores names with &, < and > escaped, and gives them back plain", async () => {
      const user = await h.store.register({
        email: "tom@example.com",
        password: PASSWORD,
        firstName: "Tom & Jerry",
        lastName: "<Cat>",
      });
      expect(user).toMatchObject({
        firstName: "Tom & Jerry",
        lastName: "<Cat>",
        displayName: "Tom & Jerry <Cat>",
      });
      const meta = new Map((await h.metaOf(user.storeUserId)).map((m) => [m.key, m.value]));
      expect(meta.get("first_name")).toBe("Tom &amp; Jerry");
      expect(meta.get("last_name")).toBe("&lt;Cat&gt;");
      const again = await h.store.authenticate("tom@example.com", PASSWORD);
      expect(again).toMatchObject({
        firstName: "Tom & Jerry",
        lastName: "<Cat>",
        displayName: "Tom & Jerry <Cat>",
      });
    });

    test("logs in by e-mail or login, in any case, as the same user", async () => {
      const byEmail = await h.store.authenticate("MARY.MAJOR@example.COM", PASSWORD);
      const byLogin = await h.store.authenticate("Mary.Major", PASSWORD);
      const padded = await h.store.authenticate("  mary.major@example.com ", PASSWORD);
      expect(byEmail).not.toBeNull();
      expect(byEmail).toEqual(byLogin!);
      expect(padded).toEqual(byEmail!);
      expect(byEmail).toMatchObject({ login: "mary.major", storeRoles: ["customer"] });
    });

    test("a wrong password and an unknown user both give null", async () => {
      expect(await h.store.authenticate("mary.major@example.com", `${PASSWORD}x`)).toBeNull();
      expect(await h.store.authenticate("mary.major@example.com", "")).toBeNull();
      expect(await h.store.authenticate("nobody@example.com", PASSWORD)).toBeNull();
      expect(await h.store.authenticate("", PASSWORD)).toBeNull();
    });

    test("refuses an e-mail that is taken, in any case", async () => {
      const error = await appErrorOf(
        h.store.register({
          email: "MARY.major@EXAMPLE.com",
          password: PASSWORD,
          firstName: "M",
          lastName: "M",
        }),
      );
      expect(error.code).toBe("EMAIL_ALREADY_EXISTS");
      expect(await h.usersWithEmail("mary.major@example.com")).toHaveLength(1);
    });

    test("two concurrent registrations of one e-mail make one account and one EMAIL_ALREADY_EXISTS", async () => {
      const attempts = await Promise.allSettled([
        h.store.register({
          email: "race@example.com",
          password: PASSWORD,
          firstName: "Race",
          lastName: "One",
        }),
        h.store.register({
          email: "RACE@example.com",
          password: PASSWORD,
          firstName: "Race",
          lastName: "Two",
        }),
      ]);
      const created = attempts.filter((a) => a.status === "fulfilled");
      const refused = attempts.filter((a) => a.status === "rejected");
      expect(created).toHaveLength(1);
      expect(refused).toHaveLength(1);
      const reason = (refused[0] as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(AppError);
      expect((reason as AppError).code).toBe("EMAIL_ALREADY_EXISTS");
      const rows = await h.usersWithEmail("race@example.com");
      expect(rows).toHaveLength(1);
      const uuidRows = (await h.metaOf(rows[0]!.id)).filter((m) => m.key === UUID_KEY);
      expect(uuidRows).toHaveLength(1);
    });

    test("concurrent registrations of e-mails with one local part get distinct logins and nicenames", async () => {
      // Ten at once: enough for the checks to overlap on any store that does not serialise them.
      const emails = Array.from({ length: 10 }, (_, i) => `${i % 2 ? "John" : "john"}@${i}.example`);
      const users = await Promise.all(
        emails.map((email) => h.store.register({ email, password: PASSWORD, firstName: "", lastName: "" })),
      );
      const rows = await Promise.all(emails.map(onlyUser));
      const logins = rows.map((row) => row.login.toLowerCase());
      const nicenames = rows.map((row) => row.nicename.toLowerCase());
      expect(new Set(logins).size).toBe(emails.length);
      expect(new Set(nicenames).size).toBe(emails.length);
      expect(logins.toSorted()).toEqual(
        ["john", ...Array.from({ length: 9 }, (_, i) => `john-${i + 2}`)].toSorted(),
      );
      expect(users.map((user) => user.login.toLowerCase()).toSorted()).toEqual(logins.toSorted());
    });

    test("finds a user by uuid, and store_user_link holds the mapping", async () => {
      const user = (await h.store.authenticate("mary.major", PASSWORD))!;
      expect(await h.store.findByUuid(user.uuid)).toEqual(user);
      expect(await linksOf(h.serviceDb, user.uuid)).toEqual([
        { uuid: user.uuid, storeUserId: user.storeUserId },
      ]);
      expect(await h.store.findByUuid(crypto.randomUUID())).toBeNull();
    });

    test("findUser: by e-mail or login without a password, any case; null for nobody", async () => {
      const user = (await h.store.authenticate("mary.major", PASSWORD))!;
      expect(await h.store.findUser("MARY.MAJOR@example.com")).toEqual(user);
      expect(await h.store.findUser(" Mary.Major ")).toEqual(user);
      expect(await h.store.findUser("nobody@example.com")).toBeNull();
      expect(await h.store.findUser("nobody")).toBeNull();
    });

    test("passwordStamp: steady while the hash is, different once it changes, never the hash", async () => {
      const user = await h.store.register({
        email: "stamp@example.com",
        password: PASSWORD,
        firstName: "",
        lastName: "",
      });
      const hash = (await onlyUser("stamp@example.com")).pass;
      expect(user.passwordStamp).not.toContain(hash);
      expect((await h.store.findByUuid(user.uuid))!.passwordStamp).toBe(user.passwordStamp);
      await h.setPasswordHash(user.storeUserId, `${hash.slice(0, -1)}x`);
      expect((await h.store.findByUuid(user.uuid))!.passwordStamp).not.toBe(user.passwordStamp);
    });

    test("checks every WordPress password vector through authenticate", async () => {
      const user = await h.store.register({
        email: "vectors@example.com",
        password: PASSWORD,
        firstName: "",
        lastName: "",
      });
      const outcomes: Array<[string, boolean]> = [];
      for (const vector of vectors) {
        await h.setPasswordHash(user.storeUserId, vector.hash);
        const result = await h.store.authenticate("vectors@example.com", vector.password);
        outcomes.push([vector.id, result !== null]);
        if (result) expect(result.storeUserId).toBe(user.storeUserId);
      }
      expect(outcomes).toEqual(vectors.map((vector) => [vector.id, vector.expected]));
      expect(vectors.length).toBeGreaterThanOrEqual(30);
    });

    test("ping() answers", async () => {
      await h.store.ping();
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The embedded store, over the service's own test database.

function storedRegistered(value: Date): string {
  return value.toISOString().slice(0, 19).replace("T", " ");
}

describeStoreContract("embedded", async (clock) => {
  const database = await createTestDatabase();
  const db = database.handle.db;
  const { storeUser, storeUsermeta } = db.tables;
  return {
    store: new EmbeddedStore(db, clock, PASSWORD_HASH_COST),
    serviceDb: db,
    prefix: "wp_",
    async usersWithEmail(email) {
      const rows = await db.orm
        .select()
        .from(storeUser)
        .where(eq(sql`lower(${storeUser.userEmail})`, email.toLowerCase()));
      return rows.map((row) => ({
        id: String(row.id),
        login: row.userLogin,
        pass: row.userPass,
        nicename: row.userNicename,
        email: row.userEmail,
        url: row.userUrl,
        registered: storedRegistered(row.userRegistered),
        activationKey: row.userActivationKey,
        status: row.userStatus,
        displayName: row.displayName,
      }));
    },
    async metaOf(userId) {
      const rows = await db.orm
        .select()
        .from(storeUsermeta)
        .where(eq(storeUsermeta.userId, Number(userId)))
        .orderBy(asc(storeUsermeta.umetaId));
      return rows.map((row) => ({ id: row.umetaId, key: row.metaKey, value: row.metaValue }));
    },
    async setPasswordHash(userId, hash) {
      await queuedWrite(db, (tx) =>
        tx.orm
          .update(storeUser)
          .set({ userPass: hash })
          .where(eq(storeUser.id, Number(userId))),
      );
    },
    async close() {
      await database.drop();
    },
  };
});

// ---------------------------------------------------------------------------------------------
// The WordPress store, over a fresh MySQL/MariaDB database loaded with the real WordPress schema.

interface WordPressHarness extends StoreHarness {
  wp: WordPressDatabase;
  database: TestDatabase;
}

async function makeWordPressHarness(
  serverUrl: string,
  clock: Clock,
  prefix = "wp_",
): Promise<WordPressHarness> {
  const wp = await createWordPressDatabase(serverUrl);
  if (prefix !== "wp_") {
    await wp.admin.query(`CREATE TABLE \`${prefix}users\` LIKE wp_users`);
    await wp.admin.query(`CREATE TABLE \`${prefix}usermeta\` LIKE wp_usermeta`);
  }
  const database = await createTestDatabase();
  const store = new WordPressStore({
    url: wp.url,
    tablePrefix: prefix,
    uuidMetaKey: UUID_KEY,
    db: database.handle.db,
    clock,
    passwordHashCost: PASSWORD_HASH_COST,
  });
  return {
    wp,
    database,
    store,
    serviceDb: database.handle.db,
    prefix,
    async usersWithEmail(email) {
      const [rows] = await wp.admin.execute<RowDataPacket[]>(
        `SELECT CAST(ID AS CHAR) AS id, user_login, user_pass, user_nicename, user_email, user_url,
           DATE_FORMAT(user_registered, '%Y-%m-%d %H:%i:%s') AS registered, user_activation_key, user_status,
           display_name
         FROM \`${prefix}users\` WHERE user_email = ? ORDER BY ID`,
        [email],
      );
      return rows.map((row) => ({
        id: String(row.id),
        login: row.user_login,
        pass: row.user_pass,
        nicename: row.user_nicename,
        email: row.user_email,
        url: row.user_url,
        registered: row.registered,
        activationKey: row.user_activation_key,
        status: Number(row.user_status),
        displayName: row.display_name,
      }));
    },
    async metaOf(userId) {
      const [rows] = await wp.admin.execute<RowDataPacket[]>(
        `SELECT umeta_id, meta_key, meta_value FROM \`${prefix}usermeta\` WHERE user_id = ? ORDER BY umeta_id`,
        [userId],
      );
      return rows.map((row) => ({ id: Number(row.umeta_id), key: row.meta_key, value: row.meta_value }));
    },
    async setPasswordHash(userId, hash) {
      await wp.admin.execute(`UPDATE \`${prefix}users\` SET user_pass = ? WHERE ID = ?`, [hash, userId]);
    },
    async close() {
      await store.close();
      await database.drop();
      await wp.drop();
    },
  };
}

// The three users of schema.sql and the passwords its comments document.
const fixtureUsers = [
  {
    id: "1",
    login: "admin",
    email: "admin@example.com",
    password: "correct horse battery staple",
    role: "administrator",
  },
  {
    id: "2",
    login: "manager",
    email: "manager@example.com",
    password: "Pässwörd-日本語-🔐",
    role: "shop_manager",
  },
  { id: "3", login: "jane.doe", email: "jane.doe@example.com", password: 'it\'s "quoted"', role: "customer" },
] as const;

function flipCase(text: string): string {
  return [...text].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c.toLowerCase())).join("");
}

if (storeServerUrl) {
  const serverUrl = storeServerUrl;
  describeStoreContract("wordpress", (clock) => makeWordPressHarness(serverUrl, clock));

  describe("WordPress store: the fixture shop", () => {
    const clock = fixedClock(NOW);
    let h: WordPressHarness;

    beforeAll(async () => {
      h = await makeWordPressHarness(serverUrl, clock);
    });
    afterAll(async () => {
      await h?.close();
    });

    const uuidRowsOf = async (userId: string) => (await h.metaOf(userId)).filter((m) => m.key === UUID_KEY);

    test.each(fixtureUsers)(
      "$login logs in by login and by e-mail, in any case, as $role",
      async (fixture) => {
        const names = [fixture.login, fixture.email, fixture.login.toUpperCase(), flipCase(fixture.email)];
        const users: StoreUser[] = [];
        for (const name of names) {
          const user = await h.store.authenticate(name, fixture.password);
          expect(user).not.toBeNull();
          users.push(user!);
        }
        for (const user of users) expect(user).toEqual(users[0]!);
        expect(users[0]).toMatchObject({
          storeUserId: fixture.id,
          login: fixture.login,
          email: fixture.email,
          storeRoles: [fixture.role],
        });
        expect(await h.store.authenticate(fixture.login, `${fixture.password}!`)).toBeNull();
      },
    );

    test("the fixture's names come back as WordPress stored them", async () => {
      const manager = await h.store.authenticate("manager", "Pässwörd-日本語-🔐");
      expect(manager).toMatchObject({ displayName: "Sam Manager", firstName: "Sam", lastName: "Manager" });
      const jane = await h.store.authenticate("jane.doe", 'it\'s "quoted"');
      expect(jane).toMatchObject({ displayName: "Jane Doe", firstName: "Jane", lastName: "Doe" });
    });

    test("an existing customer gets a uuid at the first login and keeps it", async () => {
      await h.wp.admin.execute("DELETE FROM wp_usermeta WHERE meta_key = ? AND user_id = 3", [UUID_KEY]);
      await queuedWrite(h.database.handle.db, (tx) => tx.orm.delete(h.serviceDb.tables.storeUserLink));
      expect(await uuidRowsOf("3")).toHaveLength(0);

      const first = (await h.store.authenticate("jane.doe@example.com", 'it\'s "quoted"'))!;
      const second = (await h.store.authenticate("jane.doe", 'it\'s "quoted"'))!;
      expect(second.uuid).toBe(first.uuid);
      expect((await uuidRowsOf("3")).map((m) => m.value)).toEqual([first.uuid]);
      expect(await h.store.findByUuid(first.uuid)).toEqual(first);
      expect(await linksOf(h.serviceDb, first.uuid)).toEqual([{ uuid: first.uuid, storeUserId: "3" }]);
      // The uuid row is appended after the rows WordPress wrote.
      const meta = await h.metaOf("3");
      expect(meta.at(-1)).toMatchObject({ key: UUID_KEY, value: first.uuid });
    });

    test("concurrent first logins give one uuid", async () => {
      await h.wp.admin.execute("DELETE FROM wp_usermeta WHERE meta_key = ? AND user_id = 2", [UUID_KEY]);
      const users = await Promise.all(
        Array.from({ length: 5 }, () => h.store.authenticate("manager@example.com", "Pässwörd-日本語-🔐")),
      );
      const uuids = new Set(users.map((user) => user?.uuid));
      expect(uuids.size).toBe(1);
      expect(await uuidRowsOf("2")).toHaveLength(1);
    });

    test("findByUuid falls back to usermeta without a link row, and repairs a stale one", async () => {
      const jane = (await h.store.authenticate("jane.doe", 'it\'s "quoted"'))!;
      const { storeUserLink } = h.serviceDb.tables;
      await queuedWrite(h.serviceDb, (tx) =>
        tx.orm.delete(storeUserLink).where(eq(storeUserLink.uuid, jane.uuid)),
      );
      expect(await h.store.findByUuid(jane.uuid)).toEqual(jane);
      expect(await linksOf(h.serviceDb, jane.uuid)).toEqual([{ uuid: jane.uuid, storeUserId: "3" }]);

      await queuedWrite(h.serviceDb, (tx) =>
        tx.orm.update(storeUserLink).set({ storeUserId: "1" }).where(eq(storeUserLink.uuid, jane.uuid)),
      );
      expect(await h.store.findByUuid(jane.uuid)).toEqual(jane);
      expect(await linksOf(h.serviceDb, jane.uuid)).toEqual([{ uuid: jane.uuid, storeUserId: "3" }]);
    });

    test("an e-mail that is some user's login is taken", async () => {
      await h.wp.admin.execute(
        `INSERT INTO wp_users (user_login, user_pass, user_nicename, user_email, user_registered, display_name)
         VALUES ('login.is@an-email.example', '', 'login-isan-email-example', 'other@example.com', '2025-01-01 00:00:00', 'x')`,
      );
      const error = await appErrorOf(
        h.store.register({
          email: "Login.Is@An-Email.example",
          password: PASSWORD,
          firstName: "",
          lastName: "",
        }),
      );
      expect(error.code).toBe("EMAIL_ALREADY_EXISTS");
      const fixtureEmail = await appErrorOf(
        h.store.register({ email: "JANE.DOE@example.com", password: PASSWORD, firstName: "", lastName: "" }),
      );
      expect(fixtureEmail.code).toBe("EMAIL_ALREADY_EXISTS");
    });

    test("a new customer does not take the fixture's login or nicename", async () => {
      const user = await h.store.register({
        email: "jane.doe@elsewhere.example",
        password: PASSWORD,
        firstName: "",
        lastName: "",
      });
      expect(user.login).toBe("jane.doe-2");
      const [row] = await h.usersWithEmail("jane.doe@elsewhere.example");
      expect(row?.nicename).toBe("jane-doe-2");
    });

    test("display_name is stored HTML-escaped, as WordPress stores it", async () => {
      await h.store.register({
        email: "amp@example.com",
        password: PASSWORD,
        firstName: "A&B",
        lastName: "<C>",
      });
      const [row] = await h.usersWithEmail("amp@example.com");
      expect(row?.displayName).toBe("A&amp;B &lt;C&gt;");
    });

    test("a display_name that would not fit its 250 characters once escaped falls back to the login", async () => {
      const user = await h.store.register({
        email: "long.names@example.com",
        password: PASSWORD,
        firstName: "A&".repeat(50),
        lastName: "B",
      });
      const [row] = await h.usersWithEmail("long.names@example.com");
      expect(row?.displayName).toBe(user.login);
      expect(user.displayName).toBe(user.login);
      expect(user.firstName).toBe("A&".repeat(50));
    });

    test("a blank uuid row is not taken for a uuid, and logins do not pile up rows", async () => {
      await h.wp.admin.execute("DELETE FROM wp_usermeta WHERE meta_key = ? AND user_id = 3", [UUID_KEY]);
      await h.wp.admin.execute("INSERT INTO wp_usermeta (user_id, meta_key, meta_value) VALUES (3, ?, '')", [
        UUID_KEY,
      ]);
      const first = (await h.store.authenticate("jane.doe", 'it\'s "quoted"'))!;
      const second = (await h.store.authenticate("jane.doe", 'it\'s "quoted"'))!;
      expect(first.uuid).toMatch(/^[0-9a-f-]{36}$/);
      expect(second.uuid).toBe(first.uuid);
      expect((await uuidRowsOf("3")).map((m) => m.value)).toEqual(["", first.uuid]);
    });

    test("a held uuid lock gives SERVICE_UNAVAILABLE, not a hang", async () => {
      await h.wp.admin.execute("DELETE FROM wp_usermeta WHERE meta_key = ? AND user_id = 1", [UUID_KEY]);
      const lockName = `bookdist-uuid-${new Bun.CryptoHasher("sha1")
        .update(`${new URL(h.wp.url).pathname.slice(1)}\0wp_\x001`)
        .digest("hex")}`;
      const holder = await mysql.createConnection({ uri: h.wp.url });
      try {
        const [rows] = await holder.query<RowDataPacket[]>("SELECT GET_LOCK(?, 1) AS got", [lockName]);
        expect(rows[0]?.got).toBe(1);
        const started = Date.now();
        const error = await appErrorOf(h.store.authenticate("admin", "correct horse battery staple"));
        expect(error.code).toBe("SERVICE_UNAVAILABLE");
        expect(Date.now() - started).toBeLessThan(9000);
      } finally {
        await holder.end();
      }
      expect(await uuidRowsOf("1")).toHaveLength(0);
      expect(await h.store.authenticate("admin", "correct horse battery staple")).not.toBeNull();
    }, 20000);

    test("wrong database credentials give SERVICE_UNAVAILABLE", async () => {
      const url = new URL(h.wp.url);
      url.username = "bookdist_no_such_user";
      url.password = "wrong";
      const store = new WordPressStore({
        url: url.toString(),
        tablePrefix: "wp_",
        uuidMetaKey: UUID_KEY,
        db: h.serviceDb,
        clock,
        passwordHashCost: PASSWORD_HASH_COST,
      });
      try {
        const error = await appErrorOf(store.authenticate("jane.doe", 'it\'s "quoted"'));
        expect(error.code).toBe("SERVICE_UNAVAILABLE");
        await expect(store.ping()).rejects.toBeInstanceOf(AppError);
      } finally {
        await store.close();
      }
    });

    test("pooled connections the server killed are replaced", async () => {
      expect(await h.store.authenticate("manager", "Pässwörd-日本語-🔐")).not.toBeNull();
      const [rows] = await h.wp.admin.query<RowDataPacket[]>(
        "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> CONNECTION_ID()",
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) await h.wp.admin.query(`KILL ${Number(row.ID)}`);
      await Bun.sleep(100);
      expect(await h.store.authenticate("manager", "Pässwörd-日本語-🔐")).not.toBeNull();
    });

    test("the table prefix is checked before it reaches SQL", () => {
      for (const tablePrefix of ["wp_; DROP TABLE wp_users; --", "wp-", "`wp`", ""]) {
        expect(
          () =>
            new WordPressStore({
              url: h.wp.url,
              tablePrefix,
              uuidMetaKey: UUID_KEY,
              db: h.serviceDb,
              clock,
              passwordHashCost: PASSWORD_HASH_COST,
            }),
        ).toThrow("letters, digits and underscores");
      }
    });
  });

  describe("WordPress store: another table prefix", () => {
    const clock = fixedClock(NOW);
    let h: WordPressHarness;

    beforeAll(async () => {
      h = await makeWordPressHarness(serverUrl, clock, "shop7_");
    });
    afterAll(async () => {
      await h?.close();
    });

    test("reads and writes <prefix>users, <prefix>usermeta and <prefix>capabilities", async () => {
      const user = await h.store.register({
        email: "p@example.com",
        password: PASSWORD,
        firstName: "P",
        lastName: "Q",
      });
      const meta = await h.metaOf(user.storeUserId);
      expect(meta.map((m) => [m.key, m.value])).toEqual(
        expectedCustomerMeta("shop7_", "p.q", "P", "Q", user.uuid),
      );
      expect(await h.store.authenticate("p.q", PASSWORD)).toMatchObject({ storeRoles: ["customer"] });
      // The wp_ tables of the same database stay untouched.
      const [rows] = await h.wp.admin.query<RowDataPacket[]>("SELECT COUNT(*) AS n FROM wp_users");
      expect(Number(rows[0]?.n)).toBe(3);
    });
  });
} else {
  requireStoreServer();
}

// ---------------------------------------------------------------------------------------------
// A store that is down: no server needed.

describe("WordPress store that cannot be reached", () => {
  const clock = fixedClock(NOW);
  let database: TestDatabase;
  let silent: ReturnType<typeof createServer>;
  let silentPort = 0;
  const opened: WordPressStore[] = [];

  const storeAt = (url: string) => {
    const store = new WordPressStore({
      url,
      tablePrefix: "wp_",
      uuidMetaKey: UUID_KEY,
      db: database.handle.db,
      clock,
      passwordHashCost: PASSWORD_HASH_COST,
    });
    opened.push(store);
    return store;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    // Accepts connections and never says a word: the MySQL handshake never starts.
    silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    silentPort = (silent.address() as AddressInfo).port;
  });
  afterAll(async () => {
    try {
      await Promise.all(opened.map((store) => store.close()));
      silent?.close();
    } finally {
      await database?.drop();
    }
  });

  async function expectUnavailable(pending: Promise<unknown>, withinMs: number): Promise<void> {
    const started = Date.now();
    const error = await appErrorOf(pending);
    expect(Date.now() - started).toBeLessThan(withinMs);
    expect(error.code).toBe("SERVICE_UNAVAILABLE");
    expect(error.status).toBe(503);
    expect(error.headers["Retry-After"]).toBe("5");
    expect(error.message).toBe("The user store is not reachable right now; try again shortly.");
  }

  test("a closed port: every call gives SERVICE_UNAVAILABLE at once, ping() rejects", async () => {
    const store = storeAt("mysql://root@127.0.0.1:1/wordpress");
    await expectUnavailable(store.authenticate("jane.doe", "whatever"), 3000);
    await expectUnavailable(
      store.register({ email: "new@example.com", password: PASSWORD, firstName: "", lastName: "" }),
      3000,
    );
    await expectUnavailable(store.findByUuid(crypto.randomUUID()), 3000);
    await expect(store.ping()).rejects.toBeInstanceOf(AppError);
    // More calls than the pool has connections must not queue up behind dead ones.
    const many = await Promise.allSettled(Array.from({ length: 25 }, () => store.authenticate("x", "y")));
    expect(
      many.every((r) => r.status === "rejected" && (r.reason as AppError).code === "SERVICE_UNAVAILABLE"),
    ).toBe(true);
  });

  test("a server that never answers: SERVICE_UNAVAILABLE after the connect timeout", async () => {
    const store = storeAt(`mysql://root@127.0.0.1:${silentPort}/wordpress`);
    await expectUnavailable(store.authenticate("jane.doe", "whatever"), 8000);
    await expect(store.ping()).rejects.toBeInstanceOf(AppError);
  }, 20000);
});
