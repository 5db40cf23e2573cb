// Runs in a worker thread: bcrypt is CPU-bound and must never block the request thread.
import { setPriority } from 'node:os';
import bcrypt from 'bcryptjs';

// On Linux the nice value belongs to the thread: this lowers this worker only, so that when
// hashing saturates the cores the event loop still gets the CPU as soon as it has a request.
try {
  setPriority(0, 10);
} catch {
  // not permitted here: hashing still runs off the event loop, only at the same priority
}

export function hash({ password, cost }) {
  return bcrypt.hashSync(password, cost);
}

export function compare({ password, hash }) {
  return bcrypt.compareSync(password, hash);
}
