// Who signed an APK: the SHA-256 of the signing certificate, as `apksigner verify --print-certs`
// reports it. APK Signature Scheme v3 (the current signer, after any key rotation) wins over v2;
// without either, the v1 JAR signature's PKCS#7 block is read. Nothing is verified here — Android
// verifies at install time; bookdist only records which key an upload claims, to notice a change.
import { createHash } from "node:crypto";
import { SIGNING_BLOCK_MAGIC, type ZipDirectory, type ZipEntry } from "./file-types";

export class ApkSigningError extends Error {
  override name = "ApkSigningError";
}

export type SignatureScheme = "v3" | "v2" | "v1";

export interface ApkSigner {
  scheme: SignatureScheme;
  /** Lower-case hex SHA-256 of the signer's DER certificate. */
  certificateSha256: string;
}

const V2_BLOCK_ID = 0x7109871a;
const V3_BLOCK_ID = 0xf05368c0;
/** Real signing blocks are a few KiB (padded to 4 KiB); anything huge is not worth reading. */
const MAX_SIGNING_BLOCK = 16 * 1024 * 1024;
const FOOTER = 24;

const fail = (message: string): never => {
  throw new ApkSigningError(message);
};

const sha256Hex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function readRange(path: string, start: number, end: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(await Bun.file(path).slice(start, end).arrayBuffer());
  if (bytes.byteLength !== end - start) fail("truncated");
  return bytes;
}

function u32(bytes: Uint8Array, at: number, end = bytes.byteLength): number {
  if (at < 0 || at + 4 > end) fail("truncated");
  return new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0, true);
}

function u64(bytes: Uint8Array, at: number, end = bytes.byteLength): number {
  if (at < 0 || at + 8 > end) fail("truncated");
  const value = new DataView(bytes.buffer, bytes.byteOffset + at, 8).getBigUint64(0, true);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) fail("length out of range");
  return Number(value);
}

/** A uint32-length-prefixed field starting at `at`, which must end by `end`. */
function prefixed(bytes: Uint8Array, at: number, end: number): { start: number; end: number } {
  const length = u32(bytes, at, end);
  const start = at + 4;
  if (start + length > end) fail("length-prefixed field overruns its parent");
  return { start, end: start + length };
}

/**
 * The ID-value pairs of the APK Signing Block that sits right before the central directory, or
 * null when there is none (an unsigned or v1-only APK).
 */
export async function readSigningBlock(
  path: string,
  directory: ZipDirectory,
): Promise<Map<number, Uint8Array> | null> {
  const blockEnd = directory.centralDirectoryOffset;
  if (blockEnd < FOOTER + 8) return null;
  const footer = await readRange(path, blockEnd - FOOTER, blockEnd);
  if (new TextDecoder("latin1").decode(footer.subarray(8)) !== SIGNING_BLOCK_MAGIC) return null;
  const size = u64(footer, 0);
  // The size counts everything but its own leading copy.
  const blockStart = blockEnd - size - 8;
  if (size < FOOTER || size > MAX_SIGNING_BLOCK || blockStart < 0)
    fail("APK signing block size out of range");
  const block = await readRange(path, blockStart, blockEnd);
  if (u64(block, 0) !== size) fail("APK signing block sizes disagree");
  const pairs = new Map<number, Uint8Array>();
  const pairsEnd = block.byteLength - FOOTER;
  let at = 8;
  while (at < pairsEnd) {
    const length = u64(block, at, pairsEnd);
    const valueEnd = at + 8 + length;
    if (length < 4 || valueEnd > pairsEnd) fail("APK signing block entry overruns the block");
    const id = u32(block, at + 8, valueEnd);
    if (!pairs.has(id)) pairs.set(id, block.subarray(at + 12, valueEnd));
    at = valueEnd;
  }
  return pairs;
}

/**
 * The first certificate of the first signer of a v2 or v3 block. Both schemes start each signer
 * with `signed data`, whose second field is the length-prefixed sequence of certificates.
 */
function firstSignerCertificate(value: Uint8Array): Uint8Array {
  const signers = prefixed(value, 0, value.byteLength);
  if (signers.start === signers.end) fail("no signers");
  const signer = prefixed(value, signers.start, signers.end);
  const signedData = prefixed(value, signer.start, signer.end);
  const digests = prefixed(value, signedData.start, signedData.end);
  const certificates = prefixed(value, digests.end, signedData.end);
  if (certificates.start === certificates.end) fail("signer without a certificate");
  const certificate = prefixed(value, certificates.start, certificates.end);
  return checkedCertificate(value.subarray(certificate.start, certificate.end));
}

// ---- v1: just enough DER to take the signer's certificate out of a PKCS#7 SignedData ----

interface Tlv {
  tag: number;
  /** First byte of the whole element (tag). */
  at: number;
  start: number;
  end: number;
}

function tlv(bytes: Uint8Array, at: number, end: number): Tlv {
  if (at + 2 > end) fail("DER truncated");
  const tag = bytes[at]!;
  // High tag numbers (0x1f) never occur in the structures read here.
  if ((tag & 0x1f) === 0x1f) fail("DER tag form not supported");
  let length = bytes[at + 1]!;
  let start = at + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    // 0x80 is BER's indefinite length: not DER.
    if (octets === 0 || octets > 4 || start + octets > end) fail("DER length not supported");
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + bytes[start + i]!;
    start += octets;
  }
  if (start + length > end) fail("DER element overruns its parent");
  return { tag, at, start, end: start + length };
}

