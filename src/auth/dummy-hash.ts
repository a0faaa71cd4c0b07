// The hash an unknown user is checked against, so that checking one costs what checking the
// store's real users costs: a dummy of the scheme most of them have. A shop whose customers mostly
// carry phpass hashes ($P$, ~8 ms) would otherwise give unknown names away by a bcrypt dummy
// (~70 ms), and the other way round.
import { dummyHashOfScheme } from "./passwords";

/** The schemes are sampled again this often, in the background, as customers come and go. */
const RESAMPLE_MS = 10 * 60_000;

export interface SchemeCount {
  /** As passwords.ts schemeOfHash names it. */
  scheme: string;
  users: number;
}

export class DummyHash {
  private hash: string | undefined;
  private scheme: string | undefined;
  private sampledAt = Number.NEGATIVE_INFINITY;
  private sampling: Promise<void> | null = null;

  constructor(
    /** The store's schemes, most common first. */
    private readonly sample: () => Promise<SchemeCount[]>,
    private readonly nowMs: () => number,
  ) {}

  /** The dummy of the majority scheme; undefined (the default dummy) while the store can't say. */
  async current(): Promise<string | undefined> {
    if (this.hash === undefined) await this.resample();
    else if (this.nowMs() - this.sampledAt >= RESAMPLE_MS) void this.resample();
    return this.hash;
  }

  private resample(): Promise<void> {
    this.sampling ??= this.sampleOnce().finally(() => {
      this.sampling = null;
    });
    return this.sampling;
  }

  private async sampleOnce(): Promise<void> {
    try {
      const majority = (await this.sample())[0]?.scheme;
      if (majority !== undefined && majority !== this.scheme) {
        this.hash = await dummyHashOfScheme(majority);
        this.scheme = majority;
      }
    } catch {
      // The store is unreachable: its logins fail anyway; keep the dummy we have and try later.
    }
    this.sampledAt = this.nowMs();
  }
}
