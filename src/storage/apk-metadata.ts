// What an uploaded APK says about itself, read the way Android's own tools read it: package,
// versionCode, versionName and minSdk from the binary AndroidManifest.xml (as `aapt dump
// badging` reports them), and the signing certificate's SHA-256 (as `apksigner verify
// --print-certs` reports it). A zip whose manifest cannot be read is not an APK: 415.
import { AppError } from "../lib/problems";
import { BinaryXmlError, readStartElements, ValueType, type XmlAttribute } from "./android-binary-xml";
import { ApkSigningError, readApkSigner, type SignatureScheme } from "./apk-signing";
import { inspectApk, readZipEntry, type ZipDirectory } from "./file-types";

export interface ApkMetadata {
  packageName: string;
  /** Android's default when the manifest has none is 0. */
  versionCode: number;
  /** null when absent or a resource reference (resolving it would need resources.arsc). */
  versionName: string | null;
  /** uses-sdk minSdkVersion; 1 (Android's default) when absent; null for a preview codename. */
  minSdk: number | null;
  /** SHA-256 of the signer's certificate; null for an unsigned APK. */
  signerSha256: string | null;
  signatureScheme: SignatureScheme | null;
}

export interface InspectedApk extends ApkMetadata {
  directory: ZipDirectory;
}

const ANDROID_NS = "http://schemas.android.com/apk/res/android";
/** android:… attribute resource ids (frameworks/base/core/res/res/values/public.xml). */
const ATTR = { versionCode: 0x0101021b, versionName: 0x0101021c, minSdkVersion: 0x0101020c } as const;
/** Manifests are a few KiB; the cap only keeps a hostile one from costing memory. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

const unreadable = (what: string) =>
  new AppError("UNSUPPORTED_MEDIA_TYPE", `The file is not a readable Android package: ${what}.`);

/**
 * An android: attribute, found as the platform finds it: by resource id, or by name where the
 * resource map does not cover it.
 */
function androidAttribute(attributes: XmlAttribute[], name: keyof typeof ATTR): XmlAttribute | undefined {
  return (
    attributes.find((a) => a.resourceId === ATTR[name]) ??
    attributes.find((a) => a.resourceId === null && a.namespace === ANDROID_NS && a.name === name)
  );
}

function integerOf(attribute: XmlAttribute | undefined): number | undefined {
  if (!attribute) return undefined;
  if (attribute.type === ValueType.INT_DEC || attribute.type === ValueType.INT_HEX) return attribute.data | 0;
  // aapt keeps numbers it could not type as strings; the platform parses those too.
  const text = attribute.string ?? attribute.raw;
  if (text !== null && /^\s*-?\d+\s*$/.test(text)) return Number.parseInt(text, 10);
  return undefined;
}

/** Reads the manifest facts from AXML bytes; throws BinaryXmlError when they are not there. */
export function manifestFacts(bytes: Uint8Array): Omit<ApkMetadata, "signerSha256" | "signatureScheme"> {
  const elements = readStartElements(bytes);
  const manifest = elements[0];
  if (manifest?.name !== "manifest" || manifest.namespace !== null) {
    throw new BinaryXmlError("the root element is not <manifest>");
  }
  const packageAttribute = manifest.attributes.find((a) => a.name === "package" && a.namespace === null);
  const packageName = packageAttribute?.string ?? packageAttribute?.raw ?? "";
  if (!/^[A-Za-z][\w]*(\.[A-Za-z][\w]*)*$/.test(packageName)) {
    throw new BinaryXmlError("the manifest has no valid package name");
  }
  const versionCode = integerOf(androidAttribute(manifest.attributes, "versionCode")) ?? 0;
  const versionName = androidAttribute(manifest.attributes, "versionName");
  // The platform reads uses-sdk only as a direct child of <manifest>; the first one counts.
  const usesSdk = elements.find((e) => e.depth === 1 && e.name === "uses-sdk" && e.namespace === null);
  const minSdkAttribute = usesSdk ? androidAttribute(usesSdk.attributes, "minSdkVersion") : undefined;
  const minSdk = minSdkAttribute === undefined ? 1 : (integerOf(minSdkAttribute) ?? null);
  return {
    packageName,
    versionCode,
    versionName:
      versionName?.type === ValueType.REFERENCE ? null : (versionName?.string ?? versionName?.raw ?? null),
    minSdk,
  };
}

/**
 * The upload check for APKs: a zip holding AndroidManifest.xml (inspectApk), whose manifest and
 * signature can be read. Reads only the manifest, the signing block and at most one v1 signature
 * file, never the whole archive.
 */
export async function inspectApkMetadata(path: string, size: number): Promise<InspectedApk> {
  const directory = await inspectApk(path, size);
  const manifestEntry = directory.entries.find((entry) => entry.name === "AndroidManifest.xml")!;
  const manifestBytes = await readZipEntry(path, manifestEntry, MAX_MANIFEST_BYTES);
  let facts: ReturnType<typeof manifestFacts>;
  try {
    facts = manifestFacts(manifestBytes);
  } catch (error) {
    if (error instanceof BinaryXmlError)
      throw unreadable(`AndroidManifest.xml is not valid (${error.message})`);
    throw error;
  }
  try {
    const signer = await readApkSigner(path, directory, (entry) =>
      readZipEntry(path, entry, MAX_MANIFEST_BYTES),
    );
    return {
      ...facts,
      signerSha256: signer?.certificateSha256 ?? null,
      signatureScheme: signer?.scheme ?? null,
      directory,
    };
  } catch (error) {
    if (error instanceof ApkSigningError) throw unreadable(`its signature cannot be read (${error.message})`);
    throw error;
  }
}
