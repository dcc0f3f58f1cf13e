// Which set the server's treasury is under after a rotation: the first set's until `operator
// treasury move` records another, that one after, and a recorded set the chain on disk lacks stops
// the start (a real SQLite database; the sets are only their versions and keys).
import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { GuardianSet } from '@unit/guardian-net';
import { openStore } from '../store/open';
import { migrateToLatest } from '../store/migrations';
import { guardianMigrations } from '../cosign';
import { devnetMigrations } from '../devnet/migrations';
import { accountMigrations } from '../auth/migrations';
import { rateLimitMigrations } from '../http/shared-rate-limits';
import { recordTreasurySet, treasurySetOf } from './treasury-set';

const set = (version: number) =>
  ({ version, groupKey: String(version).repeat(64) }) as unknown as GuardianSet;
const dirs: string[] = [];

async function database() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-treasury-set-'));
  dirs.push(dir);
  const store = await openStore({ file: path.join(dir, 'unit.db') });
  await migrateToLatest(store.db, {
    ...devnetMigrations,
    ...guardianMigrations,
    ...accountMigrations,
    ...rateLimitMigrations,
  });
  return store;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the treasury's guardian set", () => {
  it('is the first set until a move records another, then that one', async () => {
    const store = await database();
    try {
      const chain = [set(1), set(2), set(3)];
      expect((await treasurySetOf(store.db, chain)).version).toBe(1);
      await recordTreasurySet(store.db, set(2));
      expect((await treasurySetOf(store.db, chain)).version).toBe(2);
      await recordTreasurySet(store.db, set(3));
      expect((await treasurySetOf(store.db, chain)).version).toBe(3);
    } finally {
      await store.close();
    }
  });

  it('refuses a chain that lacks the recorded set (the old network’s directory again)', async () => {
    const store = await database();
    try {
      await recordTreasurySet(store.db, set(2));
      await expect(treasurySetOf(store.db, [set(1)])).rejects.toThrow(
        /moved to guardian set 2 \(group key 2{64}\), which the chain of sets in GUARDIAN_DIR does not hold/,
      );
      // Same version, another key: not the set the treasury was moved to.
      const other = { ...set(2), groupKey: 'f'.repeat(64) } as GuardianSet;
      await expect(treasurySetOf(store.db, [set(1), other])).rejects.toThrow(
        /moved to guardian set 2/,
      );
    } finally {
      await store.close();
    }
  });
});
