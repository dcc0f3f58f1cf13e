// The vault the settlement tests settle: layout 2 with a term, under two guardian sets' keys, and a
// settlement request of it paying the treasury's key.
import { p2tr, TEST_NETWORK } from '@scure/btc-signer';
import type { SettlementRequest } from '../src/term-settlement';
import { thresholdHash, vaultOutput } from '../src/vault-script';
import { fakeTxid, guardianKey, testKey, treasuryKey, userKey } from './testKeys';

export const TERM = { settleHeight: 5_000, exitHeight: 5_020 };

export const termedVault = vaultOutput({
  vaultPubkey: userKey.xOnly,
  guardPubkey: [guardianKey.xOnly, testKey('guardian set 2').xOnly],
  thresholdHash: thresholdHash(new Uint8Array(32).fill(1)),
  network: TEST_NETWORK,
  term: TERM,
});

export const treasuryScript = p2tr(treasuryKey.xOnly, undefined, TEST_NETWORK).script;

/** A settlement of slot 0 of the vault, at output `vout` of transaction n° `tx`. */
export function settlementOf(
  utxo: { tx: number; vout: number; amount: bigint },
  terms: Pick<SettlementRequest, 'debtCents' | 'priceCents' | 'feeRate'>,
): SettlementRequest {
  return {
    vault: termedVault,
    slot: 0,
    utxo: { txid: fakeTxid(utxo.tx), vout: utxo.vout, amount: utxo.amount },
    ...terms,
    treasuryScript,
  };
}
