// The runner over recorded I/O (the edge of this unit), and the speed-up plan over a deposit sent at
// 1 sat/vB, with figures worked out by hand (weights as in plan.test.ts).
import { base64, hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { describe, expect, it } from 'vitest';
import type { ReserveParams } from '@unit/protocol';
import { scriptToAddress } from '../address';
import { buildDepositPsbt } from '../flows/builders';
import { cosignVaultInput, finalize, signUserInputs } from '../flows/sign';
import {
  guardPub,
  keys,
  network,
  newVault,
  paymentUtxo,
  stateFields,
  treasuryPub,
  treasuryScript,
  unitRuneId,
  vaultPub,
  vaultUtxo,
  wallet,
} from '../flows/test-fixtures';
import { VAULT_TX_OPTS } from '../flows/vault-tx';
import { prepareVaultRequest, type VaultRequestIo } from './run';
import { planSpeedUp } from './speed-up';

const quote = {
  price_cents: 9_500_000,
  time: 1_700_000_100,
  th: 0,
  ts: 1_700_000_100,
  signature: 'ab'.repeat(64),
  threshold_hash: '11'.repeat(20),
};
const treasuryOutput = {
  txid: 'cd'.repeat(32),
  vout: 1,
  value: 10_000,
  script_hex: hex.encode(treasuryScript),
  unit_amount: 1_000_000_000,
};

/** I/O that records what it was asked, in order. */
function recordingIo(calls: string[]): VaultRequestIo {
  return {
    reserve: async (params: ReserveParams) => {
      calls.push(`reserve ${params.vault_action} ${params.unit_amount} ${params.vault_pubkey}`);
      return {
        reservation_id: 'r1',
        expires_at: 1_700_000_600,
        treasury_utxo: params.vault_action === 'repay' ? null : treasuryOutput,
        treasury_address: scriptToAddress(treasuryScript, network)!,
        postage_sats: 10_000,
      };
    },
    quote: async (th, ts) => {
      calls.push(`quote ${th} ${ts}`);
      return { ...quote, th, ts };
    },
    paymentUtxos: async () => {
      calls.push('payments');
      return [paymentUtxo(10_000_000n)];
    },
    unitUtxos: async () => {
      calls.push('unit outputs');
      return [{ ...paymentUtxo(10_000n, wallet.runesScript), unitAmount: 100_000n }];
    },
    postage: async () => {
      calls.push('postage');
      return { postageSats: 5_000n };
    },
    sign: (psbt, signers) => {
      calls.push(`sign ${signers.map((s) => `${s.index}:${s.key}`).join(' ')}`);
      return base64.encode(
        signUserInputs(base64.decode(psbt), keys.payment, [signers.at(-1)!.index]),
      );
    },
  };
}

const context = {
  vaultPubkey: hex.encode(vaultPub),
  keys: { guardPubkey: guardPub, network },
  now: () => 1_700_000_100,
  random: (n: number) => new Uint8Array(n).fill(9),
  treasuryInternalKey: treasuryPub,
  unitRuneId,
};

describe('prepareVaultRequest', () => {
  it('reserves, quotes the state after, reads what the action spends, then signs an open', async () => {
    const calls: string[] = [];
    const prepared = await prepareVaultRequest(
      { action: 'open', btc: 2_000_000n, unit: 500_000n, wallet, feeRate: 3 },
      { ...context, label: 'My vault' },
      recordingIo(calls),
    );
    expect(calls).toEqual([
      `reserve open 500000 ${context.vaultPubkey}`,
      'quote 33750000 1700000100',
      'postage',
      'payments',
      'sign 1:payment',
    ]);
    const { request } = prepared;
    expect(request.reservation_id).toBe('r1');
    expect(request.nonce).toBe('09'.repeat(16));
    expect(request.expires_at).toBe(1_700_000_100 + 300);
    expect(request.quote.th).toBe(33_750_000);
    // The account's postage of 5_000 went to its UNIT output; the treasury's key to its input.
    const tx = Transaction.fromPSBT(base64.decode(request.psbt), VAULT_TX_OPTS);
    expect(tx.getOutput(1).amount).toBe(5_000n);
    expect(tx.getInput(0).tapInternalKey).toEqual(treasuryPub);
    expect(tx.getInput(1).partialSig?.length).toBe(1);
  });

  it('a withdraw reserves nothing and reads no wallet output', async () => {
    const calls: string[] = [];
    const vault = vaultUtxo(5_000_000n, 100_000n);
    await prepareVaultRequest(
      { action: 'withdraw', btc: 1_000_000n, unit: 0n, vault, wallet, feeRate: 3 },
      context,
      {
        ...recordingIo(calls),
        sign: (psbt, signers) => (calls.push(`sign ${signers[0]!.key}`), psbt),
      },
    );
    // The threshold of 3_999_202 sats (plan.test.ts) for 100_000 hundredths.
    expect(calls).toEqual(['quote 3375673 1700000100', 'sign vault']);
  });

  it("a repay pays the UNIT's postage back to the address its reservation names", async () => {
    const calls: string[] = [];
    const vault = vaultUtxo(5_000_000n, 100_000n);
    const prepared = await prepareVaultRequest(
      { action: 'repay', btc: 0n, unit: 40_000n, vault, wallet, feeRate: 3 },
      context,
      { ...recordingIo(calls), sign: (psbt) => psbt },
    );
    expect(calls).toEqual([
      `reserve repay 40000 ${context.vaultPubkey}`,
      'quote 1620000 1700000100',
      'postage',
      'payments',
      'unit outputs',
    ]);
    const tx = Transaction.fromPSBT(prepared.psbt.built.psbt, VAULT_TX_OPTS);
    expect(tx.getOutput(1).script).toEqual(treasuryScript);
  });
  it('refuses to run an action that reserves without a way to reserve', async () => {
    const { reserve: _reserve, ...io } = recordingIo([]);
    await expect(
      prepareVaultRequest(
        {
          action: 'borrow',
          btc: 0n,
          unit: 1n,
          vault: vaultUtxo(5_000_000n, 0n),
          wallet,
          feeRate: 3,
        },
        context,
        io,
      ),
    ).rejects.toThrow('a borrow needs a reservation');
  });
});

describe('planSpeedUp', () => {
  it('pays 5 sat/vB from the change of a deposit sent at 1, and wraps the signed PSBT', () => {
    const vault = vaultUtxo(200_000n, 60_000n);
    const built = buildDepositPsbt({
      wallet,
      utxos: [paymentUtxo(150_000n)],
      feeRate: 1,
      state: stateFields,
      newVault,
      vault,
      depositAmount: 100_000n,
    });
    // 42 + 430 + 272 + 172 + 296 + 124 = 1336 -> 334 vB at 1 sat/vB
    expect(built.fee).toBe(334n);
    let psbt = signUserInputs(built.psbt, keys.vault, [0]);
    psbt = signUserInputs(psbt, keys.payment, [1]);
    const raw = finalize(cosignVaultInput(psbt, keys.guardian, 0));
    const vin = [
      { prevout: { scriptpubkey: hex.encode(vault.output.script), value: 200_000 } },
      { prevout: { scriptpubkey: hex.encode(wallet.satsScript), value: 150_000 } },
    ];
    const plan = planSpeedUp({
      action: 'deposit',
      originalTxid: 'ef'.repeat(32),
      originalHex: raw,
      vin,
      vaultPubkey: hex.encode(vaultPub),
      wallet,
      utxos: [],
      feeRate: 5,
    });
    expect(plan.reserve).toBeNull();
    // The same 334 vB at 5 sat/vB; the change pays it: 150_000 - 100_000 - 1_670
    expect(plan.built.fee).toBe(1_670n);
    expect(plan.built.change).toBe(48_330n);
    expect(plan.built.signInputs.user).toEqual([0, 1]);
    expect(plan.request('cHNidP8=')).toEqual({
      original_txid: 'ef'.repeat(32),
      vault_pubkey: hex.encode(vaultPub),
      psbt: 'cHNidP8=',
    });
  });

  it('refuses an original whose inputs the chain does not know', () => {
    expect(() =>
      planSpeedUp({
        action: 'deposit',
        originalTxid: 'ef'.repeat(32),
        originalHex: '00',
        vin: [{ prevout: null }],
        vaultPubkey: hex.encode(vaultPub),
        wallet,
        utxos: [],
        feeRate: 5,
      }),
    ).toThrow('The transaction spends an unknown output');
  });
});
