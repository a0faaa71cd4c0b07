// Writes a valid stored zip of about `size` bytes to disk without holding it in memory.
import { open } from "node:fs/promises";

export async function writeLargeZip(path: string, size: number): Promise<void> {
  const name = new TextEncoder().encode("book/content.bin");
  const dataSize = size - 30 - name.length - 46 - name.length - 22;
  const file = await open(path, "w");
  const local = Buffer.alloc(30 + name.length);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(dataSize, 18);
  local.writeUInt32LE(dataSize, 22);
  local.writeUInt16LE(name.length, 26);
  local.set(name, 30);
  await file.write(local);
  // Incompressible, so no layer can cheat by compressing.
  const block = crypto.getRandomValues(new Uint8Array(1024 * 1024));
  let written = 0;
  while (written < dataSize) {
    const n = Math.min(block.length, dataSize - written);
    await file.write(block, 0, n);
    written += n;
  }
  const central = Buffer.alloc(46 + name.length);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt32LE(dataSize, 20);
  central.writeUInt32LE(dataSize, 24);
  central.writeUInt16LE(name.length, 28);
  central.set(name, 46);
  await file.write(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length, 12);
  end.writeUInt32LE(30 + name.length + dataSize, 16);
  await file.write(end);
  await file.close();
}
