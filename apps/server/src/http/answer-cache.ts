// The serialised answers of the hot per-vault reads (a wallet's vault, a page of a vault's history):
// every open page polls them, and their database reads and serialisation cost several times what
// Fastify itself does. An answer is kept as its JSON text, tagged with its vault, until that vault
// changes: the bus's 'vault' event forgets its answers, whichever instance saw the change (several
// instances on one PostgreSQL each hear it), and a block or a resync of the bus forgets them all (a
// block confirms history). What no event tells of is bounded by a short age.
import type { FastifyReply } from 'fastify';
import type { EventBus } from '../cluster';

/** Answers kept at most: the hot vaults of a busy instance; the oldest go first. */
export const ANSWER_CACHE_ENTRIES = 10_000;
/** Their text at most (a history page is up to ~25 KB): what any mix of asked keys may cost. */
export const ANSWER_CACHE_BYTES = 32 * 1024 * 1024;
/** The longest an answer is kept without an event: well under any page's polling period. */
export const ANSWER_CACHE_MAX_AGE_MS = 1_000;

interface Entry {
  json: string;
  vaultId: string | null;
  at: number;
}

export interface AnswerCacheOptions {
  maxEntries?: number;
  maxBytes?: number;
  maxAgeMs?: number;
  now?: () => number;
}

export class AnswerCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every invalidation: an answer read before one is not kept (it may be the old one). */
  private generation = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  /** The kept texts' length, in UTF-16 units (a byte per unit for this ASCII JSON). */
  private bytes = 0;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(options: AnswerCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? ANSWER_CACHE_ENTRIES;
    this.maxBytes = options.maxBytes ?? ANSWER_CACHE_BYTES;
    this.maxAgeMs = options.maxAgeMs ?? ANSWER_CACHE_MAX_AGE_MS;
    this.now = options.now ?? Date.now;
  }

  /** The JSON text kept for `key`, while it is young enough. */
  get(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.at > this.maxAgeMs) {
      this.drop(key);
      return undefined;
    }
    return entry.json;
  }

  /** What to hand back to `set`: the answer is kept only if nothing changed since. */
  mark(): number {
    return this.generation;
  }

  /** Keeps an answer read since `mark` (dropped when a change came in between). */
  set(key: string, vaultId: string | null, json: string, mark: number): void {
    if (mark !== this.generation || json.length > this.maxBytes) return;
    this.drop(key);
    while (this.entries.size >= this.maxEntries || this.bytes + json.length > this.maxBytes) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.drop(oldest.value);
    }
    this.entries.set(key, { json, vaultId, at: this.now() });
    this.bytes += json.length;
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.bytes -= entry.json.length;
    this.entries.delete(key);
  }

  /** Forgets every answer about the vault, and any answer that names none (a wallet without one). */
  forgetVault(vaultId: string): void {
    this.generation++;
    for (const [key, entry] of this.entries)
      if (entry.vaultId === null || entry.vaultId === vaultId) this.drop(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.bytes = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Follows the bus: a vault's change forgets its answers, a block or a resync all of them. */
  follow(bus: EventBus): () => void {
    const unsubscribe = bus.subscribe((event) => {
      if (event.type === 'vault') this.forgetVault(event.data.vault_id);
      else if (event.type === 'block') this.clear();
    });
    const unresync = bus.onResync(() => this.clear());
    return () => {
      unsubscribe();
      unresync();
    };
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sends the answer kept for `key`, or reads it (`read`), serialises it as the route's own answer
 * schema does (reply.serialize: the same bytes as without the cache) and keeps it. An error (a
 * 404) is thrown as ever and never kept.
 */
export async function sendCachedAnswer(
  cache: AnswerCache | undefined,
  reply: FastifyReply,
  key: string,
  read: () => Promise<{ answer: unknown; vaultId: string | null }>,
): Promise<FastifyReply> {
  const kept = cache?.get(key);
  if (kept !== undefined) return reply.type(JSON_TYPE).send(kept);
  const mark = cache?.mark() ?? 0;
  const { answer, vaultId } = await read();
  const json = reply.serialize(answer) as string;
  cache?.set(key, vaultId, json, mark);
  return reply.type(JSON_TYPE).send(json);
}
