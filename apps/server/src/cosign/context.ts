// The guardian's dependencies and the identities derived once from its keys.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { pubSchnorr, type BTC_NETWORK } from '@scure/btc-signer/utils.js';
import { parseRuneId, type RuneId } from '@unit/bitcoin';
import {
  DEFAULT_TERM_CONFIG,
  UNIT_POSTAGE_SATS,
  type SignedQuote,
  type TermConfig,
} from '@unit/protocol';
import type { Chain } from '../chain/port';
import type { Database, FailedClaim } from '../store';
import { soleInstance, type GuardianInstance } from './ownership';
import { localSigner, type GuardianSigner } from './signer';
import { treasuryOutput } from './treasury-output';

export interface OracleForGuardian {
  verifyQuote(quote: SignedQuote): boolean;
  /** One per liquidation leaf: the guardians' with the network (oracle/network-oracles.ts). */
  thresholdHashes(thCents: bigint, stamp: number): Promise<Uint8Array[]>;
  revealSecret(thCents: bigint, stamp: number): Promise<Uint8Array | null>;
}

export interface PipelineDeps {
  db: Kysely<Database>;
  chain: Chain;
  oracle: OracleForGuardian;
  log: Logger;
  now: () => number;
  instance: GuardianInstance;
  /**
   * Told of each vault whose row changed, once the change is committed: this instance's cached
   * answers about it go at once (http/answer-cache.ts), before any event of the bus arrives.
   */
  vaultChanged: (vaultId: string) => void;
}

export interface GuardianDeps {
  db: Kysely<Database>;
  chain: Chain;
  oracle: OracleForGuardian;
  /** 32-byte secret of this server's own guard_pubkey: co-signs every vault spend unless `signer`. */
  guardianKey?: Uint8Array;
  /** Who co-signs instead (the guardian network, GUARDIAN_NETWORK local/external); default the key above. */
  signer?: GuardianSigner;
  /**
   * 32-byte secret of this server's treasury key: signs the treasury's UNIT input (key path) when
   * this server is the guardian. With the network the treasury is the group's (treasury-output.ts).
   */
  treasuryKey: Uint8Array;
  /** btc-signer network (TEST_NETWORK on the devnet). */
  network: BTC_NETWORK;
  /** `block:tx` of the UNIT rune. */
  unitRuneId: string;
  log: Logger;
  /** unix seconds */
  now: () => number;
  /** UNIT postage in sats; CONSTANTS.md default 10,000. */
  postageSats?: number;
  /** This server among the others on the database (cluster/); alone by default. */
  instance?: GuardianInstance;
  /** The term a new vault output's must be (VAULT_TERM_BLOCKS, ...); default the year's. */
  vaultTerm?: TermConfig;
  /** See PipelineDeps.vaultChanged; nothing by default. */
  vaultChanged?: (vaultId: string) => void;
  /**
   * Told of each vault a block closed with no request of ours (its owner's exit, exits.ts), once
   * committed: the app announces it to the browsers that show it. Nothing by default.
   */
  vaultClosed?: (vaultId: string) => void;
  /** Told of each repossession a block showed can never be mined, once settled. Nothing by default. */
  claimFailed?: (claim: FailedClaim) => void;
}

export interface GuardianContext extends PipelineDeps {
  signer: GuardianSigner;
  treasuryKey: Uint8Array;
  network: BTC_NETWORK;
  guardPubkey: Uint8Array;
  /** Every key a vault input may commit to, newest (guardPubkey) first: rotation (signer.ts). */
  guardPubkeys: readonly Uint8Array[];
  treasuryPubkey: Uint8Array;
  treasuryScript: Uint8Array;
  treasuryAddress: string;
  runeId: RuneId;
  postageSats: number;
  vaultTerm: TermConfig;
}

export function guardianContext(deps: GuardianDeps): GuardianContext {
  const signer = deps.signer ?? (deps.guardianKey && localSigner(deps.guardianKey));
  if (!signer) throw new Error('the guardian needs a signer or its own key');
  // This server's treasury key, or the guardian network's group key (treasury-output.ts).
  const isGroupKey = signer.kind === 'network';
  // After a rotation the treasury stays under the first set's key until moved (signer.ts).
  const older = signer.olderGuardPubkeys ?? [];
  const treasuryPubkey = isGroupKey
    ? (signer.treasuryPubkey ?? older[0] ?? signer.guardPubkey)
    : pubSchnorr(deps.treasuryKey);
  const treasury = treasuryOutput({ pubkey: treasuryPubkey, isGroupKey }, deps.network);
  return {
    db: deps.db,
    chain: deps.chain,
    oracle: deps.oracle,
    log: deps.log,
    now: deps.now,
    instance: deps.instance ?? soleInstance(),
    vaultChanged: deps.vaultChanged ?? (() => undefined),
    signer,
    treasuryKey: deps.treasuryKey,
    network: deps.network,
    guardPubkey: signer.guardPubkey,
    guardPubkeys: [signer.guardPubkey, ...[...older].reverse()],
    treasuryPubkey,
    treasuryScript: treasury.script,
    treasuryAddress: treasury.address,
    runeId: parseRuneId(deps.unitRuneId),
    vaultTerm: deps.vaultTerm ?? DEFAULT_TERM_CONFIG,
    postageSats: deps.postageSats ?? UNIT_POSTAGE_SATS,
  };
}
