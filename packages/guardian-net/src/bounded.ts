// Two small bounded structures for a guardian's public routes: a map that forgets its least
// recently used entry past a size cap (the oracle's signed statements), and a token bucket per
// remote address kept in one (the routes' rate limit). Neither grows with what a caller sends.

/** A Map that keeps at most `cap` entries, forgetting the least recently used first. */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly cap: number) {
    if (!Number.isSafeInteger(cap) || cap < 1) throw new Error('an LRU map holds at least 1 entry');
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Map keeps insertion order: moved to the end, it is the most recently used.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.cap) this.entries.delete(this.entries.keys().next().value!);
  }
}

export interface RateLimit {
  /** requests an address may make at once */
  burst: number;
  /** requests per second it gets back */
  perSecond: number;
  /** addresses tracked at most; the least recently seen is forgotten first (a full bucket again) */
  maxAddresses?: number;
}

/** The public routes' default: a few vault opens a second per address, far under a flood. */
export const PUBLIC_RATE_LIMIT: RateLimit = { burst: 60, perSecond: 20, maxAddresses: 4_096 };

/** A token bucket per remote address. */
export class AddressRateLimiter {
  private readonly buckets: LruMap<string, { tokens: number; at: number }>;

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {
    this.buckets = new LruMap(limit.maxAddresses ?? 4_096);
  }

  /** Addresses tracked now (at most maxAddresses). */
  get tracked(): number {
    return this.buckets.size;
  }

  /** 0 when `address` may make a request now (one token taken), else the seconds until it may. */
  take(address: string): number {
    const now = this.now();
    const { burst, perSecond } = this.limit;
    const bucket = this.buckets.get(address) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    this.buckets.set(address, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
  }
}
