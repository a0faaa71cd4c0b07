// Android's binary XML (AXML), as aapt writes AndroidManifest.xml into an APK: a chunk stream
// with a string pool, a resource map (string index → attribute resource id) and one chunk per
// start/end element whose attributes carry typed values. Only what the manifest's facts need is
// read; every offset is bounds-checked, since the bytes come from an upload.

/** Thrown for anything that is not well-formed AXML; callers turn it into their own error. */
export class BinaryXmlError extends Error {
  override name = "BinaryXmlError";
}

const RES_STRING_POOL_TYPE = 0x0001;
const RES_XML_TYPE = 0x0003;
const RES_XML_START_ELEMENT_TYPE = 0x0102;
const RES_XML_RESOURCE_MAP_TYPE = 0x0180;
const UTF8_FLAG = 1 << 8;
const NO_INDEX = 0xffffffff;

/** Res_value data types (frameworks/base/libs/androidfw ResourceTypes.h). */
export const ValueType = {
  REFERENCE: 0x01,
  STRING: 0x03,
  INT_DEC: 0x10,
  INT_HEX: 0x11,
  INT_BOOLEAN: 0x12,
} as const;

export interface XmlAttribute {
  namespace: string | null;
  name: string;
  /** The attribute's resource id (e.g. 0x0101021b for android:versionCode) from the resource map, or null. */
  resourceId: number | null;
  /** The string form aapt kept (`rawValue`), or null. */
  raw: string | null;
  type: number;
  /** The typed value's 32-bit data, unsigned. */
  data: number;
  /** For STRING values: the string; otherwise null. */
  string: string | null;
}

export interface XmlStartElement {
  namespace: string | null;
  name: string;
  /** Nesting depth: 0 for the root element. */
  depth: number;
  attributes: XmlAttribute[];
}

const fail = (message: string): never => {
  throw new BinaryXmlError(message);
};

class Reader {
  readonly view: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  check(at: number, length: number): void {
    if (at < 0 || length < 0 || at + length > this.bytes.byteLength) fail("truncated");
  }
  u8(at: number): number {
    this.check(at, 1);
    return this.view.getUint8(at);
  }
  u16(at: number): number {
    this.check(at, 2);
    return this.view.getUint16(at, true);
  }
  u32(at: number): number {
    this.check(at, 4);
    return this.view.getUint32(at, true);
  }
}

const utf8 = new TextDecoder("utf-8");
const utf16 = new TextDecoder("utf-16le");

/** Decodes the pool lazily: a manifest's pool is small, but only a few entries are ever used. */
class StringPool {
  private readonly cache = new Map<number, string>();
  constructor(
    private readonly r: Reader,
    private readonly chunkStart: number,
    private readonly chunkEnd: number,
    readonly count: number,
    private readonly stringsStart: number,
    private readonly isUtf8: boolean,
  ) {}

  get(index: number): string {
    if (index >= this.count) fail(`string index ${index} outside the pool`);
    const cached = this.cache.get(index);
    if (cached !== undefined) return cached;
    const r = this.r;
    let at = this.chunkStart + this.stringsStart + r.u32(this.chunkStart + 28 + index * 4);
    let value: string;
    if (this.isUtf8) {
      // Two lengths, each 1 or 2 bytes: UTF-16 units (unused here), then UTF-8 bytes.
      at += r.u8(at) & 0x80 ? 2 : 1;
      let length = r.u8(at);
      if (length & 0x80) {
        length = ((length & 0x7f) << 8) | r.u8(at + 1);
        at += 2;
      } else at += 1;
      if (at + length > this.chunkEnd) fail("string outside the pool");
      r.check(at, length);
      value = utf8.decode(r.bytes.subarray(at, at + length));
    } else {
      let units = r.u16(at);
      if (units & 0x8000) {
        units = ((units & 0x7fff) << 16) | r.u16(at + 2);
        at += 4;
      } else at += 2;
      if (at + units * 2 > this.chunkEnd) fail("string outside the pool");
      r.check(at, units * 2);
      value = utf16.decode(r.bytes.subarray(at, at + units * 2));
    }
    this.cache.set(index, value);
    return value;
  }

