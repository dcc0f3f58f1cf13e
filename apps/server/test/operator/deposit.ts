// A deposit to an opened vault, as the web app builds it, sent over the server's /guardian socket:
// the vault as the server's database has it, the new output at a fresh quote, signed by the owner.
import { randomBytes } from 'node:crypto';
import { base64, hex } from '@scure/base';
import { TEST_NETWORK } from '@scure/btc-signer';
import { buildDepositPsbt, quotedVault, signUserInputs, vaultOutput } from '@unit/bitcoin';
import { liquidationThresholdCents, sats, unitCents } from '@unit/protocol';
import { getVaultByPubkey } from '../../src/store';
import type { RunningApp } from '../support';
import { connect, type VaultOwner } from '../cluster/instances';

const FEE_RATE = 2;

export async function deposit(via: RunningApp, owner: VaultOwner, amount: bigint) {
  const row = await getVaultByPubkey(via.store.db, owner.vaultPubkey);
  if (!row) throw new Error('no vault for this key in the database');
  const output = (await via.chain.output(row.vault_txid, row.vault_vout))!;
  const guardPubkey = hex.decode(via.keys.guardPubkey);
  const vault = {
    txid: row.vault_txid,
    vout: row.vault_vout,
    value: BigInt(output.value),
    unitDebt: BigInt(row.unit_borrowed),
    output: vaultOutput({
      vaultPubkey: hex.decode(owner.vaultPubkey),
      guardPubkey,
      thresholdHash: via.oracle.thresholdHash(row.threshold_cents, Number(row.stamp)),
      network: TEST_NETWORK,
    }),
  };
  const th = liquidationThresholdCents(sats(vault.value + amount), unitCents(vault.unitDebt));
  const now = Math.floor(Date.now() / 1000);
  const quote = via.oracle.quote(th, now);
  const nonce = randomBytes(16);
  const built = buildDepositPsbt({
    wallet: owner.wallet,
    utxos: (await via.chain.paymentUtxos(owner.paymentAddress)).map((u) => ({
      txid: u.txid,
      vout: u.vout,
      value: BigInt(u.value),
      script: owner.wallet.satsScript,
    })),
    feeRate: FEE_RATE,
    ...quotedVault(
      quote,
      th,
      { nonce, expiry: now + 120 },
      { vaultPubkey: hex.decode(owner.vaultPubkey), guardPubkey, network: TEST_NETWORK },
    ),
    vault,
    depositAmount: amount,
  });
  // Input 0 is the vault (signed with the vault key), the others pay the fee.
  let psbt = built.psbt;
  for (const index of built.signInputs.user)
    psbt = signUserInputs(psbt, index === 0 ? owner.vaultKey : owner.paymentKey, [index]);
  const socket = await connect(via);
  try {
    return await socket.call('vault.deposit', {
      vault_pubkey: owner.vaultPubkey,
      nonce: hex.encode(nonce),
      expires_at: now + 120,
      quote: {
        price_cents: quote.price_cents,
        time: quote.time,
        th: quote.th,
        ts: quote.ts,
        signature: quote.signature,
      },
      psbt: base64.encode(psbt),
      payload: { deposit_amount: Number(amount), tx_feerate: FEE_RATE },
    });
  } finally {
    socket.close();
  }
}
