// No string of a request holds NUL or another C0 control character; tab, LF and CR
// only in the multi-line fields. Checked before trimming, so a trailing newline in a title is
// refused rather than silently cut. Written with \u escapes so that the OpenAPI document carries
// the same pattern as it stands (JSON Schema patterns are ECMA-262).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const SINGLE_LINE = /^[^\u0000-\u001f]*$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const MULTI_LINE = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f]*$/;

// Text from a file someone else may have written (a backup's manifest, an error naming one of its
// keys) printed to an operator's terminal: a control character there could move the cursor,
// retitle the window, clear the screen or hide the rest of the line (ESC and CSI sequences, C1
// controls), and a bidirectional override could make the line read other than it is.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every control, line-separator and bidi-override character shown as a visible \u{hex}. */
export function forTerminal(text: string): string {
  return text.replace(UNPRINTABLE, (character) => `\\u{${character.codePointAt(0)!.toString(16)}}`);
}
