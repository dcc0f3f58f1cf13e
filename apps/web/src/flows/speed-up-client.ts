// vault.speedup from the page: the replacement of a pending vault transaction at a higher fee,
// signed by the wallet for its own inputs and co-signed by the guardian (cosign/speedup.ts).
import { base64 } from '@scure/base';
import { addressToScript, planSpeedUp, type OriginalPrevout } from '@unit/bitcoin';
import { getJson, joinUrl } from '../api/http';
import { WalletError } from '../wallet';
import type { FlowTarget } from './declarations';
import type { FlowResultIds } from './engine';
import type { ExecuteContext, OnProgress } from './flow-types';
import { bitcoinNetwork, connect, walletKeysOf, paymentUtxos } from './client-reads';
import { treasuryInternalKey } from './treasury-key';

/** Esplora's plain-text answers (a raw transaction's hex). */
async function getText(url: string): Promise<string> {
  const res = await fetch(new URL(url, window.location.href));
  if (!res.ok)
    throw new Error(
      res.status === 404 ? 'Transaction not found' : `Request failed (${res.status})`,
    );
  return (await res.text()).trim();
}

/** The signed transaction and its inputs' prevouts, as esplora serves them. */
interface EsploraTxDto {
  vin: OriginalPrevout[];
  status: { confirmed: boolean };
}

/**
 * Speed-up (BIP-125): the wallet signs a replacement of its pending vault transaction that pays
 * `feeRate`, built from the original as the chain has it (its inputs, its fixed outputs, the leaf
 * its witness spent); the guardian co-signs it only if nothing but the fee changed.
 */
export async function runSpeedUp(
  target: Extract<FlowTarget, { kind: 'speedup' }>,
  feeRate: number,
  onProgress: OnProgress,
  { config, wallet }: ExecuteContext,
): Promise<FlowResultIds> {
  const account = wallet.account;
  if (!account) throw new WalletError('no_accounts', 'No accounts');
  onProgress(1);
  const network = bitcoinNetwork(config);
  const walletKeys = walletKeysOf(account, network);
  const [tx, rawHex] = await Promise.all([
    getJson<EsploraTxDto>(joinUrl(config.esploraUrl, `tx/${target.txid}`)),
    getText(joinUrl(config.esploraUrl, `tx/${target.txid}/hex`)),
  ]);
  if (tx.status.confirmed) throw new Error('This transaction is already confirmed');
  // The planner: nothing to reserve, no quote, the replacement PSBT from the original.
  const plan = planSpeedUp({
    action: target.action,
    originalTxid: target.txid,
    originalHex: rawHex,
    vin: tx.vin,
    vaultPubkey: account.vaultPubkey,
    wallet: walletKeys,
    treasury: {
      // The treasury's address as the server serves it (its key's P2TR, or the group key's).
      script: addressToScript(config.treasuryAddress, network),
      ...treasuryInternalKey(config),
    },
    utxos: await paymentUtxos(config, account, walletKeys.satsScript),
    feeRate,
  });
  const signed = await wallet.signPsbt(base64.encode(plan.built.psbt), {
    signInputs: plan.built.signInputs.user,
  });
  onProgress(2);
  const rpc = await connect(config.guardianUrl);
  try {
    onProgress(3);
    const result = await rpc.call('vault.speedup', plan.request(signed));
    onProgress(4);
    return { txid: result.vault_txid, vaultTxid: result.vault_txid, replacedTxid: target.txid };
  } finally {
    rpc.close();
  }
}
