import { z } from "@hono/zod-openapi";
import { halList, halResource } from "../../http/hal";
import { Id, orNull, Timestamp } from "../../http/openapi";
import type { ShopProductRow } from "../../repositories/shop-products";

export const ShopProduct = z
  .object({
    id: z.number().int().openapi({ example: 3 }),
    bookId: z.number().int().openapi({ example: 7 }),
    productId: z.number().int().openapi({ example: 1520, description: "The WooCommerce product" }),
    variationId: z
      .number()
      .int()
      .nullable()
      .openapi({ example: null, description: "One variation of the product; null: any variation" }),
    createdAt: Timestamp,
  })
  .openapi("ShopProduct", {
    description: "A WooCommerce product (or one variation of it) whose paid orders grant the book.",
  });

export const ShopProductInput = z
  .object({
    bookId: Id.openapi({ description: "The book; must exist" }),
    productId: Id.openapi({ description: "The WooCommerce product id (wp_posts.ID)", example: 1520 }),
    variationId: orNull(Id, "One variation of the product; null or absent: any variation").optional(),
  })
  .openapi("ShopProductInput", { description: "(bookId, productId, variationId) is unique." });

export function toShopProduct(row: ShopProductRow): z.infer<typeof ShopProduct> {
  return {
    id: row.id,
    bookId: row.bookId,
    productId: row.productId,
    variationId: row.variationId === 0 ? null : row.variationId,
    createdAt: row.createdAt.toISOString(),
  };
}

export const ShopProductResource = halResource("ShopProduct", ShopProduct, {
  self: (product) => `/shop-product/${product.id}`,
  book: (product) => `/book/${product.bookId}`,
});

export const ShopProductList = halList("shopProducts", ShopProductResource);
