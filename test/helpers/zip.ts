// Builds real zip archives in memory (stored or deflated entries), so tests need no `zip` binary.
import { deflateRawSync } from "node:zlib";

const encoder = new TextEncoder();

function u16(view: DataView, offset: number, value: number) {
  view.setUint16(offset, value, true);
}
function u32(view: DataView, offset: number, value: number) {
  view.setUint32(offset, value >>> 0, true);
}

/** A zip archive holding `files` (name → content), stored without compression. */
export function makeZip(files: Record<string, string | Uint8Array>): Uint8Array<ArrayBuffer> {
  return makeZipOf(Object.entries(files).map(([name, content]) => ({ name, content })));
}

/** One entry of makeZipOf: deflated when `deflate` is set, stored otherwise. */
export interface ZipInput {
  name: string;
  content: string | Uint8Array;
  deflate?: boolean;
}

/** A zip archive of `entries`, in this order. */
export function makeZipOf(entries: ZipInput[]): Uint8Array<ArrayBuffer> {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const { name, content, deflate } of entries) {
    const nameBytes = encoder.encode(name);
    const raw = typeof content === "string" ? encoder.encode(content) : content;
    const crc = Bun.hash.crc32(raw);
    const data = deflate ? deflateRawSync(raw) : raw;
    const method = deflate ? 8 : 0;

    const local = new Uint8Array(30 + nameBytes.length + data.length);
    const lv = new DataView(local.buffer);
    u32(lv, 0, 0x04034b50);
    u16(lv, 4, 20); // version needed
    u16(lv, 8, method);
    u32(lv, 14, crc);
    u32(lv, 18, data.length);
    u32(lv, 22, raw.length);
    u16(lv, 26, nameBytes.length);
    local.set(nameBytes, 30);
    local.set(data, 30 + nameBytes.length);

    const central = new Uint8Array(46 + nameBytes.length);
    const cv = new DataView(central.buffer);
    u32(cv, 0, 0x02014b50);
    u16(cv, 4, 20);
    u16(cv, 6, 20);
    u16(cv, 10, method);
    u32(cv, 16, crc);
    u32(cv, 20, data.length);
    u32(cv, 24, raw.length);
    u16(cv, 28, nameBytes.length);
    u32(cv, 42, offset);
    central.set(nameBytes, 46);

    locals.push(local);
    centrals.push(central);
    offset += local.length;
  }
  const centralSize = centrals.reduce((sum, c) => sum + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  u32(ev, 0, 0x06054b50);
  u16(ev, 8, centrals.length);
  u16(ev, 10, centrals.length);
  u32(ev, 12, centralSize);
  u32(ev, 16, offset);
  return concat([...locals, ...centrals, end]);
}

export function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A multipart/form-data body with one file part. */
export function multipartFile(
  bytes: Uint8Array,
  options: { field?: string; filename?: string; contentType?: string } = {},
): FormData {
  const form = new FormData();
  form.append(
    options.field ?? "file",
    new Blob([bytes], { type: options.contentType ?? "application/octet-stream" }),
    options.filename ?? "upload.bin",
  );
  return form;
}
