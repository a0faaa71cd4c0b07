// The two answers most service rules come down to: the row is not there (404), or a unique index
// refused the write (409).
import { isUniqueViolation } from "../db/errors";
import { AppError, notFound } from "../lib/problems";

/** The row a look-up found; 404 naming `what` when it found none. */
export function found<Row>(row: Row | undefined, what: string): Row {
  if (row === undefined) throw notFound(what);
  return row;
}

/** A `.catch` for a write that a unique index may refuse: 409 with `detail` then; other errors pass. */
export function conflictIfDuplicate(detail: string): (error: unknown) => never {
  return (error) => {
    if (isUniqueViolation(error)) throw new AppError("CONFLICT", detail);
    throw error;
  };
}
