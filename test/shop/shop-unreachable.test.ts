// A shop whose database cannot be reached: a sync (the job, POST /shop/sync, a webhook's order)
// fails as 503 SERVICE_UNAVAILABLE with Retry-After, never a 500, and GET /shop/status still
// answers, with no storage. No MariaDB needed: nothing listens on the port.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AppError } from "../../src/lib/problems";
import { openShop } from "../../src/services/open-shop";
import { shopStatus } from "../../src/services/shop-status";
import { openStore } from "../../src/store/open-store";
import { freePort } from "../helpers/spawn-server";
import { createTestApp, type TestApp } from "../helpers/test-app";

describe("shop orders with the shop's database down", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: {
        STORE_DRIVER: "wordpress",
        STORE_DATABASE_URL: `mysql://bookdist@127.0.0.1:${freePort()}/wordpress`,
        SHOP_ORDERS: "on",
        SHOP_WEBHOOK_SECRET: "a webhook secret, twenty+",
      },
      store: (deps) => openStore(deps.config, deps.db, deps.clock),
      shop: (deps) => openShop(deps.config, deps),
    });
  });
  afterAll(() => t.close());

  test("a sync and an order's reconciliation are 503 with Retry-After; the status says no storage", async () => {
    const shop = t.deps.shop!;
    for (const attempt of [() => shop.sync(), () => shop.reconcileNow(727)]) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("SERVICE_UNAVAILABLE");
      expect((error as AppError).headers?.["Retry-After"]).toBe("5");
    }
    expect(await shopStatus(t.deps)).toMatchObject({ enabled: true, orderStorage: null, lastSyncAt: null });
  });
});
