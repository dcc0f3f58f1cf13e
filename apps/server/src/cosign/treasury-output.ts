// Where the treasury's UNIT lives: one rule for everything that finds or pays it (the guardian's
// context, the devnet's genesis and faucet, reservations, the reindex, /api/config, the operator).
// With this server's own treasury key (GUARDIAN_NETWORK off) it is the key-path P2TR output of
// that key (docs/protocol.md, Keys). With the guardian network it is `OP_1 <group key>` exactly:
// noble's DKG group key already is a BIP-341 output key with no script tree, so no further tweak,
// and only t guardians can sign its key path.
import { Address, OutScript, p2tr } from '@scure/btc-signer';
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js';

export interface TreasuryKey {
  /** x-only: this server's treasury key (internal key), or the group key (output key). */
  pubkey: Uint8Array;
  /** true when `pubkey` is the guardian network's group key, already the output key. */
  isGroupKey: boolean;
}

export interface TreasuryOutput {
  script: Uint8Array;
  address: string;
}

export function treasuryOutput(key: TreasuryKey, network: BTC_NETWORK): TreasuryOutput {
  if (!key.isGroupKey) {
    const out = p2tr(key.pubkey, undefined, network);
    return { script: out.script, address: out.address! };
  }
  const script = OutScript.encode({ type: 'tr', pubkey: key.pubkey });
  return { script, address: Address(network).encode({ type: 'tr', pubkey: key.pubkey }) };
}

/** The same rule from the served keys' hex (store/keys.ts `GuardianKeys`). */
export function treasuryOutputOf(
  keys: { treasuryPubkey: string; treasuryIsGroupKey?: boolean },
  network: BTC_NETWORK,
): TreasuryOutput {
  return treasuryOutput(
    {
      pubkey: Buffer.from(keys.treasuryPubkey, 'hex'),
      isGroupKey: keys.treasuryIsGroupKey === true,
    },
    network,
  );
}
