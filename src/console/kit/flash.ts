// Flash messages: after a change, the page a form redirects to says what happened (`?done=<key>`).
// Only the keys below exist, so a crafted link can show only one of these sentences. A screen adds
// its own keys here. A few messages carry counts (FLASH_COUNTS: what a run did), each a number of
// the query string: a link can change a number, never the words.
export const FLASH_MESSAGES = {
  "signed-out": "You are signed out.",
  "book-created": "The book was created.",
  "book-saved": "The book was saved.",
  "book-deleted": "The book was deleted.",
  "cover-uploaded": "The cover was uploaded.",
  "version-created": "The version was created.",
  "archive-uploaded": "The archive was uploaded.",
  "version-deleted": "The version was deleted.",
  "print-run-created": "The print run was made.",
  "print-run-enabled": "The print run's codes are enabled.",
  "print-run-disabled": "The print run's codes are disabled.",
  "code-enabled": "The code is enabled.",
  "code-disabled": "The code is disabled.",
  "activation-revoked": "The activation was revoked.",
  "activation-granted": "The book was granted.",
  "sessions-ended": "The user's sessions were ended.",
  "device-token-revoked": "The device token was revoked.",
  "apk-uploaded": "The APK was uploaded. Check what was read from it, then activate it.",
  "apk-activated": "The APK is active.",
  "product-mapped": "The product is mapped to the book.",
  "product-removed": "The product mapping was removed.",
  "shop-synced": "The shop was synchronised.",
} as const;

export type FlashKey = keyof typeof FLASH_MESSAGES;

/** The counts a message is followed by: query name → the words after the number. */
export const FLASH_COUNTS: Partial<Record<FlashKey, Record<string, [one: string, many: string]>>> = {
  "shop-synced": {
    ordersSeen: ["order seen", "orders seen"],
    granted: ["book granted", "books granted"],
    revoked: ["book taken back", "books taken back"],
  },
};

const COUNT = /^\d{1,9}$/;

/**
 * The message a `done` query value names, or undefined; with its counts (`query`: the page's
 * query values) when the message has some and they are whole numbers.
 */
export function flashMessage(
  key: string | undefined,
  query: Record<string, string | undefined> = {},
): string | undefined {
  if (key === undefined || !Object.hasOwn(FLASH_MESSAGES, key)) return undefined;
  const message = FLASH_MESSAGES[key as FlashKey];
  const counts = Object.entries(FLASH_COUNTS[key as FlashKey] ?? {}).flatMap(([name, [one, many]]) => {
    const value = query[name];
    if (value === undefined || !COUNT.test(value)) return [];
    const n = Number(value);
    return [`${n.toLocaleString("en")} ${n === 1 ? one : many}`];
  });
  return counts.length > 0 ? `${message.replace(/\.$/, "")}: ${counts.join(", ")}.` : message;
}
