// WordPress-compatible password hashing, so customers of the shop can log in with the password they
// already have there, and passwords set here keep working on the shop. See WORDPRESS.md, "Logging in".
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

const PHP_TRIM_CHARS = " \t\n\r\0\x0B";
const MAX_INPUT_BYTES = 4096;
const BCRYPT_MAX_BYTES = 72;
const PHPASS_ITOA64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// A $wp$ hash of a random secret nobody knows; verifying against it costs what a real check costs.
const DUMMY_HASH = "$wp$2y$10$COg4/XXOPo3sekztn.tiK.NMyDOi30fUZYe/ZSw47iWTjlq6yA0rW";

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

export async function hashPassword(password: string): Promise<string> {
  const bcrypt = await Bun.password.hash(wpHmac(Buffer.from(wordpressSlash(password))), {
    algorithm: "bcrypt",
    cost: 10,
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
  let hash = md5(stored.subarray(4, 12), input);
  for (let rounds = 2 ** countLog2; rounds > 0; rounds--) hash = md5(hash, input);
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
  if (storedHash.startsWith("$P$") || storedHash.startsWith("$H$")) return checkPhpass(input, storedHash);
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

// Runs the same path as a user with a $wp$ hash (including the second try), so an unknown login
// can't be told apart from a wrong password by its response time.
export async function verifyAgainstDummy(password: string): Promise<false> {
  await verifyPassword(password, DUMMY_HASH);
  return false;
}
