import { eq, inArray, type SQL } from "drizzle-orm";
import type { Database } from "#db";
import { countRows, deleteById, findById, insertRow, listRows } from "../db/rows";
import type { ListWindow } from "../lib/list-window";

export type ShopProductRow = Database["tables"]["shopProduct"]["$inferSelect"];

/** variationId 0: any variation of the product (schema: NULLs would not collide in the unique index). */
export interface ShopProductFields {
  bookId: number;
  productId: number;
  variationId: number;
}

export interface ShopProductFilter {
  bookId?: number;
}

export const shopProductSortFields = ["id", "bookId", "productId"] as const;
export type ShopProductSortField = (typeof shopProductSortFields)[number];

function whereOf(db: Database, filter: ShopProductFilter): SQL | undefined {
  return filter.bookId === undefined ? undefined : eq(db.tables.shopProduct.bookId, filter.bookId);
}

export function listShopProducts(
  db: Database,
  window: ListWindow<ShopProductSortField>,
  filter: ShopProductFilter = {},
  after?: ShopProductRow,
): Promise<ShopProductRow[]> {
  return listRows(db, db.tables.shopProduct, window, whereOf(db, filter), after);
}

export function countShopProducts(db: Database, filter: ShopProductFilter = {}): Promise<number> {
  return countRows(db, db.tables.shopProduct, whereOf(db, filter));
}

export function findShopProduct(db: Database, id: number): Promise<ShopProductRow | undefined> {
  return findById(db, db.tables.shopProduct, id);
}

export function insertShopProduct(
  db: Database,
  fields: ShopProductFields,
  now: Date,
): Promise<ShopProductRow> {
  return insertRow(db, db.tables.shopProduct, { ...fields, createdAt: now });
}

export function deleteShopProduct(db: Database, id: number): Promise<ShopProductRow | undefined> {
  return deleteById(db, db.tables.shopProduct, id);
}

/** The mappings of these products: what an order's lines may grant (a few rows per order). */
export async function mappingsOfProducts(db: Database, productIds: number[]): Promise<ShopProductRow[]> {
  if (productIds.length === 0) return [];
  const { shopProduct } = db.tables;
  return db.orm.select().from(shopProduct).where(inArray(shopProduct.productId, productIds));
}
