// What the reindex (reindex.ts) needs to rebuild a vault's current output exactly: the guardian key
// and the liquidation hashes its leaves commit to. The output's taproot key commits to every leaf,
// so a candidate (key, hashes) is accepted only when `vaultOutput` of it is the output's script,
// byte for byte: a wrong list cannot be accepted, only not found.
// - `off`: the server's own key and its oracle's one hash, re-derived from the oracle key.
// - The network: after a lost database, the hashes' settings rows (network-oracles.ts) are gone
//   too. A vault commits to the hashes of one to three guardians, ids ascending, and to the key of
//   the set it last acted under (an unmoved vault: an older set's). Each guardian's hash is a
//   function of its own oracle secret and (threshold, stamp), so the reindex asks every member of
//   every set of the chain for its signed hash of the vault's (threshold, stamp) (`/v1/oracle/hash`,
//   the statement checked against the identity key of the set it names), then tries each
//   id-ascending list of those hashes under each set's key, newest first. A guardian replaced in a
//   rotation keeps its hash only in its own old directory: a vault that committed to it is
//   rebuilt once that guardian answers (`npm run reindex` again), and is never guessed.
import { hex } from '@scure/base';
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js';
import type { Kysely } from 'kysely';
import { vaultOutput } from '@unit/bitcoin';
import { VAULT_MAX_ORACLE_COUNT, type VaultTerm } from '@unit/protocol';
import {
  ORACLE_HASH_PATH,
  oracleHashProblem,
  parseOracleHashStatement,
  readPublic,
  type GuardianSet,
  type OracleCommitment,
  type OracleHashStatement,
  type PublicTarget,
} from '@unit/guardian-net';
import { treasuryOutput } from '../cosign/treasury-output';
import { oracleHashesKey } from '../oracle/network-oracles';
import type { ServerConfig } from '../config';
import { loadGuardianNetwork } from '../network-client/set-chain';
import type { Database } from '../store/schema';
import { getSetting } from '../store/settings';

/** A vault's current output as the chain shows it, and the (threshold, stamp) of its record. */
export interface VaultOnChain {
  vaultPubkey: Uint8Array;
  thCents: bigint;
  stamp: number;
  /** Layout 2: the term its record carries; absent for layout 1. */
  term?: VaultTerm;
  /** hex */
  script: string;
}

export interface ProvenLeaves {
  guardPubkey: Uint8Array;
  hashes: Uint8Array[];
  /** With the network: the settings row network-oracles.ts reads for (threshold, stamp). */
  commitment: OracleCommitment | null;
}

export interface VaultLeaves {
  /** The key and hashes whose output is exactly `vault.script`, or why none was found. */
  prove(vault: VaultOnChain): Promise<ProvenLeaves | { problem: string }>;
}

const rebuilds = (
  vault: VaultOnChain,
  guardPubkey: Uint8Array,
  hashes: Uint8Array[],
  network: BTC_NETWORK,
) =>
  hex.encode(
    vaultOutput({
      vaultPubkey: vault.vaultPubkey,
      guardPubkey,
      thresholdHash: hashes,
      network,
      ...(vault.term ? { term: vault.term } : {}),
    }).script,
  ) === vault.script;

/** `off`: one key, one hash from the server's own oracle secret. */
export function ownLeaves(o: {
  guardPubkey: Uint8Array;
  thresholdHash: (thCents: bigint, stamp: number) => Uint8Array;
  network: BTC_NETWORK;
}): VaultLeaves {
  return {
    prove(vault) {
      const hashes = [o.thresholdHash(vault.thCents, vault.stamp)];
      return Promise.resolve(
        rebuilds(vault, o.guardPubkey, hashes, o.network)
          ? { guardPubkey: o.guardPubkey, hashes, commitment: null }
          : { problem: 'this vault was not made with these keys' },
      );
    },
  };
}

const MAX_ANSWER_BYTES = 4 * 1024;

/** One oracle's verified hash of the vault's (threshold, stamp). */
interface Candidate {
  statement: OracleHashStatement;
}

export interface NetworkLeavesOptions {
  /** The chain of sets, any order (set-chain.ts: `[...older, set]`). */
  sets: readonly GuardianSet[];
  db: Kysely<Database>;
  network: BTC_NETWORK;
  /** per guardian call */
  timeoutMs?: number;
}

/** The guardians' oracles of every set in the chain, and every set's key (newest first). */
export class NetworkLeaves implements VaultLeaves {
  private readonly sets: GuardianSet[];
  private readonly timeoutMs: number;
  /** Guardians that gave no answer in time: not asked again in this run (their vaults wait). */
  private readonly silent = new Set<string>();

  constructor(private readonly o: NetworkLeavesOptions) {
    this.sets = [...o.sets].sort((a, b) => b.version - a.version);
    this.timeoutMs = o.timeoutMs ?? 3_000;
  }

