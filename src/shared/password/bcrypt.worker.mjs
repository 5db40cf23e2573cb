// Runs in a worker thread: bcrypt is CPU-bound and must never block the request thread.
import bcrypt from 'bcryptjs';

export function hash({ password, cost }) {
  return bcrypt.hashSync(password, cost);
}

export function compare({ password, hash }) {
  return bcrypt.compareSync(password, hash);
}
