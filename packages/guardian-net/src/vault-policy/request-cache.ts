// A guardian checks a vault request once, however many of its inputs (or signing sessions) it signs:
// the first session of a request runs the whole check (the envelope, the quote, its own price, the
// chain reads, the action's declaration) and the request's other sessions wait for, and reuse, that
// result. What differs between a request's sessions is checked for each one before the cache is
// asked (its input and role, the sighash it computes itself, the vault key's signature, which set
// key the vault and treasury inputs are under); the key is the digest of everything the cached check
// reads: the action, the request, the revealed secret, those keys and its own price (a price that
// moved between two sessions is checked again). An approval is kept while
// every time-bound fact it checked still holds: until the request expires or its quote ages out,
// whichever is first. A refusal is never kept: the same request sent again is checked again, so a
// passing reason (a stale price, a chain read that timed out) does not stick.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** Requests kept at once; the oldest goes first past it (each is a few hundred bytes). */
const MAX_ENTRIES = 2_048;

export function requestDigest(parts: Record<string, unknown>): string {
  return bytesToHex(sha256(utf8ToBytes(JSON.stringify(parts))));
}

export class RequestCache {
  private readonly entries = new Map<string, { result: Promise<void>; until: number }>();
  /** how many checks ran (not answered from the cache), for tests */
  checks = 0;

  constructor(private readonly clock: () => number) {}

  /**
   * `check`'s result for `key`: the one kept, or one in flight for another session of the same
   * request, else a new check, kept until `until` (unix seconds) once it approves.
   */
  run(key: string, until: number, check: () => Promise<void>): Promise<void> {
    const now = this.clock();
    for (const [k, e] of this.entries) {
      if (e.until > now && this.entries.size <= MAX_ENTRIES) break;
      if (e.until <= now || this.entries.size > MAX_ENTRIES) this.entries.delete(k);
    }
    const kept = this.entries.get(key);
    if (kept && kept.until > now) return kept.result;
    this.checks++;
    const result = check();
    this.entries.set(key, { result, until });
    result.catch(() => {
      if (this.entries.get(key)?.result === result) this.entries.delete(key);
    });
    return result;
  }
}
