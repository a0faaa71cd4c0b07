// The `entitled` level (API.md §3): a user with an activation for the book, or an admin.
import { and, eq } from "drizzle-orm";
import type { Database } from "#db";
import { isAdmin, type Principal } from "../auth/principal";
import { forbidden } from "../lib/problems";

export async function hasActivation(db: Database, userUuid: string, bookId: number): Promise<boolean> {
  const { activation } = db.tables;
  const [row] = await db.orm
    .select({ id: activation.id })
    .from(activation)
    // (user, book) is unique: no `.limit(1)`, whose bound LIMIT costs SQLite a re-prepare.
    .where(and(eq(activation.userUuid, userUuid), eq(activation.bookId, bookId)));
  return row !== undefined;
}

/** Throws 403 unless the caller may download the book's archives. */
export async function assertEntitled(db: Database, principal: Principal, bookId: number): Promise<void> {
  if (isAdmin(principal)) return;
  if (!(await hasActivation(db, principal.userUuid, bookId))) {
    throw forbidden("You have no activation for this book.");
  }
}
