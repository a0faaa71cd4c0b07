import type { Router } from "../http/mount-routers";
import { activationsRouter, bookActivationsRouter } from "./activations";
import { apksRouter } from "./apks";
import { auditEventsRouter } from "./audit-events";
import { authenticationRouter } from "./authentication";
import { bookVersionsRouter } from "./book-versions";
import { booksRouter } from "./books";
import { deviceTokensRouter } from "./device-tokens";
import { entitlementsRouter } from "./entitlements";
import { opdsRouter } from "./opds";
import { qrCodeBatchesRouter } from "./qr-code-batches";
import { qrCodesRouter } from "./qr-codes";
import { readerRouter } from "./reader";
import { readingProgressRouter } from "./reading-progress";
import { serviceRouter } from "./service";
import { shopRouter } from "./shop";
import { shopProductsRouter } from "./shop-products";
import { usersRouter } from "./users";

/**
 * Every resource router, mounted at the root by createApp: in any order as far as routing goes
 * (the most specific pattern wins, http/mount-routers.ts). Each entry is a section of the OpenAPI
 * document, in the document's order; a section of several routers lists their operations
 * together.
 */
export const routerSections: readonly (readonly Router[])[] = [
  [serviceRouter],
  [authenticationRouter],
  // The store's users as staff find them (listUsers, getUser), after the caller's own account.
  [usersRouter],
  // A reading app's passwords: authentication's paths, listed after its session operations.
  [deviceTokensRouter],
  // Offline entitlements and their keys (README "Offline entitlements").
  [entitlementsRouter],
  // A book's activations live with activations (a sub-collection lives with its records' folder);
  // the document lists them among the reader's views of a book, as it always has.
  [readerRouter, bookActivationsRouter],
  // A reader's position in a book (README "Reading progress"), after the reader's views of it.
  [readingProgressRouter],
  [booksRouter],
  [bookVersionsRouter],
  [apksRouter],
  [activationsRouter],
  [qrCodeBatchesRouter],
  [qrCodesRouter],
  [shopProductsRouter],
  [shopRouter],
  [auditEventsRouter],
  [opdsRouter],
];
