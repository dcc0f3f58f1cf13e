// The guardian sets' history for GET /api/network's `history`: every set of the verified chain,
// newest first, with what it changed from the set before it. The kind of change is read from the
// sets themselves, so nobody's word is needed: another group key is a rotation; the same key with
// the same FROST package is a repair (only a lost share was rebuilt, perhaps under a new identity
// key at its seat); the same key, members and identity keys with a new package is a refresh; the
// same key otherwise is a resharing.
import type { GuardianSet } from '@unit/guardian-net';
import type { NetworkHistoryEntryDto } from '@unit/protocol/wire';

const fingerprintOf = (identityKey: string) => identityKey.slice(0, 16).toLowerCase();

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function changeOf(
  set: GuardianSet,
  before: GuardianSet | undefined,
): NetworkHistoryEntryDto['change'] {
  if (!before) return 'created';
  if (set.groupKey !== before.groupKey) return 'rotation';
  if (sameJson(set.frost, before.frost)) return 'repair';
  const keys = (s: GuardianSet) => s.members.map((m) => `${m.id}:${m.identityKey}`).join();
  return keys(set) === keys(before) && set.t === before.t ? 'refresh' : 'reshare';
}

/**
 * `chain`: the verified sets, oldest first. `publishedAt(version)`: unix seconds when the set's
 * file reached the server's directory, or null. `signing(version)`: whether its guardians still
 * sign for it.
 */
export function setHistory(
  chain: readonly GuardianSet[],
  publishedAt: (version: number) => number | null,
  signing: (version: number) => boolean,
): NetworkHistoryEntryDto[] {
  return chain
    .map((set, i): NetworkHistoryEntryDto => {
      const before = i > 0 ? chain[i - 1] : undefined;
      const had = new Set(before?.members.map((m) => m.identityKey) ?? []);
      const has = new Set(set.members.map((m) => m.identityKey));
      return {
        set_version: set.version,
        change: changeOf(set, before),
        replaces: before?.version ?? null,
        threshold: set.t,
        size: set.n,
        group_key: set.groupKey ?? '',
        members: set.members.map((m) => ({
          id: m.id,
          name: m.name,
          fingerprint: fingerprintOf(m.identityKey),
        })),
        joined: before ? set.members.filter((m) => !had.has(m.identityKey)).map((m) => m.name) : [],
        left: before?.members.filter((m) => !has.has(m.identityKey)).map((m) => m.name) ?? [],
        published_at: publishedAt(set.version),
        signing: signing(set.version),
      };
    })
    .reverse();
}
