// The co-signing bench's fixed vault spend: a vault whose guard_pubkey is a single guardian's key or
// the network's group key, and a spend of its update leaf that the user has already signed, as the
// PSBT bytes the server's `cosign` receives with the chain's prevouts.
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { TEST_NETWORK, Transaction, p2wpkh } from '@scure/btc-signer';
import { thresholdHash, vaultOutput, type InputRole, type Prevout } from '@unit/bitcoin';

/** The declaration's one fixed input of a vault spend (docs/protocol.md). */
export const VAULT_INPUT: InputRole = {
  role: 'vault',
  name: 'vault',
  kind: 'vault-update',
  signers: ['user', 'guardian'],
};

export interface FixedSpend {
  psbt: Uint8Array;
  prevouts: Prevout[];
}

export function fixedSpend(guardPubkey: Uint8Array): FixedSpend {
  const user = schnorr.keygen();
  const vault = vaultOutput({
    vaultPubkey: user.publicKey,
    guardPubkey,
    thresholdHash: thresholdHash(new Uint8Array(32).fill(9)),
    network: TEST_NETWORK,
  });
  const prevouts = [{ script: vault.script, amount: 500_000n }];
  const tx = new Transaction();
  tx.addInput({
    txid: new Uint8Array(32).fill(4),
    index: 0,
    witnessUtxo: prevouts[0]!,
    tapLeafScript: [vault.tapLeafScript.find(([, s]) => s.length === 69)!],
  });
  tx.addOutput({
    script: p2wpkh(secp256k1.keygen().publicKey, TEST_NETWORK).script,
    amount: 499_000n,
  });
  tx.signIdx(user.secretKey, 0);
  return { psbt: tx.toPSBT(0), prevouts };
}
