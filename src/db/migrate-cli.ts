// `bun run db:migrate`: applies migrations to the configured DATABASE_URL without starting the server.
import { loadConfigOrExit } from "../config";
import { migrateDatabase } from "./migrate";

const config = loadConfigOrExit();
await migrateDatabase(config.databaseUrl);
console.log(
  JSON.stringify({ level: "info", msg: "migrations applied", dialect: config.databaseUrl.split(":")[0] }),
);
