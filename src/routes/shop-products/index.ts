import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./shop-products.handlers";
import * as routes from "./shop-products.routes";

export const shopProductsRouter = createResourceRouter(routes, handlers);
