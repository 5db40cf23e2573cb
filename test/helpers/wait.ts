// Waiting in tests: for a condition to hold, bounded, rather than for a fixed time.

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits up to `ms` for `check` to hold, checking every `every` ms; returns whether it did. */
export async function waitFor(check: () => boolean | Promise<boolean>, ms: number, every = 50): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(every);
  }
}
