import { activationsRouter } from "./activations";
import { apksRouter } from "./apks";
import { authenticationRouter } from "./authentication";
import { bookVersionsRouter } from "./book-versions";
import { booksRouter } from "./books";
import { qrCodeBatchesRouter } from "./qr-code-batches";
import { qrCodesRouter } from "./qr-codes";
import { readerRouter } from "./reader";
import { serviceRouter } from "./service";
import { shopRouter } from "./shop";
import { shopProductsRouter } from "./shop-products";

/**
 * Every resource router, mounted at the root by createApp. The reader router comes before the
 * books router so that its fixed segments (`/book/my-books`, …) win over `/book/{id}`.
 */
export const routers = [
  serviceRouter,
  authenticationRouter,
  readerRouter,
  booksRouter,
  bookVersionsRouter,
  apksRouter,
  activationsRouter,
  qrCodeBatchesRouter,
  qrCodesRouter,
  shopProductsRouter,
  shopRouter,
];
