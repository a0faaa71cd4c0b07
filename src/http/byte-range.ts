// The `Range` header of a download, read by a scanner that looks at each character
// once: a header of any shape, up to the server's header limit, costs time linear in its length.
// (The regex it replaces, /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i, backtracked in cubic time
// on a run of spaces that failed at its end: 4 KB held the event loop for seconds.)

export type ByteRange = { start: number; end: number } | "unsatisfiable" | null;

/**
 * One `bytes=` range, as inclusive offsets into a file of `size` bytes: `a-b`, `a-` or `-n`, with
 * optional whitespace around each part and the unit in any case. Anything else, including several
 * ranges, yields null: RFC 9110 lets a server ignore Range and send the whole file.
 */
export function parseByteRange(header: string, size: number): ByteRange {
  const spec = scanByteRangeSpec(header);
  if (spec === null) return null;
  const { first, last } = spec;
  if (first === "" && last === "") return null;
  if (first === "") {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== "" && Number(last) < start) return null;
  if (start >= size) return "unsatisfiable";
  return { start, end: last === "" ? size - 1 : Math.min(Number(last), size - 1) };
}

const UNIT = "bytes";

/**
 * `bytes = first - last` split into its two digit strings (each possibly empty), or null if the
 * header has any other shape. Every step moves forward and none is retried.
 */
function scanByteRangeSpec(header: string): { first: string; last: string } | null {
  let pos = skipWhitespace(header, 0);
  for (const char of UNIT) {
    // ASCII case-insensitive: setting bit 0x20 turns an upper-case letter into its lower-case
    // form, and no character but a letter's two cases lands on that lower-case letter.
    if ((header.charCodeAt(pos) | 0x20) !== char.charCodeAt(0)) return null;
    pos++;
  }
  pos = skipWhitespace(header, pos);
  if (header.charAt(pos) !== "=") return null;
  pos = skipWhitespace(header, pos + 1);
  const firstEnd = skipDigits(header, pos);
  const first = header.slice(pos, firstEnd);
  pos = skipWhitespace(header, firstEnd);
  if (header.charAt(pos) !== "-") return null;
  pos = skipWhitespace(header, pos + 1);
  const lastEnd = skipDigits(header, pos);
  const last = header.slice(pos, lastEnd);
  pos = skipWhitespace(header, lastEnd);
  return pos === header.length ? { first, last } : null;
}

/** RFC 9110 §5.6.3 optional whitespace: spaces and horizontal tabs. */
function skipWhitespace(text: string, from: number): number {
  let pos = from;
  while (pos < text.length && (text.charCodeAt(pos) === 0x20 || text.charCodeAt(pos) === 0x09)) pos++;
  return pos;
}

/** ASCII digits only, as in RFC 9110's `first-pos` and `last-pos`. */
function skipDigits(text: string, from: number): number {
  let pos = from;
  while (pos < text.length && text.charCodeAt(pos) >= 0x30 && text.charCodeAt(pos) <= 0x39) pos++;
  return pos;
}
