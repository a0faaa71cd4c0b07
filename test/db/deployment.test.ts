// The deployment id (README "Storage"): made by the migration, kept across restarts, and renewed
// for a Postgres copy of the database (here CREATE DATABASE … TEMPLATE, a copy made by the
// cluster itself, as pg_restore into another database would be), which also remembers its
// original so that `bun run storage adopt` can take that one's markers over.
import { afterAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { openDatabase } from "../../src/db/client";
import { openDeployment, readDeployment } from "../../src/repositories/deployment";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";
import { onlyIn } from "../helpers/requires";

const made: TestDatabase[] = [];
afterAll(async () => {
  for (const database of made) await database.drop();
});

test("the migration makes one id; start-ups keep it", async () => {
  const database = await createTestDatabase();
  made.push(database);
  const first = await readDeployment(database.handle.db);
  expect(first.id).toMatch(/^[0-9a-f]{32}$/);
  expect(first.adoptPending).toBe(true);
  const opened = await openDeployment(database.handle.db, new Date());
  expect(opened).toMatchObject({ id: first.id, renewed: false, originalId: null });
  expect((await openDeployment(database.handle.db, new Date())).id).toBe(first.id);
});

describe.if(onlyIn(testDialect === "postgres", "needs TEST_DATABASE_URL: a copy of a Postgres database"))(
  "a copy of the Postgres database",
  () => {
    test("gets an id of its own at its first start, remembers its original's, adopts nothing by itself", async () => {
      const original = await createTestDatabase();
      made.push(original);
      const originalId = (await openDeployment(original.handle.db, new Date())).id;
      await original.handle.close();

      const server = new SQL(process.env.TEST_DATABASE_URL!);
      const name = `${new URL(original.url).pathname.slice(1)}_copy`;
      const url = new URL(original.url);
      url.pathname = `/${name}`;
      try {
        await server.unsafe(`CREATE DATABASE ${name} TEMPLATE ${new URL(original.url).pathname.slice(1)}`);
        const copy = await openDatabase(url.toString(), { migrate: true });
        try {
          expect((await readDeployment(copy.db)).id).toBe(originalId);
          const opened = await openDeployment(copy.db, new Date());
          expect(opened.renewed).toBe(true);
          expect(opened.id).toMatch(/^[0-9a-f]{32}$/);
          expect(opened.id).not.toBe(originalId);
          expect(opened).toMatchObject({ originalId, adoptPending: false });
          // The next start keeps it.
          expect(await openDeployment(copy.db, new Date())).toMatchObject({ id: opened.id, renewed: false });
        } finally {
          await copy.close();
        }
      } finally {
        await server.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await server.close();
      }
    });
  },
);
