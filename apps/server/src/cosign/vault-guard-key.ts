// The guardian key a vault's current output commits to, as /api/vaults and /api/liquidations serve
// it (`guard_pubkey`):
// the newest set's for every vault opened or moved since the last rotation, an older set's for a
// vault that has not acted since (docs/protocol.md, "Guardian rotation"). The web app builds the
// vault's input leaf with it and the action's new vault output with /api/config's `guardPubkey`, so
// the action moves the vault. Before any rotation there is one key and nothing is read.
import { hex } from '@scure/base';
import { equalBytes } from '@scure/btc-signer/utils.js';
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js';
import { vaultOutput } from '@unit/bitcoin';
import type { Chain } from '../chain/port';
import { termOf, type VaultRow } from '../store';

export interface VaultKeyDeps {
  chain: Pick<Chain, 'output'>;
  /** One per liquidation leaf (the guardians' with the network). */
  thresholdHashes(thCents: bigint, stamp: number): Promise<Uint8Array[]>;
  network: BTC_NETWORK;
  /** Newest first. */
  guardPubkeys: readonly Uint8Array[];
}

/** What the key is read from: a vault row, or a liquidation's entry (its vault's output). */
export type VaultKeyRow = Pick<
  VaultRow,
  'vault_txid' | 'vault_vout' | 'vault_pubkey' | 'threshold_cents' | 'stamp'
> &
  Partial<Pick<VaultRow, 'settle_height' | 'exit_height'>>;

/** Outpoints whose key is known: an output's script never changes. */
const CACHE_LIMIT = 10_000;

/** `(row) => x-only hex`, remembering each outpoint's answer. */
export function vaultGuardKeyOf(deps: VaultKeyDeps): (row: VaultKeyRow) => Promise<string> {
  const newest = hex.encode(deps.guardPubkeys[0]!);
  const known = new Map<string, string>();
  return async (row) => {
    if (deps.guardPubkeys.length === 1) return newest;
    const outpoint = `${row.vault_txid}:${row.vault_vout}`;
    const cached = known.get(outpoint);
    if (cached) return cached;
    const output = await deps.chain.output(row.vault_txid, row.vault_vout);
    // Not on this chain view yet: a vault's output is the newest key's unless it is older.
    if (!output) return newest;
    const script = hex.decode(output.script_hex);
    const thresholdHash = await deps.thresholdHashes(BigInt(row.threshold_cents), row.stamp);
    const key = deps.guardPubkeys.find((guardPubkey) =>
      equalBytes(
        script,
        vaultOutput({
          vaultPubkey: hex.decode(row.vault_pubkey),
          guardPubkey,
          thresholdHash,
          network: deps.network,
          ...termOf(row),
        }).script,
      ),
    );
    const answer = key ? hex.encode(key) : newest;
    if (known.size >= CACHE_LIMIT) known.clear();
    if (key) known.set(outpoint, answer);
    return answer;
  };
}
