import { auditSourceOf } from "../../http/audit-source";
import {
  listRequestOf,
  respondCount,
  respondCreated,
  respondList,
  respondResource,
} from "../../http/respond";
import type { AppRouteHandler } from "../../http/types";
import * as service from "../../services/shop-products";
import type * as routes from "./shop-products.routes";
import { ShopProductList, ShopProductResource, toShopProduct } from "./shop-products.schemas";

export const listShopProducts: AppRouteHandler<typeof routes.listShopProducts> = async (c) => {
  const { window, paging } = listRequestOf(c.req.valid("query"));
  const list = await service.listShopProducts(c.get("deps").db, window);
  return respondList(c, ShopProductList, list, toShopProduct, paging, 200);
};

export const countShopProducts: AppRouteHandler<typeof routes.countShopProducts> = async (c) => {
  return respondCount(c, await service.countShopProducts(c.get("deps").db));
};

export const getShopProduct: AppRouteHandler<typeof routes.getShopProduct> = async (c) => {
  const product = await service.getShopProduct(c.get("deps").db, c.req.valid("param").id);
  return respondResource(c, ShopProductResource, toShopProduct(product));
};

export const createShopProduct: AppRouteHandler<typeof routes.createShopProduct> = async (c) => {
  const { db, clock } = c.get("deps");
  const product = await service.createShopProduct(db, auditSourceOf(c), c.req.valid("json"), clock.now());
  return respondCreated(c, ShopProductResource, toShopProduct(product));
};

export const deleteShopProduct: AppRouteHandler<typeof routes.deleteShopProduct> = async (c) => {
  const { db, clock } = c.get("deps");
  const product = await service.removeShopProduct(db, auditSourceOf(c), c.req.valid("param").id, clock.now());
  return respondResource(c, ShopProductResource, toShopProduct(product));
};

export const listShopProductsOfBook: AppRouteHandler<typeof routes.listShopProductsOfBook> = async (c) => {
  const { id } = c.req.valid("param");
  const { window, paging } = listRequestOf(c.req.valid("query"));
  const list = await service.listShopProductsOfBook(c.get("deps").db, id, window);
  return respondList(c, ShopProductList, list, toShopProduct, paging, 200);
};
