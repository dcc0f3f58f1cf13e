// A deposit to an opened vault, as the web app builds it, sent over the server's /guardian socket:
// the vault as the server's database has it, the new output at a fresh quote, built by the
// `deposit` declaration of @unit/bitcoin and signed by the owner into the request envelope, as the
// cluster helpers do (test/cluster/instances.ts).
import { randomBytes } from 'node:crypto';
import { base64, hex } from '@scure/base';
import { TEST_NETWORK } from '@scure/btc-signer';
import { deposit as depositAction, quotedVault, signUserInputs, vaultOutput } from '@unit/bitcoin';
import { liquidationThresholdCents, sats, unitCents } from '@unit/protocol';
import { draftEnvelope, signVaultRequest } from '@unit/protocol/wire';
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
  const draft = draftEnvelope(now, 120, randomBytes);
  const built = depositAction.build({
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
      { nonce: draft.nonce, expiry: draft.expiresAt },
      { vaultPubkey: hex.decode(owner.vaultPubkey), guardPubkey, network: TEST_NETWORK },
    ),
    vault,
    btc: amount,
    unit: 0n,
  });
  // The vault input is signed with the vault key, the others pay the fee.
  const vaultIndex = depositAction.spends.findIndex((input) => input.role === 'vault');
  const params = await signVaultRequest({
    draft,
    vaultPubkey: owner.vaultPubkey,
    quote,
    psbt: base64.encode(built.psbt),
    sign: (unsigned) => {
      let psbt = base64.decode(unsigned);
      for (const index of built.signInputs.user)
        psbt = signUserInputs(psbt, index === vaultIndex ? owner.vaultKey : owner.paymentKey, [
          index,
        ]);
      return base64.encode(psbt);
    },
    payload: depositAction.payload({ btc: amount, unit: 0n, feeRate: FEE_RATE }),
  });
  const socket = await connect(via);
  try {
    return await socket.call('vault.deposit', params);
  } finally {
    socket.close();
  }
}
