// The owner's exit as a test signs it: from what the chain holds and the vault key alone.
import { hex } from '@scure/base';
import { TEST_NETWORK } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import { parseStateRecordScript, parseTransaction, planExit, signExit } from '@unit/bitcoin';
import type { VaultRow } from '../../src/store';
import type { Harness, TestWallet } from './harness';

/**
 * The owner's exit of `row`, signed with its vault key alone, from what the chain holds, at
 * `feeRate` sat/vB (a higher one replaces a repossession waiting in the mempool).
 */
export async function signedExit(h: Harness, wallet: TestWallet, row: VaultRow, feeRate = 2) {
  // The opening's record carries the exit leaf's sibling: the chain alone gives the exit.
  const opening = parseTransaction((await h.chain.txHex(row.vault_txid))!);
  const record = [...Array(opening.outputsLength).keys()]
    .map((i) => parseStateRecordScript(opening.getOutput(i).script!))
    .find((r) => r !== null)!;
  const output = (await h.chain.output(row.vault_txid, row.vault_vout))!;
  const plan = planExit({
    vaultPubkey: pubSchnorr(wallet.vaultKey),
    exitHeight: row.exit_height!,
    exitBranch: record.term!.exitBranch,
    utxo: {
      ...{ txid: row.vault_txid, vout: row.vault_vout },
      ...{ script: hex.decode(output.script_hex), amount: BigInt(output.value) },
    },
    toAddress: wallet.paymentAddress,
    feeRate,
    tipHeight: (await h.chain.tip()).height,
    network: TEST_NETWORK,
  });
  return signExit(plan, wallet.vaultKey);
}
