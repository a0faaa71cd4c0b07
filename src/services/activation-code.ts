// Activation codes: 80 bits from a cryptographic random source, written as 16 Crockford base32
// characters in four dash-separated groups. Crockford's alphabet leaves out I, L, O and U, so a
// code read aloud or typed from print survives the usual confusions, which normalisation folds
// back.

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const CODE_BYTES = 10; // 80 bits = 16 symbols of 5 bits
const SYMBOLS = 16;
const GROUP = 4;

const CANONICAL = /^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/;

/** A new code from the cryptographic random source, e.g. `7KQ4-M2XD-9RTF-0BHA`. */
export function generateActivationCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(CODE_BYTES));
  let symbols = "";
  // 80 bits split evenly into 5-bit symbols: no padding and no bias.
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      symbols += ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return formatSymbols(symbols);
}

/**
 * The canonical form of what a reader typed or scanned: case-insensitive, dashes and whitespace
 * ignored, O read as 0 and I/L as 1. Null when it cannot be a code (wrong length or a symbol
 * outside the alphabet, such as U).
 */
export function normalizeActivationCode(input: string): string | null {
  const symbols = input
    .toUpperCase()
    .replace(/[\s-]+/g, "")
    .replaceAll("O", "0")
    .replace(/[IL]/g, "1");
  if (symbols.length !== SYMBOLS) return null;
  for (const symbol of symbols) if (!ALPHABET.includes(symbol)) return null;
  return formatSymbols(symbols);
}

/** True for a code in its canonical stored form. */
export function isCanonicalActivationCode(code: string): boolean {
  return CANONICAL.test(code);
}

function formatSymbols(symbols: string): string {
  const groups: string[] = [];
  for (let i = 0; i < SYMBOLS; i += GROUP) groups.push(symbols.slice(i, i + GROUP));
  return groups.join("-");
}