  optional(index: number): string | null {
    return index === NO_INDEX ? null : this.get(index);
  }
}

function readStringPool(r: Reader, at: number, headerSize: number, end: number): StringPool {
  if (headerSize < 28) fail("string pool header too short");
  const count = r.u32(at + 8);
  const flags = r.u32(at + 16);
  const stringsStart = r.u32(at + 20);
  // The offsets table must fit in the chunk; that bounds `count` before anything is read.
  if (count > (end - at - 28) / 4) fail("string pool offsets outside the chunk");
  if (count > 0 && (stringsStart < 28 || at + stringsStart > end)) fail("string pool data outside the chunk");
  return new StringPool(r, at, end, count, stringsStart, (flags & UTF8_FLAG) !== 0);
}

/**
 * Every start element of an AXML document, in document order. Throws BinaryXmlError when the
 * bytes are not AXML or any chunk, string or attribute lies outside its bounds.
 */
export function readStartElements(bytes: Uint8Array): XmlStartElement[] {
  const r = new Reader(bytes);
  if (r.u16(0) !== RES_XML_TYPE) fail("not an Android binary XML document");
  const headerSize = r.u16(2);
  const documentEnd = r.u32(4);
  if (headerSize < 8 || documentEnd > bytes.byteLength || headerSize > documentEnd)
    fail("bad document header");

  let pool: StringPool | undefined;
  let resourceIds: Uint32Array = new Uint32Array(0);
  const elements: XmlStartElement[] = [];
  let depth = 0;
  let at = headerSize;
  while (at + 8 <= documentEnd) {
    const type = r.u16(at);
    const chunkHeaderSize = r.u16(at + 2);
    const size = r.u32(at + 4);
    const end = at + size;
    if (chunkHeaderSize < 8 || size < chunkHeaderSize || end > documentEnd) fail("bad chunk bounds");
    if (type === RES_STRING_POOL_TYPE) {
      pool ??= readStringPool(r, at, chunkHeaderSize, end);
    } else if (type === RES_XML_RESOURCE_MAP_TYPE) {
      const count = Math.floor((size - chunkHeaderSize) / 4);
      resourceIds = new Uint32Array(count);
      for (let i = 0; i < count; i++) resourceIds[i] = r.u32(at + chunkHeaderSize + i * 4);
    } else if (type === RES_XML_START_ELEMENT_TYPE) {
      if (!pool) fail("element before the string pool");
      elements.push(readStartElement(r, pool!, resourceIds, at, chunkHeaderSize, end, depth));
      depth++;
    } else if (type === RES_XML_START_ELEMENT_TYPE + 1) {
      depth = Math.max(0, depth - 1);
    }
    at = end;
  }
  return elements;
}

function readStartElement(
  r: Reader,
  pool: StringPool,
  resourceIds: Uint32Array,
  at: number,
  headerSize: number,
  end: number,
  depth: number,
): XmlStartElement {
  // ResXMLTree_attrExt follows the node header (line number, comment).
  const ext = at + headerSize;
  if (ext + 20 > end) fail("element chunk too short");
  const attributeStart = r.u16(ext + 8);
  const attributeSize = r.u16(ext + 10);
  const attributeCount = r.u16(ext + 12);
  if (attributeCount > 0 && attributeSize < 20) fail("attribute record too short");
  const first = ext + attributeStart;
  if (first + attributeCount * attributeSize > end) fail("attributes outside the element chunk");
  const attributes: XmlAttribute[] = [];
  for (let i = 0; i < attributeCount; i++) {
    const a = first + i * attributeSize;
    const nameIndex = r.u32(a + 4);
    const rawIndex = r.u32(a + 8);
    const type = r.u8(a + 15);
    const data = r.u32(a + 16);
    attributes.push({
      namespace: pool.optional(r.u32(a)),
      name: pool.get(nameIndex),
      resourceId: nameIndex < resourceIds.length ? resourceIds[nameIndex]! : null,
      raw: pool.optional(rawIndex),
      type,
      data,
      string: type === ValueType.STRING ? pool.get(data) : null,
    });
  }
  return { namespace: pool.optional(r.u32(ext)), name: pool.get(r.u32(ext + 4)), depth, attributes };
}
