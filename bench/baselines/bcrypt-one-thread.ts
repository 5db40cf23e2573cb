// The password-login baseline: one thread of bcryptjs comparing at the service's cost, as its own
// process (nothing else of the benchmark shares its thread or its heap). Prints compares per second.
// Usage: node bcrypt-one-thread.js <hash> <password> <seconds>
import bcrypt from 'bcryptjs';

const [hash, password, seconds] = process.argv.slice(2);
if (!hash || !password || !seconds) throw new Error('usage: bcrypt-one-thread <hash> <password> <seconds>');

bcrypt.compareSync(password, hash); // warm-up, not counted
const started = performance.now();
let n = 0;
let elapsed = 0;
do {
  if (!bcrypt.compareSync(password, hash)) throw new Error('bcrypt baseline: the password does not match');
  n++;
  elapsed = performance.now() - started;
} while (elapsed < Number(seconds) * 1000);
process.stdout.write(`${(n * 1000) / elapsed}\n`);
