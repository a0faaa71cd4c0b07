// Trimming a set of characters off the ends of a string by walking its indexes. The regex
// spellings (`/\/+$/`, `/[ .]+$/`) retry from every position of a long run that does not reach the
// end, which costs time quadratic in the run's length (test/lib/redos.test.ts finds them).

/** `value` without any of the characters of `chars` at its start or its end. */
export function trimChars(value: string, chars: string): string {
  let start = 0;
  while (start < value.length && chars.includes(value.charAt(start))) start++;
  return trimEndChars(value.slice(start), chars);
}

/** `value` without any of the characters of `chars` at its end. */
export function trimEndChars(value: string, chars: string): string {
  let end = value.length;
  while (end > 0 && chars.includes(value.charAt(end - 1))) end--;
  return value.slice(0, end);
}
