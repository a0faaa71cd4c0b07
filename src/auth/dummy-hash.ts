// What a failed password check costs: at least what checking the store's most expensive scheme
// costs, whoever was asked. An unknown name is checked against a dummy of that scheme, and a wrong
// password for a user of a cheaper scheme (an old phpass $P$ hash, ~4 ms, in a shop of bcrypt $wp$
// hashes, ~50 ms) is topped up with the same dummy check. Otherwise the time of a 401 would tell
// unknown names, and the users of each scheme, apart. Successes are not topped up: a stranger
// learns nothing from how fast the right password is accepted.
import {
  DEFAULT_DUMMY_HASH,
  dummyHashOfScheme,
  schemeCost,
  schemeOfHash,
  verifyAgainstDummy,
  verifyPassword,
} from "./passwords";

/** The schemes are sampled again this often, in the background, as customers come and go. */
const RESAMPLE_MS = 10 * 60_000;

interface Dummy {
  hash: string;
  /** schemeCost of the dummy's own scheme, which a failure must reach. */
  cost: number;
}

function dummyOf(hash: string): Dummy {
  return { hash, cost: schemeCost(schemeOfHash(hash)) };
}

export class DummyHash {
  /** Until the store says what it holds: the $wp$ bcrypt that bookdist itself writes. */
  private dummy = dummyOf(DEFAULT_DUMMY_HASH);
  private scheme: string | undefined;
  /** Whether the store has answered once; until then every check asks it again. */
  private sampled = false;
  private sampledAt = Number.NEGATIVE_INFINITY;
  private sampling: Promise<void> | null = null;

  constructor(
    /** The schemes the store's users have, as passwords.ts schemeOfHash names them. */
    private readonly sample: () => Promise<string[]>,
    private readonly nowMs: () => number,
  ) {}

  /**
   * Whether `password` is the one `storedHash` was made of (`undefined`: no such user). A "no"
   * costs at least a check of the store's most expensive scheme; a "yes" costs only its own.
   */
  async verify(password: string, storedHash: string | undefined): Promise<boolean> {
    if (storedHash !== undefined && (await verifyPassword(password, storedHash))) return true;
    const dummy = await this.current();
    // Decided by the user's scheme, never by the user: every user of one scheme costs the same.
    if (storedHash === undefined || schemeCost(schemeOfHash(storedHash)) < dummy.cost) {
      await verifyAgainstDummy(password, dummy.hash);
    }
    return false;
  }

  /**
   * The dummy of the store's most expensive scheme. The first call waits for the store's answer
   * (a store can start it beside its look-up of the user); later ones resample in the background.
   */
  async current(): Promise<Dummy> {
    if (!this.sampled) await this.resample();
    else if (this.nowMs() - this.sampledAt >= RESAMPLE_MS) void this.resample();
    return this.dummy;
  }

  private resample(): Promise<void> {
    this.sampling ??= this.sampleOnce().finally(() => {
      this.sampling = null;
    });
    return this.sampling;
  }

  private async sampleOnce(): Promise<void> {
    try {
      const schemes = await this.sample();
      // The order is the schemes' own (cost from their parameters), so it does not depend on
      // which user is asked or on how many users each scheme has.
      const dearest = schemes.reduce<string | undefined>(
        (best, scheme) => (best === undefined || schemeCost(scheme) > schemeCost(best) ? scheme : best),
        undefined,
      );
      // An empty store (or one of hashes nothing can check) keeps the default: bookdist's own scheme,
      // the one its next registration writes.
      if (dearest !== undefined && schemeCost(dearest) > 0 && dearest !== this.scheme) {
        this.dummy = dummyOf(await dummyHashOfScheme(dearest));
        this.scheme = dearest;
      }
      this.sampled = true;
    } catch {
      // The store is unreachable: its logins fail anyway; keep the dummy we have and try later.
    }
    this.sampledAt = this.nowMs();
  }
}