function children(bytes: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.start; at < parent.end; ) {
    const child = tlv(bytes, at, parent.end);
    out.push(child);
    at = child.end;
  }
  return out;
}

const SEQUENCE = 0x30;
const SET = 0x31;
const INTEGER = 0x02;
const OID = 0x06;
/** 1.2.840.113549.1.7.2, pkcs7-signedData. */
const SIGNED_DATA_OID = Uint8Array.of(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02);

const bytesOf = (bytes: Uint8Array, element: Tlv) => bytes.subarray(element.at, element.end);
const equalBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

function expectTag(element: Tlv | undefined, tag: number, what: string): Tlv {
  if (!element || element.tag !== tag) fail(`PKCS#7: ${what} missing`);
  return element!;
}

/** A certificate is a DER SEQUENCE of exactly its bytes holding the to-be-signed SEQUENCE. */
function checkedCertificate(der: Uint8Array): Uint8Array {
  const outer = tlv(der, 0, der.byteLength);
  if (outer.tag !== SEQUENCE || outer.end !== der.byteLength) fail("certificate is not a DER SEQUENCE");
  expectTag(children(der, outer)[0], SEQUENCE, "tbsCertificate");
  return der;
}

/** issuer Name and serialNumber of a certificate, as DER, to match a SignerInfo's identifier. */
function issuerAndSerialOf(bytes: Uint8Array, certificate: Tlv): { issuer: Uint8Array; serial: Uint8Array } {
  const tbs = expectTag(children(bytes, certificate)[0], SEQUENCE, "tbsCertificate");
  const fields = children(bytes, tbs);
  // [0] EXPLICIT version is optional.
  const first = fields[0]?.tag === 0xa0 ? 1 : 0;
  const serial = expectTag(fields[first], INTEGER, "certificate serial");
  const issuer = expectTag(fields[first + 2], SEQUENCE, "certificate issuer");
  return { issuer: bytesOf(bytes, issuer), serial: bytesOf(bytes, serial) };
}

/**
 * The certificate of the first SignerInfo of a PKCS#7 SignedData (a v1 `META-INF/*.RSA|DSA|EC`
 * file): matched by issuer and serial number, or the first certificate when the signer is named
 * by a subject key identifier.
 */
export function pkcs7SignerCertificate(bytes: Uint8Array): Uint8Array {
  const contentInfo = expectTag(tlv(bytes, 0, bytes.byteLength), SEQUENCE, "ContentInfo");
  const [type, explicit] = children(bytes, contentInfo);
  const oid = expectTag(type, OID, "content type");
  if (!equalBytes(bytes.subarray(oid.start, oid.end), SIGNED_DATA_OID)) fail("PKCS#7: not SignedData");
  const wrapper = expectTag(explicit, 0xa0, "content");
  const signedData = expectTag(children(bytes, wrapper)[0], SEQUENCE, "SignedData");
  const fields = children(bytes, signedData);
  // version, digestAlgorithms, encapContentInfo, [0] certificates, [1] crls (optional), signerInfos
  const certificateSet = fields.find((field) => field.tag === 0xa0);
  if (!certificateSet) fail("PKCS#7: no certificates");
  const certificates = children(bytes, certificateSet!).filter((element) => element.tag === SEQUENCE);
  if (certificates.length === 0) fail("PKCS#7: no certificates");
  const signerInfos = expectTag(fields.at(-1), SET, "signerInfos");
  const signerInfo = expectTag(children(bytes, signerInfos)[0], SEQUENCE, "SignerInfo");
  const identifier = children(bytes, signerInfo)[1];
  let chosen = certificates[0]!;
  if (identifier?.tag === SEQUENCE) {
    const [issuer, serial] = children(bytes, identifier);
    const wanted = {
      issuer: bytesOf(bytes, expectTag(issuer, SEQUENCE, "signer issuer")),
      serial: bytesOf(bytes, expectTag(serial, INTEGER, "signer serial")),
    };
    const match = certificates.find((certificate) => {
      const candidate = issuerAndSerialOf(bytes, certificate);
      return equalBytes(candidate.issuer, wanted.issuer) && equalBytes(candidate.serial, wanted.serial);
    });
    if (!match) fail("PKCS#7: the signer's certificate is not in the block");
    chosen = match!;
  }
  return checkedCertificate(bytesOf(bytes, chosen));
}

/** v1 signature block files: directly in META-INF, named like apksigner and the platform do. */
function v1SignatureEntries(directory: ZipDirectory): ZipEntry[] {
  return directory.entries
    .filter((entry) => /^META-INF\/[^/]+\.(RSA|DSA|EC)$/.test(entry.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The signer of an APK: v3, else v2, else the first v1 signature block (`readEntry` reads it from
 * the archive); null when unsigned. Throws ApkSigningError for a block that cannot be read.
 */
export async function readApkSigner(
  path: string,
  directory: ZipDirectory,
  readEntry: (entry: ZipEntry) => Promise<Uint8Array>,
): Promise<ApkSigner | null> {
  const block = await readSigningBlock(path, directory);
  for (const [scheme, id] of [
    ["v3", V3_BLOCK_ID],
    ["v2", V2_BLOCK_ID],
  ] as const) {
    const value = block?.get(id);
    if (value) return { scheme, certificateSha256: sha256Hex(firstSignerCertificate(value)) };
  }
  const [v1] = v1SignatureEntries(directory);
  if (!v1) return null;
  return { scheme: "v1", certificateSha256: sha256Hex(pkcs7SignerCertificate(await readEntry(v1))) };
}
