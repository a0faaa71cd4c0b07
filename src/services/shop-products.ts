// The shop's products (or single variations) that grant books (README, Shop orders).
import type { Database } from "#db";
import { withTransaction } from "../db/transaction";
import type { ListWindow } from "../lib/list-window";
import { validationFailed } from "../lib/problems";
import { findBook } from "../repositories/books";
import * as products from "../repositories/shop-products";
import { type AuditSource, recordChange } from "./audit";
import { ofExistingBook } from "./books";
import { conflictIfDuplicate, found } from "./guards";
import { pagedList } from "./page";

export interface ShopProductInputValue {
  bookId: number;
  productId: number;
  variationId?: number | null | undefined;
}

export const listShopProducts = pagedList(products.listShopProducts, products.countShopProducts);

export function countShopProducts(db: Database): Promise<number> {
  return products.countShopProducts(db);
}

/** A book's mappings; 404 for a book that does not exist, rather than an empty list. */
export const listShopProductsOfBook = ofExistingBook(
  (db, bookId, window: ListWindow<products.ShopProductSortField>) => listShopProducts(db, window, { bookId }),
);

export async function getShopProduct(db: Database, id: number): Promise<products.ShopProductRow> {
  return found(await products.findShopProduct(db, id), `Shop product ${id}`);
}

export async function createShopProduct(
  db: Database,
  by: AuditSource,
  input: ShopProductInputValue,
  now: Date,
): Promise<products.ShopProductRow> {
  return withTransaction(db, async (tx) => {
    if (!(await findBook(tx, input.bookId)))
      throw validationFailed("bookId", `book ${input.bookId} does not exist`);
    const product = await products
      .insertShopProduct(
        tx,
        { bookId: input.bookId, productId: input.productId, variationId: input.variationId ?? 0 },
        now,
      )
      .catch(conflictIfDuplicate("This book is already mapped to that product (and variation)."));
    await recordChange(tx, by, now, "shopproduct", "create", product.id, null, product);
    return product;
  });
}

/** Grants already made stay: they belong to their orders (README, Shop orders). */
export async function removeShopProduct(
  db: Database,
  by: AuditSource,
  id: number,
  now: Date,
): Promise<products.ShopProductRow> {
  return withTransaction(db, async (tx) => {
    const product = found(await products.deleteShopProduct(tx, id), `Shop product ${id}`);
    await recordChange(tx, by, now, "shopproduct", "delete", id, product, null);
    return product;
  });
}
