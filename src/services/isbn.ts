// ISBN-10/13 with their check digits. Input may carry hyphens and spaces; the stored form has none.

/** The normalised ISBN (digits, and a final X for ISBN-10), or null when it is not a valid one. */
export function normalizeIsbn(input: string): string | null {
  const compact = input.replace(/[\s-]/g, "").toUpperCase();
  if (/^\d{9}[\dX]$/.test(compact)) return isbn10CheckOk(compact) ? compact : null;
  if (/^97[89]\d{10}$/.test(compact)) return isbn13CheckOk(compact) ? compact : null;
  return null;
}

function isbn10CheckOk(isbn: string): boolean {
  let sum = 0;
  for (let i = 0; i < 10; i++) {
    const char = isbn[i]!;
    sum += (char === "X" ? 10 : Number(char)) * (10 - i);
  }
  return sum % 11 === 0;
}

function isbn13CheckOk(isbn: string): boolean {
  let sum = 0;
  for (let i = 0; i < 13; i++) sum += Number(isbn[i]) * (i % 2 === 0 ? 1 : 3);
  return sum % 10 === 0;
}

/** The canonical BCP 47 form of a language tag, or null when it is not one. */
export function canonicalLanguageTag(tag: string): string | null {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical ?? null;
  } catch {
    return null;
  }
}
