import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { hashedPassword, PASSWORD_MAX_BYTES } from './password-policy.js';

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

  /** Hashes the password in NFKC (see hashedPassword). */
  hash(password: string): Promise<string> {
    return this.pool.run({ password: hashedPassword(password), cost: this.cost }, { name: 'hash' });
  }

  /**
   * Whether `password` is the one hashed: in NFKC, or, for a hash made before passwords were
   * normalised, exactly as typed (a second comparison, only for a password that NFKC changes: it
   * costs the same whether the account exists or not).
   */
  async compare(password: string, hash: string): Promise<boolean> {
    const normal = hashedPassword(password);
    if (await this.matches(normal, hash)) return true;
    return normal !== password && this.matches(password, hash);
  }

  /** Spends the same time as a real comparison, so an unknown account is not told apart by timing. */
  async compareDummy(password: string): Promise<false> {
    this.dummyHash ??= this.hash(`dummy-${Math.random()}-${Date.now()}`);
    await this.compare(password, await this.dummyHash);
    return false;
  }

  /** bcrypt reads only the first 72 bytes, so a longer password never matches (it would match its prefix). */
  private async matches(password: string, hash: string): Promise<boolean> {
    const matches: boolean = await this.pool.run({ password, hash }, { name: 'compare' });
    return matches && Buffer.byteLength(password, 'utf8') <= PASSWORD_MAX_BYTES;
  }

  /** Jobs waiting for a free worker thread (password_hash_queue_depth). */
  get queueDepth(): number {
    return this.pool.queueSize;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
