// The vault the exit tests leave by its exit leaf: layout 2 with a term, holding 90,000 sats and no
// debt after a deposit, and the transaction that made it as an esplora answers it (the vault output
// at 0, its state record at 1).
import { hex } from '@scure/base';
import { TEST_NETWORK } from '@scure/btc-signer';
import { stateRecordScript } from '../src/state-record';
import { thresholdHash, vaultOutput } from '../src/vault-script';

export const EXIT_VAULT_SATS = 90_000;

export interface ExitVaultKeys {
  vaultPubkey: Uint8Array;
  guardPubkey: Uint8Array;
  /** the threshold secret whose hash the liquidation leaf commits to */
  secret: Uint8Array;
}

/** The vault of `keys` with `term`, and the esplora's answer for its transaction `txid`. */
export function exitVault(
  keys: ExitVaultKeys,
  term: { settleHeight: number; exitHeight: number },
  txid: string,
) {
  const { vaultPubkey, guardPubkey, secret } = keys;
  const network = TEST_NETWORK;
  const vault = vaultOutput({ vaultPubkey, guardPubkey, thresholdHash: thresholdHash(secret), network, term }); // prettier-ignore
  const record = stateRecordScript({
    action: 'd',
    unitDebt: 0n,
    vaultSats: BigInt(EXIT_VAULT_SATS),
    quotePriceCents: 1n,
    thresholdCents: 0n,
    quoteStamp: 1,
    nonce: new Uint8Array(16),
    expiry: 2,
    term: { ...term, exitBranch: vault.exitBranch! },
  });
  const tx = {
    txid,
    vout: [
      {
        scriptpubkey: hex.encode(vault.script),
        scriptpubkey_address: vault.address,
        value: EXIT_VAULT_SATS,
      },
      { scriptpubkey: hex.encode(record), value: 0 },
    ],
    status: { confirmed: true },
  };
  return { vault, record, tx };
}
