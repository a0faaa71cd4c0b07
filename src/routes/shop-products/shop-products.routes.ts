import { defineRoute } from "../../http/define-route";
import { IdParam, jsonBody } from "../../http/openapi";
import { locationHeader, resourceContent } from "../../http/respond";
import { countRoute, listRoute } from "../../http/route-shapes";
import { shopProductSortFields } from "../../repositories/shop-products";
import * as schemas from "./shop-products.schemas";

const tags = ["Shop"];

export const listShopProducts = listRoute("admin", {
  path: "/shop-product",
  operationId: "listShopProducts",
  summary: "List the products that grant books",
  tags,
  list: schemas.ShopProductList,
  sortFields: shopProductSortFields,
  returns: "The product mappings",
});

export const countShopProducts = countRoute("admin", {
  path: "/shop-product/count",
  operationId: "countShopProducts",
  summary: "Count the products that grant books",
  tags,
});

export const getShopProduct = defineRoute("admin", {
  method: "get",
  path: "/shop-product/{id}",
  operationId: "getShopProduct",
  summary: "Get a product mapping",
  tags,
  request: { params: IdParam },
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(schemas.ShopProductResource, "The product mapping") },
});

export const createShopProduct = defineRoute("admin", {
  method: "post",
  path: "/shop-product",
  operationId: "createShopProduct",
  summary: "Map a product (or one variation) to a book",
  description: "Paid orders of the product grant the book from now on (API.md §7). A duplicate → 409.",
  tags,
  request: { body: jsonBody(schemas.ShopProductInput) },
  errors: ["CONFLICT"],
  responses: {
    201: {
      ...resourceContent(schemas.ShopProductResource, "The new product mapping"),
      headers: locationHeader("URL of the product mapping"),
    },
  },
});

export const deleteShopProduct = defineRoute("admin", {
  method: "delete",
  path: "/shop-product/{id}",
  operationId: "deleteShopProduct",
  summary: "Delete a product mapping",
  description: "Grants already made stay.",
  tags,
  request: { params: IdParam },
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(schemas.ShopProductResource, "The deleted product mapping") },
});

export const listShopProductsOfBook = listRoute("admin", {
  path: "/book/{id}/shop-products",
  operationId: "listShopProductsOfBook",
  summary: "List the products that grant a book",
  tags,
  params: IdParam,
  errors: ["NOT_FOUND"],
  list: schemas.ShopProductList,
  sortFields: shopProductSortFields,
  returns: "The book's product mappings",
});
