// WordPress-compatible password hashing, so customers of the shop can log in with the password they
// already have there, and passwords set here keep working on the shop. See
// README, "Users from a WordPress/WooCommerce shop".
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

const PHP_TRIM_CHARS = " \t\n\r\0\x0B";
const MAX_INPUT_BYTES = 4096;
const BCRYPT_MAX_BYTES = 72;
const PHPASS_ITOA64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// A $wp$ hash of a random secret nobody knows; verifying against it costs what a real check costs.
export const DEFAULT_DUMMY_HASH = "$wp$2y$10$COg4/XXOPo3sekztn.tiK.NMyDOi30fUZYe/ZSw47iWTjlq6yA0rW";

function phpTrim(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && PHP_TRIM_CHARS.includes(value.charAt(start))) start++;
  while (end > start && PHP_TRIM_CHARS.includes(value.charAt(end - 1))) end--;
  return value.slice(start, end);
}

function addslashes(value: string): string {
  return value.replace(/[\\'"\0]/g, (c) => (c === "\0" ? "\\0" : `\\${c}`));
}

// WordPress slashes all request data (wp_magic_quotes) and wp_authenticate() trims the password, so the
// slashed form is what both the hash and the check see for a password typed into a WordPress form.
export function wordpressSlash(password: string): string {
  return phpTrim(addslashes(password));
}

function wpHmac(input: Uint8Array): string {
  return createHmac("sha384", "wp-sha384").update(input).digest("base64");
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The bcrypt cost of every hash bookdist writes, as WordPress writes them. config.ts always sets
 * it (no variable lowers it); only the in-process test app builds a Config with a cheaper one.
 */
export const PASSWORD_HASH_COST = 10;

/** A $wp$ bcrypt hash of `password` at `cost` (config.passwordHashCost). */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const bcrypt = await Bun.password.hash(wpHmac(Buffer.from(wordpressSlash(password))), {
    algorithm: "bcrypt",
    cost,
  });
  // Same algorithm, but PHP only recognises $2y$ as its bcrypt and WordPress would rehash anything else.
  return `$wp${bcrypt.replace(/^\$2b\$/, "$2y$")}`;
}

function phpassEncode64(input: Uint8Array): string {
  let output = "";
  let i = 0;
  while (i < input.length) {
    let value = input[i++]!;
    output += PHPASS_ITOA64[value & 0x3f];
    if (i < input.length) value |= input[i]! << 8;
    output += PHPASS_ITOA64[(value >> 6) & 0x3f];
    if (i++ >= input.length) break;
    if (i < input.length) value |= input[i]! << 16;
    output += PHPASS_ITOA64[(value >> 12) & 0x3f];
    if (i++ >= input.length) break;
    output += PHPASS_ITOA64[(value >> 18) & 0x3f];
  }
  return output;
}

function md5(...parts: Uint8Array[]): Buffer {
  const hash = createHash("md5");
  for (const part of parts) hash.update(part);
  return hash.digest();
}

function checkPhpass(input: Uint8Array, storedHash: string): boolean {
  const stored = Buffer.from(storedHash);
  const countLog2 = PHPASS_ITOA64.indexOf(storedHash.charAt(3));
  // The bounds phpass itself enforces; outside them it never produces a matching hash.
  if (countLog2 < 7 || countLog2 > 30 || stored.length < 12) return false;
  // Each round is md5(previous hash + input): one block rehashed in place, as a fresh hasher per
  // round would cost more than the md5 itself, and this loop runs on the event loop.
  const block = new Uint8Array(16 + input.length);
  block.set(md5(stored.subarray(4, 12), input));
  block.set(input, 16);
  const hash = block.slice(0, 16);
  for (let rounds = 2 ** countLog2; rounds > 0; rounds--) {
    Bun.MD5.hash(block, hash);
    block.set(hash);
  }
  const computed = Buffer.concat([stored.subarray(0, 12), Buffer.from(phpassEncode64(hash))]);
  return constantTimeEqual(computed, stored);
}

// What PHP's password_verify() would say, for the algorithms Bun knows.
async function phpPasswordVerify(input: Uint8Array, storedHash: string): Promise<boolean> {
  let key = input;
  if (/^\$2[aby]\$/.test(storedHash)) {
    // PHP's crypt_blowfish reads a C string and uses at most 72 bytes; Bun would SHA-512 a longer input.
    // Slicing bytes can split a UTF-8 character, so the key stays a byte array, never a string.
    const nul = key.indexOf(0);
    if (nul !== -1) key = key.subarray(0, nul);
    key = key.subarray(0, BCRYPT_MAX_BYTES);
  } else if (!/^\$argon2id?\$/.test(storedHash)) {
    return false;
  }
  try {
    return await Bun.password.verify(key, storedHash);
  } catch {
    // Bun throws on malformed or unsupported hashes; for a login that is simply "no".
    return false;
  }
}

async function checkOne(candidate: string, storedHash: string): Promise<boolean> {
  const input = Buffer.from(candidate);
  if (Buffer.byteLength(storedHash) <= 32) {
    return constantTimeEqual(Buffer.from(md5(input).toString("hex")), Buffer.from(storedHash));
  }
  if (input.length > MAX_INPUT_BYTES) return false;
  if (storedHash.startsWith("$wp")) {
    return phpPasswordVerify(Buffer.from(wpHmac(input)), storedHash.slice(3));
  }
  // Only $P$ goes to phpass, as in WordPress 6.8's wp_check_password(); phpBB's $H$ variant falls
  // through to password_verify(), which does not know it.
  if (storedHash.startsWith("$P$")) return checkPhpass(input, storedHash);
  return phpPasswordVerify(input, storedHash);
}

function isRejected(candidate: string): boolean {
  // PHP's empty() is true for "" and "0", and WordPress refuses such passwords before checking.
  return candidate === "" || candidate === "0";
}

export async function verifyPassword(password: string, storedHash: string): Promise<boolean> {
  const slashed = wordpressSlash(password);
  if (isRejected(slashed)) return false;
  if (await checkOne(slashed, storedHash)) return true;
  // Without these characters slashing changes nothing, so a second try could not differ.
  if (!/['"\\\0]/.test(password)) return false;
  // Hashes written by WP-CLI or other tools are of the unslashed password.
  const trimmed = phpTrim(password);
  return !isRejected(trimmed) && checkOne(trimmed, storedHash);
}

/**
 * Runs the same path as a user whose hash is `dummyHash` (including the second try), so checking
 * it costs what a wrong password of that scheme costs. The default is a $wp$ hash, the scheme
 * bookdist itself writes; dummy-hash.ts passes a dummy of the store's most expensive scheme.
 */
export async function verifyAgainstDummy(password: string, dummyHash = DEFAULT_DUMMY_HASH): Promise<false> {
  await verifyPassword(password, dummyHash);
  return false;
}

/**
 * The scheme of a stored hash with the parameters that set its cost, e.g. "$wp$2y$10", "$P$B",
 * "$2y$12", "$argon2id$v=19$m=65536,t=4,p=1", "md5": hashes of one scheme cost the same to check.
 */
export function schemeOfHash(storedHash: string): string {
  if (Buffer.byteLength(storedHash) <= 32) return "md5";
  if (storedHash.startsWith("$P$")) return storedHash.slice(0, 4);
  const parts = storedHash.split("$");
  if (storedHash.startsWith("$wp$")) return parts.slice(0, 4).join("$");
  if (storedHash.startsWith("$argon2")) return parts.slice(0, 4).join("$");
  return parts.slice(0, 3).join("$");
}

const BCRYPT_SCHEME = /^(\$wp)?\$(2[aby])\$(\d\d)$/;
const ARGON2_SCHEME = /^\$(argon2id|argon2i)\$v=19\$m=(\d+),t=(\d+),p=\d+$/;
const PHPASS_SCHEME = /^\$P\$[./0-9A-Za-z]$/;

/**
 * Roughly what checking a wrong password against a hash of `scheme` (as schemeOfHash names it)
 * costs, in microseconds of one core: enough to tell which of two schemes costs more, which is
 * all it is used for. Each follows from the scheme's own parameters (md5 rounds of phpass, the
 * bcrypt cost, argon2's memory and passes), so no hash has to be timed. A scheme verifyPassword
 * refuses without hashing costs nothing.
 */
export function schemeCost(scheme: string): number {
  if (scheme === "md5") return 1;
  if (PHPASS_SCHEME.test(scheme)) {
    const countLog2 = PHPASS_ITOA64.indexOf(scheme.charAt(3));
    return countLog2 < 7 || countLog2 > 30 ? 0 : 2 ** countLog2 / 8;
  }
  const bcrypt = BCRYPT_SCHEME.exec(scheme);
  if (bcrypt) {
    const cost = Number(bcrypt[3]);
    return cost < 4 || cost > 31 ? 0 : 2 ** cost * 50;
  }
  const argon2 = ARGON2_SCHEME.exec(scheme);
  if (argon2) return (Number(argon2[2]) * Number(argon2[3])) / 2;
  return 0;
}

/**
 * A hash of `scheme` (as schemeOfHash names it) of a random secret nobody knows: checking a
 * password against it costs what checking a real user of that scheme costs. Unknown or absurd
 * parameters get the default dummy.
 */
export async function dummyHashOfScheme(scheme: string): Promise<string> {
  const secret = crypto.getRandomValues(new Uint8Array(24));
  if (scheme === "md5") return md5(secret).toString("hex");
  if (PHPASS_SCHEME.test(scheme)) {
    const salt = phpassEncode64(crypto.getRandomValues(new Uint8Array(6)));
    return `${scheme}${salt}${phpassEncode64(md5(secret))}`;
  }
  const bcrypt = BCRYPT_SCHEME.exec(scheme);
  if (bcrypt) {
    const cost = Number(bcrypt[3]);
    if (cost < 4 || cost > 16) return DEFAULT_DUMMY_HASH;
    const hash = await Bun.password.hash(secret, { algorithm: "bcrypt", cost });
    return `${bcrypt[1] ?? ""}${hash.replace(/^\$2b\$/, `$${bcrypt[2]}$`)}`;
  }
  const argon2 = ARGON2_SCHEME.exec(scheme);
  if (argon2) {
    const memoryCost = Number(argon2[2]);
    const timeCost = Number(argon2[3]);
    if (memoryCost > 1_048_576 || timeCost > 16) return DEFAULT_DUMMY_HASH;
    return Bun.password.hash(secret, {
      algorithm: argon2[1] as "argon2id" | "argon2i",
      memoryCost,
      timeCost,
    });
  }
  return DEFAULT_DUMMY_HASH;
}
