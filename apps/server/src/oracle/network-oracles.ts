// With the guardian network (GUARDIAN_NETWORK local/external) the guardians are the oracles: a
// vault's liquidation leaves commit to the threshold hashes of the first three guardians, by id,
// that answer at quote time (at least min(t, 3): @unit/guardian-net oracleCount), and a
// liquidation's secret comes from whichever guardian sees its own price at or under the threshold. The server's own oracle
// secret plays no part. The hashes of a (threshold, stamp) are kept: in memory (concurrent callers
// share one read), and in the database once a vault action used them, so a vault stays spendable
// while one oracle is down or after a restart.
import { hex } from '@scure/base';
import type { Kysely } from 'kysely';
import {
  collectOracleHashes,
  fetchOracleSecret,
  OracleUnavailableError,
  type GuardianSetBody,
  type OracleCommitment,
} from '@unit/guardian-net';
import type { ServerConfig } from '../config';
import { DomainError } from '../errors';
import { loadGuardianNetwork } from '../network-client/network-signer';
import type { Database } from '../store/schema';
import { getSetting, oracleHashesKey, putSetting } from '../store/settings';

/** How many (threshold, stamp) commitments stay in memory; the oldest go first. */
const MEMORY_ENTRIES = 10_000;
const key = (th: number, ts: number) => `${th}:${ts}`;
export { oracleHashesKey } from '../store/settings';

export interface NetworkOraclesOptions {
  set: Pick<GuardianSetBody, 'members' | 'version' | 't'>;
  db: Kysely<Database>;
  /** per oracle call */
  timeoutMs?: number;
}

export class NetworkOracles {
  private readonly memory = new Map<string, Promise<OracleCommitment>>();
  /** The (th, stamp) this process has stored, so a vault's every action writes its row once. */
  private readonly kept = new Set<string>();
  private readonly timeoutMs: number;

  constructor(private readonly o: NetworkOraclesOptions) {
    this.timeoutMs = o.timeoutMs ?? 3_000;
  }

  /**
   * The oracles' hashes of (th, ts) with their statements. `keep`: a vault action commits to them,
   * so they are stored (the quote route, which anyone may call, stores nothing).
   */
  async commitment(th: number, ts: number, keep = false): Promise<OracleCommitment> {
    const k = key(th, ts);
    let pending = this.memory.get(k);
    if (!pending) {
      pending = this.read(th, ts);
      this.memory.set(k, pending);
      if (this.memory.size > MEMORY_ENTRIES) this.memory.delete(this.memory.keys().next().value!);
      // A failed read is not kept: the next caller asks again.
      pending.catch(() => this.memory.delete(k));
    }
    const commitment = await pending;
    if (keep && !this.kept.has(k)) {
      await putSetting(this.o.db, oracleHashesKey(th, ts), JSON.stringify(commitment));
      this.kept.add(k);
      if (this.kept.size > MEMORY_ENTRIES) this.kept.delete(this.kept.values().next().value!);
    }
    return commitment;
  }

  private async read(th: number, ts: number): Promise<OracleCommitment> {
    const stored = await getSetting(this.o.db, oracleHashesKey(th, ts));
    if (stored !== null) return JSON.parse(stored) as OracleCommitment;
    try {
      return await collectOracleHashes(this.o.set, th, ts, this.timeoutMs);
    } catch (error) {
      if (error instanceof OracleUnavailableError)
        throw new DomainError('guardians_refused', error.message);
      throw error;
    }
  }

  async hashes(th: number, ts: number): Promise<Uint8Array[]> {
    return (await this.commitment(th, ts, true)).hashes.map((h) => hex.decode(h));
  }

  /** A secret that opens one of the vault's hashes, from an oracle whose own price allows; else null. */
  async secret(th: number, ts: number): Promise<Uint8Array | null> {
    if (th <= 0) return null;
    const { hashes } = await this.commitment(th, ts, true);
    const { revealed } = await fetchOracleSecret(this.o.set, th, ts, hashes, this.timeoutMs);
    return revealed?.secret ?? null;
  }
}

/** The oracles of the set in GUARDIAN_DIR (verified as the signer verified it at start). */
export function networkOraclesOf(
  config: Pick<ServerConfig, 'guardianNetwork'>,
  db: Kysely<Database>,
): NetworkOracles {
  return new NetworkOracles({ set: loadGuardianNetwork(config.guardianNetwork.dir).set, db });
}
