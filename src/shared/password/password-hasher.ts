import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { PASSWORD_MAX_BYTES } from './password-policy.js';

/** bcrypt on a worker-thread pool sized to the cores, so hashing never runs on the event loop. */
export class PasswordHasher {
  private readonly pool: Piscina;
  /** A real hash of a random password, compared against when the account does not exist. */
  private dummyHash?: Promise<string>;

  constructor(
    private readonly cost: number,
    threads = availableParallelism(),
  ) {
    this.pool = new Piscina({
      filename: new URL('./bcrypt.worker.mjs', import.meta.url).href,
      minThreads: 1,
      maxThreads: threads,
      idleTimeout: 60_000,
    });
  }

  hash(password: string): Promise<string> {
    return this.pool.run({ password, cost: this.cost }, { name: 'hash' });
  }

  /** bcrypt reads only the first 72 bytes, so a longer password never matches (it would match its prefix). */
  async compare(password: string, hash: string): Promise<boolean> {
    const matches: boolean = await this.pool.run({ password, hash }, { name: 'compare' });
    return matches && Buffer.byteLength(password, 'utf8') <= PASSWORD_MAX_BYTES;
  }

  /** Spends the same time as a real comparison, so an unknown account is not told apart by timing. */
  async compareDummy(password: string): Promise<false> {
    this.dummyHash ??= this.hash(`dummy-${Math.random()}-${Date.now()}`);
    await this.compare(password, await this.dummyHash);
    return false;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
