import type { Database } from "#db";
import type { Config } from "../config";
import type { Clock } from "../lib/clock";
import type { StoreDirectory } from "./directory";
import { EmbeddedStore } from "./embedded";
import { WordPressStore } from "./wordpress";

/** The StoreDirectory that STORE_DRIVER names. */
export async function openStore(config: Config, db: Database, clock: Clock): Promise<StoreDirectory> {
  switch (config.storeDriver) {
    case "embedded":
      return new EmbeddedStore(db, clock);
    case "wordpress":
      if (!config.storeDatabaseUrl)
        throw new Error("STORE_DATABASE_URL is required when STORE_DRIVER=wordpress");
      return new WordPressStore({
        url: config.storeDatabaseUrl,
        tablePrefix: config.storeTablePrefix,
        uuidMetaKey: config.storeUuidMetaKey,
        db,
        clock,
      });
  }
}
