// How much the WAL holds now, read where SQLite keeps it: the WAL-index header at the start of the
// `-shm` file (https://www.sqlite.org/walformat.html, "The WAL-Index Header"). The WAL file's size
// says nothing once the WAL is started over in place (writer-worker.ts): SQLite then writes from
// its first frame again into a file that keeps its size. The header's mxFrame is the number of
// valid frames; test/db/wal-index.test.ts holds it to SQLite's own count (wal_checkpoint's `log`).
//
// One descriptor, opened at the first read and closed only once every SQLite connection of this
// process to the file is closed (client.ts): POSIX drops all of a process's fcntl locks on a file
// when any one of its descriptors of that file is closed, and SQLite's WAL locks live on `-shm`.
// SQLite keeps the file while a connection is open, so the descriptor stays the file's.
import { closeSync, openSync, readSync } from "node:fs";
import { endianness } from "node:os";

/** Each frame is its page after a 24-byte frame header (walformat.html, "The WAL File Format"). */
const FRAME_HEADER_BYTES = 24;
/** The header is kept twice, 48 bytes each; a writer updates one copy, then the other. */
const HEADER_BYTES = 48;
/** Offsets inside a header copy: szPage (u16), mxFrame (u32), both in the machine's byte order. */
const PAGE_SIZE_AT = 14;
const MAX_FRAME_AT = 16;
const littleEndian = endianness() === "LE";

export class WalIndex {
  private fd: number | undefined;
  private readonly header = Buffer.alloc(2 * HEADER_BYTES);

  constructor(private readonly shmPath: string) {}

  /**
   * The bytes of the WAL's valid frames: 0 before the `-shm` file exists. The two copies differ
   * only while a commit writes them; the larger count is taken then, which errs towards starting
   * the WAL over early, never late.
   */
  bytes(): number {
    if (this.fd === undefined) {
      try {
        this.fd = openSync(this.shmPath, "r");
      } catch {
        return 0;
      }
    }
    if (readSync(this.fd, this.header, 0, this.header.length, 0) < this.header.length) return 0;
    const frames = Math.max(this.framesAt(0), this.framesAt(HEADER_BYTES));
    const stored = littleEndian
      ? this.header.readUInt16LE(PAGE_SIZE_AT)
      : this.header.readUInt16BE(PAGE_SIZE_AT);
    // szPage 1 stands for 65,536, which does not fit in 16 bits.
    const pageSize = stored === 1 ? 65_536 : stored;
    return frames * (pageSize + FRAME_HEADER_BYTES);
  }

  /** Only after the process's connections to the file are closed (see above). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private framesAt(copy: number): number {
    const at = copy + MAX_FRAME_AT;
    return littleEndian ? this.header.readUInt32LE(at) : this.header.readUInt32BE(at);
  }
}
