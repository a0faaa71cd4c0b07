// Redeeming a QR code (`redeemActivationQrCode`): one transaction in which the database is the
// final guard — a conditional UPDATE takes a slot from the code, the unique (user, book) index
// refuses a second activation — so racing redemptions can never hand out more than maxActivations.
import type { Database } from "#db";
import { isAdmin, type Principal } from "../auth/principal";
import { isUniqueViolation } from "../db/errors";
import { withTransaction } from "../db/transaction";
import { throttleBucketOf } from "../lib/ip-address";
import { AppError, type ErrorCode, forbidden } from "../lib/problems";
import {
  type ActivationRow,
  findActivationOfUser,
  insertActivation,
  recordCodeOnShopActivation,
} from "../repositories/activations";
import { consumeActivation, findQrCode, findQrCodeByCode } from "../repositories/qr-codes";
import type { StoreDirectory } from "../store/directory";
import { normalizeActivationCode } from "./activation-code";
import { assertUserExists } from "./activations";
import { type AuditSource, recordChange } from "./audit";
import { type Limits, type Throttle, throttleRules } from "./throttle";

export interface RedemptionContext {
  db: Database;
  /** Where a user named by an admin must exist. */
  store: StoreDirectory;
  throttle: Throttle;
  now: Date;
  /** The peer address of the request, for the per-address throttle. */
  clientAddress: string;
  /** Who redeems: an admin's redemption for another user is an audit event, a reader's own is not. */
  by: AuditSource;
}

export interface RedeemInputValue {
  code: string;
  /** Admins may redeem for someone else; everyone else only for themselves. */
  userUuid?: string | undefined;
}

export interface Redemption {
  activation: ActivationRow;
  /** False when the user already held the book: the existing activation, the code untouched. */
  created: boolean;
}

/** What a guessing client gets wrong: these count against the caller and its address. */
const failureCodes: readonly ErrorCode[] = [
  "NOT_FOUND",
  "QR_CODE_DISABLED",
  "QR_CODE_EXHAUSTED",
  "QR_CODE_EXPIRED",
];

const unknownCode = () => new AppError("NOT_FOUND", "There is no such activation code.");

/**
 * The shop-held activation took another code, or was revoked, between our read and our write
 * (Postgres): the transaction rolls back, giving the code's slot back, and the attempt is made anew.
 */
class ShopActivationChanged extends Error {}

/** Stands on a shop order alone: a refund would delete it, so a redeemed code is recorded on it. */
const standsOnShopOrderOnly = (activation: ActivationRow) =>
  activation.shopOrderId !== null && activation.qrCodeId === null;

export async function redeem(
  ctx: RedemptionContext,
  principal: Principal,
  input: RedeemInputValue,
): Promise<Redemption> {
  const userUuid = input.userUuid ?? principal.userUuid;
  if (userUuid !== principal.userUuid && !isAdmin(principal)) {
    throw forbidden("Only admins may redeem a code for another user.");
  }
  // The caller's own uuid comes from its session; only a named other user needs a look-up.
  if (userUuid !== principal.userUuid) await assertUserExists(ctx.store, userUuid);
  const limits: Limits = [
    [throttleRules.redeemFailuresPerUser, principal.userUuid],
    [throttleRules.redeemFailuresPerAddress, throttleBucketOf(ctx.clientAddress)],
  ];
  const audit = userUuid === principal.userUuid ? null : ctx.by;
  return ctx.throttle.guard(
    limits,
    ctx.now,
    () => attempt(ctx.db, audit, userUuid, input.code, ctx.now),
    failureCodes,
  );
}

async function attempt(
  db: Database,
  audit: AuditSource | null,
  userUuid: string,
  typed: string,
  now: Date,
  again = false,
): Promise<Redemption> {
  const code = normalizeActivationCode(typed);
  if (!code) throw unknownCode();
  let bookId: number | undefined;
  try {
    return await withTransaction(db, async (tx) => {
      const qr = await findQrCodeByCode(tx, code);
      if (!qr) throw unknownCode();
      bookId = qr.bookId;
      // Holding the book already is not a failure, whatever state the code is in; nothing is
      // consumed — unless the book stands on a shop order alone, which a refund would take away.
      const held = await findActivationOfUser(tx, userUuid, qr.bookId);
      if (held && !standsOnShopOrderOnly(held)) return { activation: held, created: false };
      if (!(await consumeActivation(tx, qr.id, now))) {
        // The UPDATE has decided; these reads only tell why. A redemption of the same book by the
        // same user may have committed while the UPDATE waited for the row (Postgres).
        const raced = await findActivationOfUser(tx, userUuid, qr.bookId);
        if (raced) return { activation: raced, created: false };
        const current = await findQrCode(tx, qr.id);
        if (!current) throw unknownCode();
        if (!current.enabled)
          throw new AppError("QR_CODE_DISABLED", "This activation code has been disabled.");
        if (current.expiresAt && current.expiresAt.getTime() <= now.getTime())
          throw new AppError("QR_CODE_EXPIRED", "This activation code has expired.");
        throw new AppError("QR_CODE_EXHAUSTED", "This activation code has been used up.");
      }
      if (held) {
        // The conditional UPDATE decides between racing redemptions and a racing revocation.
        const recorded = await recordCodeOnShopActivation(tx, held.id, qr.id, now);
        if (!recorded) throw new ShopActivationChanged();
        if (audit) await recordChange(tx, audit, now, "activation", "redeem", held.id, held, recorded);
        return { activation: recorded, created: false };
      }
      const activation = await insertActivation(tx, { bookId: qr.bookId, userUuid, qrCodeId: qr.id }, now);
      if (audit) await recordChange(tx, audit, now, "activation", "redeem", activation.id, null, activation);
      return { activation, created: true };
    });
  } catch (error) {
    // Once more: the activation now carries a code (answered as held) or is gone (a new one is made).
    if (error instanceof ShopActivationChanged) {
      if (!again) return attempt(db, audit, userUuid, typed, now, true);
      const held = bookId === undefined ? undefined : await findActivationOfUser(db, userUuid, bookId);
      if (held) return { activation: held, created: false };
    }
    // Postgres: the same user's racing redemption of this book committed first; the unique index
    // refused ours and the rollback gave the slot back. Answer the activation that won.
    if (bookId !== undefined && isUniqueViolation(error)) {
      const held = await findActivationOfUser(db, userUuid, bookId);
      if (held) return { activation: held, created: false };
    }
    throw error;
  }
}
