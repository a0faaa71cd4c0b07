// A fresh MySQL/MariaDB database per test file, loaded with the real WordPress tables and the
// three fixture users of test/fixtures/wordpress/schema.sql, dropped afterwards.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import mysql, { type Connection } from "mysql2/promise";
import { onlyIn } from "./requires";

/** The WordPress schema, three-user fixture and password vectors (test/fixtures/wordpress). */
export const wordpressFixtures = join(import.meta.dir, "..", "fixtures", "wordpress");

/** Set to run the WordPress store suites, e.g. mysql://root@127.0.0.1:3306 */
export const storeServerUrl = process.env.TEST_STORE_DATABASE_URL;

/** Whether the WordPress store tests run: with TEST_STORE_DATABASE_URL; else one line says so. */
export function requireStoreServer(): boolean {
  return onlyIn(
    storeServerUrl !== undefined,
    "WordPress store tests need MySQL/MariaDB: set TEST_STORE_DATABASE_URL (e.g. mysql://root@127.0.0.1:3306)",
  );
}

/** schema.sql's three fixture users, each with the password its comment gives and its roles here. */
export const fixtureLogins = [
  { name: "admin", password: "correct horse battery staple", roles: ["user", "admin"] },
  { name: "manager@example.com", password: "Pässwörd-日本語-🔐", roles: ["user", "admin"] },
  { name: "Jane.Doe@Example.com", password: 'it\'s "quoted"', roles: ["user"] },
] as const;

export interface WordPressDatabase {
  url: string;
  /** A connection of its own for setting up and inspecting rows behind the store's back. */
  admin: Connection;
  drop(): Promise<void>;
}

export async function createWordPressDatabase(serverUrl: string): Promise<WordPressDatabase> {
  const name = `bookdist_store_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = await mysql.createConnection({
    uri: serverUrl,
    multipleStatements: true,
    charset: "utf8mb4_unicode_ci",
  });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci`);
  await admin.query(`USE \`${name}\``);
  // schema.sql: the zero-date default needs a sql_mode without NO_ZERO_DATE/STRICT, as WordPress sets.
  await admin.query("SET SESSION sql_mode = ''");
  await admin.query(readFileSync(join(wordpressFixtures, "schema.sql"), "utf8"));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    admin,
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.end();
    },
  };
}
