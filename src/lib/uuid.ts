// A UUID's written form, as user ids come in from paths and the admin command line.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `text` has a UUID's form: 8-4-4-4-12 hex digits, either case, any version. */
export function isUuid(text: string): boolean {
  return UUID.test(text);
}
