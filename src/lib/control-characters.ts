// API.md §4: no string of a request holds NUL or another C0 control character; tab, LF and CR
// only in the multi-line fields. Checked before trimming, so a trailing newline in a title is
// refused rather than silently cut. Written with \u escapes so that the OpenAPI document carries
// the same pattern as it stands (JSON Schema patterns are ECMA-262).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const SINGLE_LINE = /^[^\u0000-\u001f]*$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const MULTI_LINE = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f]*$/;