  async prove(vault: VaultOnChain): Promise<ProvenLeaves | { problem: string }> {
    // A database that kept its settings rows (a reindex of vault rows alone) has the list already.
    const stored = await getSetting(this.o.db, oracleHashesKey(vault.thCents, vault.stamp));
    if (stored !== null) {
      const commitment = JSON.parse(stored) as OracleCommitment;
      const found = this.match(vault, [commitment.hashes.map((h) => hex.decode(h))]);
      if (found) return { ...found, commitment };
    }
    const { candidates, problems } = await this.ask(vault);
    const lists = idAscendingLists(candidates);
    const found = this.match(
      vault,
      lists.map((list) => list.map((c) => hex.decode(c.statement.hash))),
    );
    if (!found)
      return {
        problem:
          `no list of the guardians' threshold hashes under any set's key rebuilds this vault's output` +
          (problems.length ? ` (${problems.join('; ')})` : ''),
      };
    const statements = lists[found.index]!.map((c) => c.statement);
    return {
      guardPubkey: found.guardPubkey,
      hashes: found.hashes,
      commitment: { hashes: statements.map((s) => s.hash), statements },
    };
  }

  /** The first list (in order) and key (newest first) whose output is the vault's. */
  private match(vault: VaultOnChain, lists: Uint8Array[][]) {
    for (const set of this.sets) {
      const guardPubkey = hex.decode(set.groupKey!);
      for (let index = 0; index < lists.length; index++)
        if (rebuilds(vault, guardPubkey, lists[index]!, this.o.network))
          return { guardPubkey, hashes: lists[index]!, index };
    }
    return null;
  }

  /**
   * Every member of every set, by distinct URL and identity key (the key its certificate must be
   * bound to), asked at once; only verified statements count.
   */
  private async ask(vault: VaultOnChain) {
    const th = Number(vault.thCents);
    const urls = new Map<string, { member: PublicTarget; name: string }>();
    for (const set of this.sets)
      for (const m of set.members)
        if (!urls.has(`${m.url} ${m.identityKey}`))
          urls.set(`${m.url} ${m.identityKey}`, { member: m, name: `${m.name} of set ${set.version}` }); // prettier-ignore
    const problems: string[] = [];
    const candidates: Candidate[] = [];
    await Promise.all(
      [...urls.values()].map(async ({ member, name }) => {
        const { url } = member;
        if (this.silent.has(url)) {
          problems.push(`${name}: no answer in time earlier in this reindex`);
          return;
        }
        try {
          const statement = await this.askOne(member, th, vault.stamp);
          if (
            !candidates.some(
              (c) =>
                c.statement.guardian === statement.guardian && c.statement.hash === statement.hash,
            )
          )
            candidates.push({ statement });
        } catch (error) {
          const e = error as Error & { cause?: { code?: string } };
          if (e.name === 'TimeoutError') this.silent.add(url);
          const reason =
            e.name === 'TimeoutError'
              ? 'no answer in time'
              : e.cause?.code
                ? `unreachable (${e.cause.code})`
                : e.message;
          problems.push(`${name}: ${reason}`);
        }
      }),
    );
    return { candidates, problems: problems.sort() };
  }

  private async askOne(member: PublicTarget, th: number, ts: number): Promise<OracleHashStatement> {
    const res = await readPublic(member, `${ORACLE_HASH_PATH}?th=${th}&ts=${ts}`, {
      timeoutMs: this.timeoutMs,
      maxBytes: MAX_ANSWER_BYTES,
    });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    const statement = parseOracleHashStatement(res.body);
    // A guardian signs for the newest set it holds: checked against that set's member of its id.
    const set = this.sets.find((s) => s.version === statement.setVersion);
    if (!set) throw new Error(`signed for set version ${statement.setVersion}, not in the chain`);
    const problem = oracleHashProblem(set, statement, th, ts);
    if (problem) throw new Error(problem);
    return statement;
  }
}

/** Every list of 1 to VAULT_MAX_ORACLE_COUNT candidates, guardian ids strictly ascending, longest first. */
export function idAscendingLists(candidates: readonly Candidate[]): Candidate[][] {
  const sorted = [...candidates].sort((a, b) => a.statement.guardian - b.statement.guardian);
  const lists: Candidate[][] = [];
  const extend = (list: Candidate[], from: number) => {
    if (list.length > 0) lists.push(list);
    if (list.length === VAULT_MAX_ORACLE_COUNT) return;
    const last = list.at(-1)?.statement.guardian ?? 0;
    for (let i = from; i < sorted.length; i++)
      if (sorted[i]!.statement.guardian > last) extend([...list, sorted[i]!], i + 1);
  };
  extend([], 0);
  return lists.sort((a, b) => b.length - a.length);
}

/** The network's leaves for the chain of sets in GUARDIAN_DIR (verified as at the server's start). */
export function networkLeavesOf(
  config: Pick<ServerConfig, 'guardianNetwork'>,
  db: Kysely<Database>,
  network: BTC_NETWORK,
): NetworkLeaves {
  const files = loadGuardianNetwork(config.guardianNetwork.dir);
  return new NetworkLeaves({ sets: [...files.older, files.set], db, network });
}

/** Every treasury address of the chain of sets: the treasury is one set's group key at a time. */
export function networkTreasuryAddresses(
  config: Pick<ServerConfig, 'guardianNetwork'>,
  network: BTC_NETWORK,
): string[] {
  const files = loadGuardianNetwork(config.guardianNetwork.dir);
  return [...files.older, files.set].map(
    (set) =>
      treasuryOutput({ pubkey: hex.decode(set.groupKey!), isGroupKey: true }, network).address,
  );
}
