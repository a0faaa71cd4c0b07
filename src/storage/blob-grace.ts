// The cleanup's grace and the reuse window below it, in one place. The cleanup job removes no blob
// younger than the grace; an upload records a blob right after `write` made it young (README
// "Storage"). In a bucket `write` may reuse an object instead of writing it again, which is safe
// only while the object is younger than the grace by more than an upload takes: hence a window
// derived from the grace, never a second constant that could be raised past it.

/** BLOB_CLEANUP_GRACE's default (60m): the cleanup removes no blob younger than this. */
export const DEFAULT_BLOB_GRACE_MS = 60 * 60 * 1000;

/**
 * An object already in the bucket and younger than this is not written again; an older one is,
 * which renews its Last-Modified. Half the grace, so an upload that finds the object present can
 * record its row long before the object could be taken (the bucket's stand-in for the disk's
 * touch). Throws when no such window exists below the grace.
 */
export function reuseFreshMs(graceMs: number): number {
  const fresh = Math.floor(graceMs / 2);
  if (!(fresh > 0 && fresh < graceMs)) throw new RangeError(`no reuse window below a grace of ${graceMs} ms`);
  return fresh;
}
