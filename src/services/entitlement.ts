// The `entitled` level (README, Words used here): a user with an activation for the book, or an
// admin.
import type { Database } from "#db";
import { isAdmin, type Principal } from "../auth/principal";
import { forbidden } from "../lib/problems";
import * as activations from "../repositories/activations";

export function hasActivation(db: Database, userUuid: string, bookId: number): Promise<boolean> {
  return activations.hasActivation(db, userUuid, bookId);
}

/** Throws 403 unless the caller may download the book's archives. */
export async function assertEntitled(db: Database, principal: Principal, bookId: number): Promise<void> {
  if (isAdmin(principal)) return;
  if (!(await hasActivation(db, principal.userUuid, bookId))) {
    throw forbidden("You have no activation for this book.");
  }
}
