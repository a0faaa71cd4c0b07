import type { Database } from "#db";
import type { Config } from "../config";
import type { Clock } from "../lib/clock";
import type { StoreDirectory } from "./directory";
import { EmbeddedStore } from "./embedded";

/** The StoreDirectory that STORE_DRIVER names. */
export async function openStore(config: Config, db: Database, clock: Clock): Promise<StoreDirectory> {
  switch (config.storeDriver) {
    case "embedded":
      return new EmbeddedStore(db, clock, config.passwordHashCost);
    case "wordpress": {
      if (!config.storeDatabaseUrl)
        throw new Error("STORE_DATABASE_URL is required when STORE_DRIVER=wordpress");
      // Loaded only for this driver: mysql2 adds ~20 MiB to a server on the embedded store.
      const { WordPressStore } = await import("./wordpress");
      return new WordPressStore({
        url: config.storeDatabaseUrl,
        tablePrefix: config.storeTablePrefix,
        uuidMetaKey: config.storeUuidMetaKey,
        db,
        clock,
        passwordHashCost: config.passwordHashCost,
      });
    }
  }
}
