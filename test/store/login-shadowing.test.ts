// Finding 3 (login shadowing): a login derived from names like "victim@example" + "com" must not
// read as someone's e-mail, and a name that looks like an e-mail resolves by e-mail first — on
// the embedded store (SQLite/Postgres) and on the WordPress store (MariaDB), through the app.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { queuedWrite } from "../../src/db/transaction";
import { Session } from "../../src/routes/authentication/authentication.schemas";
import { openStore } from "../../src/store/open-store";
import { testDialect } from "../helpers/databases";
import { bodyAs } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";
import {
  createWordPressDatabase,
  requireStoreServer,
  storeServerUrl,
  type WordPressDatabase,
} from "../helpers/wordpress";

const VICTIM_PASSWORD = "victim's own passphrase";
const ATTACKER_PASSWORD = "attacker passphrase 1";

function shadowingCases(name: string, appOf: () => TestApp) {
  describe(name, () => {
    const register = (json: Record<string, string>) =>
      appOf().call("POST", "/authentication/register", { json });
    const login = (email: string, password: string) =>
      appOf().call("POST", "/authentication/login", { json: { email, password } });

    test("names that would derive an e-mail-like login give a login without @; the victim registers and logs in", async () => {
      const victimEmail = `victim-${crypto.randomUUID().slice(0, 8)}@example.com`;
      const [local, domain] = victimEmail.split("@") as [string, string];
      const [first, ...rest] = domain.split(".");
      const attacker = await register({
        email: `attacker-${crypto.randomUUID().slice(0, 8)}@evil.test`,
        password: ATTACKER_PASSWORD,
        firstName: `${local}@${first}`,
        lastName: rest.join("."),
      });
      expect(attacker.status).toBe(201);
      const attackerSession = await bodyAs(attacker, Session);
      expect(attackerSession.user.login).not.toContain("@");

      const victim = await register({ email: victimEmail, password: VICTIM_PASSWORD });
      expect(victim.status).toBe(201);
      const victimUuid = (await bodyAs(victim, Session)).user.uuid;

      const asVictim = await login(victimEmail, VICTIM_PASSWORD);
      expect(asVictim.status).toBe(200);
      expect((await bodyAs(asVictim, Session)).user.uuid).toBe(victimUuid);
      expect((await login(victimEmail, ATTACKER_PASSWORD)).status).toBe(401);
    });

    test("a victim registered first keeps logging in after the attacker registers the shadowing names", async () => {
      const victimEmail = `early-${crypto.randomUUID().slice(0, 8)}@example.com`;
      const victim = await register({ email: victimEmail, password: VICTIM_PASSWORD });
      expect(victim.status).toBe(201);
      const victimUuid = (await bodyAs(victim, Session)).user.uuid;
      const [local, domain] = victimEmail.split("@") as [string, string];
      const dot = domain.indexOf(".");
      const attacker = await register({
        email: `attacker-${crypto.randomUUID().slice(0, 8)}@evil.test`,
        password: ATTACKER_PASSWORD,
        firstName: `${local}@${domain.slice(0, dot)}`,
        lastName: domain.slice(dot + 1),
      });
      expect(attacker.status).toBe(201);

      const asVictim = await login(victimEmail, VICTIM_PASSWORD);
      expect(asVictim.status).toBe(200);
      expect((await bodyAs(asVictim, Session)).user.uuid).toBe(victimUuid);
      expect((await login(victimEmail, ATTACKER_PASSWORD)).status).toBe(401);
    });
  });
}

describe(`login shadowing, embedded store (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  shadowingCases("registration", () => t);

  test("an existing login that reads like another user's e-mail does not shadow that user", async () => {
    const victim = await t.user();
    const response = await t.call("POST", "/authentication/register", {
      json: { email: `other-${crypto.randomUUID().slice(0, 8)}@evil.test`, password: "other passphrase 1" },
    });
    const other = await bodyAs(response, Session);
    // Old data (or an operator's edit): the other user's login is the victim's e-mail.
    const { db } = t.deps;
    const { storeUser } = db.tables;
    await queuedWrite(db, (tx) =>
      tx.orm
        .update(storeUser)
        .set({ userLogin: victim.email })
        .where(eq(storeUser.userLogin, other.user.login)),
    );
    const asVictim = await t.call("POST", "/authentication/login", {
      json: { email: victim.email.toUpperCase(), password: "correct horse battery staple" },
    });
    expect(asVictim.status).toBe(200);
    expect((await bodyAs(asVictim, Session)).user.uuid).toBe(victim.uuid);
    const asOther = await t.call("POST", "/authentication/login", {
      json: { email: victim.email, password: "other passphrase 1" },
    });
    expect(asOther.status).toBe(401);
  });
});

describe.if(requireStoreServer())("login shadowing, WordPress store (MariaDB)", () => {
  let wp: WordPressDatabase;
  let t: TestApp;
  beforeAll(async () => {
    wp = await createWordPressDatabase(storeServerUrl!);
    t = await createTestApp({
      store: (deps) =>
        openStore(
          { ...deps.config, storeDriver: "wordpress", storeDatabaseUrl: wp.url, storeTablePrefix: "wp_" },
          deps.db,
          deps.clock,
        ),
    });
  });
  afterAll(async () => {
    await t?.close();
    await wp?.drop();
  });
  shadowingCases("registration", () => t);

  test("a shop login equal to a customer's e-mail does not shadow that customer", async () => {
    // Jane (fixture, jane.doe@example.com) and a shop user whose login is Jane's e-mail.
    await wp.admin.query(
      `INSERT INTO wp_users (user_login, user_pass, user_nicename, user_email, user_registered, display_name)
       VALUES ('jane.doe@example.com', '$P$B3gK8WZ6O2p7fdfUGYdokVr00NY7rq1', 'shadow', 'shadow@evil.test', '2026-01-01 00:00:00', 'shadow')`,
    );
    const asJane = await t.call("POST", "/authentication/login", {
      json: { email: "Jane.Doe@Example.com", password: `it's "quoted"` },
    });
    expect(asJane.status).toBe(200);
    expect((await bodyAs(asJane, Session)).user.email).toBe("jane.doe@example.com");
    const asShadow = await t.call("POST", "/authentication/login", {
      json: { email: "jane.doe@example.com", password: "correct horse battery staple" },
    });
    expect(asShadow.status).toBe(401);
  });
});
