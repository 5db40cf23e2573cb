import { setFlagsFromString } from 'node:v8';

/**
 * V8's allocation-site pretenuring, off for this process. Start-up builds long-lived objects (schema,
 * metadata, validators) from the same library allocation sites that later build per-request objects;
 * V8 sees those sites' objects all survive, decides to allocate them straight in the old generation,
 * and gets no feedback afterwards to undo it. Under load the service then promoted ~3 MB of dead
 * request objects per scavenge (old space 55 -> 225 MB every few seconds, a mark-compact each time,
 * RSS ~450 MB); without pretenuring nothing is promoted and a GET /api/v1/users/me costs 10-15% less
 * CPU (measured with --trace-gc and --trace-pretenuring-statistics under autocannon, 50 connections).
 *
 * Imported first by main.ts, before any other module allocates; the flag is read by the heap at
 * every scavenge, so setting it at run time takes effect (checked by the same trace).
 */
setFlagsFromString('--no-allocation-site-pretenuring');
