import type { Database } from "#db";
import type { Config } from "./config";
import type { Clock } from "./lib/clock";
import type { Logger } from "./lib/logger";
import type { ShopSync } from "./services/shop-sync";
import type { BlobStorage } from "./storage/blob-store";
import type { StoreDirectory } from "./store/directory";

/** Everything the app needs from outside, passed explicitly so tests build it in-process. */
export interface Deps {
  config: Config;
  db: Database;
  /** Round trip to the database for /health. */
  pingDatabase(): Promise<void>;
  store: StoreDirectory;
  /** Uploaded files, content-addressed: DATA_DIR/blobs or an S3 bucket (STORAGE). */
  blobs: BlobStorage;
  clock: Clock;
  logger: Logger;
  /** SHOP_ORDERS=on: WooCommerce orders grant books (README, Shop orders); undefined when off. */
  shop?: ShopSync;
  /** The resolved HS256 secret (config.jwtSecret or the one generated into DATA_DIR). */
  jwtSecret: string;
}
