// What a whole list's stream may hold and for how long (README "What is there", Lists and
// streams): the limits that keep a few slow or idle clients from holding every snapshot slot,
// so that everyone else's whole lists are still answered. One place, so the slot wait, the
// per-user rule and the slow-reader check agree.

/** How long a whole list waits for a free snapshot slot before it is answered 503. */
export const LIST_SLOT_WAIT_MS = 5_000;

/** A stream's client must read at least LIST_MIN_READ_BYTES in every window this long. */
export const LIST_READ_WINDOW_MS = 10_000;

/** The least a stream's client must read per LIST_READ_WINDOW_MS, or the stream is aborted. */
export const LIST_MIN_READ_BYTES = 64 * 1024;

/**
 * Retry-After of a whole list refused for want of a slot (503) or because its caller already
 * streams one (429): a slot frees within a read window at the latest, when a slow reader is cut.
 */
export const LIST_RETRY_AFTER_SECONDS = 5;

/**
 * Why a whole list's stream was not opened: its caller already streams one (`busy-holder`, a
 * 429), or no slot came free in LIST_SLOT_WAIT_MS (`no-slot`, a 503). Thrown by the database
 * layer, which speaks no HTTP; the list's response (http/respond.ts) answers it.
 */
export class ListStreamRefused extends Error {
  constructor(readonly reason: "busy-holder" | "no-slot") {
    super(
      reason === "busy-holder"
        ? "the holder already streams a whole list"
        : "no list snapshot slot came free",
    );
    this.name = "ListStreamRefused";
  }
}
