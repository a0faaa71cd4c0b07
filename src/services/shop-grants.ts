// Every grant and every revocation a shop order makes is reported here, by one function each, after
// its transaction committed: the log line (order, book, user) and the
// bookdist_shop_grants_total / bookdist_shop_revocations_total counters.
import type { Logger } from "../lib/logger";
import { countShopGrant, countShopRevocation } from "../metrics/registry";

export interface GrantEvent {
  orderId: number;
  lineItemId: number;
  bookId: number;
  userUuid: string;
  activationId: number;
}

export function reportGrant(logger: Logger, event: GrantEvent): void {
  logger.info("shop order granted a book", { ...event });
  countShopGrant();
}

export function reportRevocation(logger: Logger, event: GrantEvent): void {
  logger.info("shop order revoked a book", { ...event });
  countShopRevocation();
}
