// Spending a vault that commits to two guardian keys and three oracle commitments through the
// action builders and signers the app uses: `spendPath` picks the guardian slot (and, for a
// liquidation, the oracle), the PSBT carries that leaf's control block, and the signed transaction
// passes the devnet's script check. Without `spendPath` everything is slot 0, oracle 0, as before.
import { Transaction } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import { describe, expect, it } from 'vitest';
import {
  thresholdHash,
  thresholdSecret,
  verifyInputs,
  vaultOutput,
  type Prevout,
  type VaultOutput,
} from '../core';
import {
  buildDepositPsbt,
  buildRepossessPsbt,
  buildWithdrawPsbt,
  type VaultUtxo,
} from './builders';
import { parseVaultTransaction } from './parse';
import { addLiquidationWitness, cosignVaultInput, finalize, signUserInputs } from './sign';
import {
  keys,
  network,
  newVault,
  paidFrom,
  paymentUtxo,
  secretKey,
  stateFields,
  treasuryScript,
  txid,
  unitRuneId,
  vaultPub,
  vaultUtxo,
  wallet,
} from './test-fixtures';
import { buildSpeedUpPsbt, checkFeeOnlyReplacement } from './speed-up';
import { vaultLeaf, VAULT_TX_OPTS } from './vault-tx';

const feeRate = 2;
/** Slot 0: today's guardian; slot 1: the next guardian set's key. */
const guardianKeys = [keys.guardian, secretKey('next guardian set')];
const oracleSecrets = [secretKey('oracle'), secretKey('oracle 2'), secretKey('oracle 3')];
const secrets = oracleSecrets.map((o) => thresholdSecret(o, 9_000_000n, 1_700_000_000));

function twoKeyVault(
  value: bigint,
  unitDebt: bigint,
  pubkey = vaultPub,
): VaultUtxo & { output: VaultOutput } {
  const output = vaultOutput({
    vaultPubkey: pubkey,
    guardPubkey: guardianKeys.map((k) => pubSchnorr(k)),
    thresholdHash: secrets.map(thresholdHash),
    network,
  });
  return { txid: txid(), vout: 0, value, unitDebt, output };
}

function prevouts(psbt: Uint8Array): Prevout[] {
  const tx = Transaction.fromPSBT(psbt, VAULT_TX_OPTS);
  return Array.from({ length: tx.inputsLength }, (_, i) => {
    const utxo = tx.getInput(i).witnessUtxo!;
    return { script: utxo.script, amount: utxo.amount };
  });
}

/** The control block of the leaf input `index` of a raw transaction spent (its last witness item). */
function spentControlBlock(rawHex: string, index: number): Uint8Array {
  const witness = Transaction.fromRaw(Buffer.from(rawHex, 'hex'), VAULT_TX_OPTS).getInput(
    index,
  ).finalScriptWitness!;
  return witness[witness.length - 1]!;
}

function deposit(vault: VaultUtxo) {
  return buildDepositPsbt({
    ...paidFrom([paymentUtxo(150_000n)], feeRate),
    vault,
    depositAmount: 100_000n,
  });
}

describe('update leaf of a chosen guardian slot', () => {
  for (const slot of [0, 1])
    it(`deposit co-signed by slot ${slot}'s guardian passes the script check`, () => {
      const base = twoKeyVault(200_000n, 0n);
      const built = deposit({ ...base, spendPath: { slot } });
      let psbt = signUserInputs(built.psbt, keys.vault, [0]);
      psbt = signUserInputs(psbt, keys.payment, [1]);
      psbt = cosignVaultInput(psbt, guardianKeys[slot]!, 0);
      const rawHex = finalize(psbt);
      expect(verifyInputs(rawHex, prevouts(built.psbt))).toEqual({ ok: true });
      expect(spentControlBlock(rawHex, 0)).toEqual(base.output.updateLeaves[slot]!.controlBlock);
      // The deeper leaf's witness is counted: the estimate is not under the real size.
      const real = Transaction.fromRaw(Buffer.from(rawHex, 'hex'), VAULT_TX_OPTS).vsize;
      expect(built.vsize).toBeGreaterThanOrEqual(real);
      expect(built.vsize - real).toBeLessThanOrEqual(3);
    });

  it("cannot be co-signed by the other slot's guardian", () => {
    const built = deposit({ ...twoKeyVault(200_000n, 0n), spendPath: { slot: 1 } });
    // The input carries slot 1's leaf only: slot 0's key is in none of its leaves.
    expect(() => cosignVaultInput(built.psbt, guardianKeys[0]!, 0)).toThrow(
      'No taproot scripts signed',
    );
  });

  it('defaults to slot 0, and the guardian recognises the vault input by its script', () => {
    const vault = twoKeyVault(200_000n, 0n);
    const built = deposit(vault);
    const input = Transaction.fromPSBT(built.psbt, VAULT_TX_OPTS).getInput(0);
    expect(input.tapLeafScript).toEqual([vault.output.tapLeafScript[0]]);
    const parsed = parseVaultTransaction('deposit', built.psbt, {
      vault: { ...vault, script: vault.output.script },
      treasuryScript,
      newVaultScript: newVault.script,
      unitRuneId,
    });
    expect(parsed).toMatchObject({ ok: true, value: { btcAmount: 100_000n } });
    // The guardian's size estimate counts the deeper leaf as the builder did.
    if (parsed.ok) expect(parsed.value.vsize).toBe(built.vsize);
  });

  it("withdraw pays the deeper leaf's weight out of the vault", () => {
    const vault = twoKeyVault(300_000n, 0n);
    const params = {
      wallet,
      utxos: [],
      feeRate: 10,
      state: stateFields,
      newVault,
      withdrawAmount: 50_000n,
    };
    const slot0 = buildWithdrawPsbt({ ...params, vault });
    const single = buildWithdrawPsbt({ ...params, vault: vaultUtxo(300_000n, 0n) });
    // Depth 2 instead of 1: 32 more witness bytes, 8 vB, 80 sats at 10 sat/vB.
    expect(slot0.fee - single.fee).toBe(80n);
  });
});

describe('liquidation leaf of a chosen (slot, oracle)', () => {
  function repossess(spendPath: { slot: number; oracle: number }) {
    const claimant = vaultUtxo(500_000n, 10_000n, 5_000_000n, pubSchnorr(keys.claimantVault));
    const liquidated = { ...twoKeyVault(300_000n, 200_000n), spendPath };
    const built = buildRepossessPsbt({
      ...paidFrom([paymentUtxo(40_000n)], feeRate),
      vault: claimant,
      liquidated,
      treasuryScript,
    });
    expect(built.signInputs).toEqual({ user: [1, 2], guardian: [0, 1], treasury: [] });
    return { built, liquidated };
  }

  function sign(
    built: ReturnType<typeof repossess>['built'],
    secret: Uint8Array,
    guardian: Uint8Array,
  ) {
    let psbt = addLiquidationWitness(built.psbt, 0, { secret, guardianKey: guardian });
    psbt = signUserInputs(psbt, keys.claimantVault, [1]);
    psbt = signUserInputs(psbt, keys.payment, [2]);
    psbt = cosignVaultInput(psbt, keys.guardian, 1);
    return finalize(psbt);
  }

  for (const slot of [0, 1])
    for (const oracle of [0, 1, 2])
      it(`slot ${slot}, oracle ${oracle}: opens with that oracle's secret and that slot's key only`, () => {
        const { built, liquidated } = repossess({ slot, oracle });
        const rawHex = sign(built, secrets[oracle]!, guardianKeys[slot]!);
        expect(verifyInputs(rawHex, prevouts(built.psbt))).toEqual({ ok: true });
        expect(spentControlBlock(rawHex, 0)).toEqual(
          liquidated.output.liquidationLeaves[slot]![oracle]!.controlBlock,
        );
        const wrong = sign(built, secrets[(oracle + 1) % 3]!, guardianKeys[slot]!);
        expect(verifyInputs(wrong, prevouts(built.psbt))).toEqual({
          ok: false,
          input: 0,
          reason: 'wrong-preimage',
        });
      });

  it('signs the leaf the secret opens when the input offers several', () => {
    const vault = twoKeyVault(300_000n, 200_000n);
    const { built } = repossess({ slot: 1, oracle: 0 });
    // Offer all three of slot 1's liquidation leaves; the secret of oracle 2 picks the third.
    const tx = Transaction.fromPSBT(built.psbt, VAULT_TX_OPTS);
    const offered = [0, 1, 2].map((oracle) =>
      vaultLeaf(vault.output, 'liquidation', { slot: 1, oracle }),
    );
    tx.updateInput(0, { tapLeafScript: offered }, true);
    expect(tx.getInput(0).tapLeafScript).toHaveLength(3);
    const psbt = addLiquidationWitness(tx.toPSBT(0), 0, {
      secret: secrets[2]!,
      guardianKey: guardianKeys[1]!,
    });
    const witness = Transaction.fromPSBT(psbt, VAULT_TX_OPTS).getInput(0).finalScriptWitness!;
    expect(witness[2]).toEqual(vault.output.liquidationLeaves[1]![2]!.script);
    expect(witness[3]).toEqual(vault.output.liquidationLeaves[1]![2]!.controlBlock);
  });
});

describe('speed-up of a spend through slot 1', () => {
  const vault = twoKeyVault(200_000n, 0n);
  const built = buildDepositPsbt({
    wallet,
    utxos: [paymentUtxo(150_000n)],
    feeRate: 1,
    state: stateFields,
    newVault,
    vault: { ...vault, spendPath: { slot: 1 } },
    depositAmount: 100_000n,
  });
  const signSlot1 = (psbt: Uint8Array) =>
    finalize(
      cosignVaultInput(
        signUserInputs(signUserInputs(psbt, keys.vault, [0]), keys.payment, [1]),
        guardianKeys[1]!,
        0,
      ),
    );
  const original = { hex: signSlot1(built.psbt), prevouts: prevouts(built.psbt) };

  for (const given of ['given the vault and its spendPath', 'read back from the witness'])
    it(`keeps slot 1's leaf, ${given}`, () => {
      const replacement = buildSpeedUpPsbt({
        action: 'deposit',
        original,
        wallet,
        ...(given.startsWith('given')
          ? { vaults: [{ output: vault.output, leaf: 'update', spendPath: { slot: 1 } }] }
          : {}),
        utxos: [],
        feeRate: 4,
      });
      const input = Transaction.fromPSBT(replacement.psbt, VAULT_TX_OPTS).getInput(0);
      expect(input.tapLeafScript).toEqual([vault.output.tapLeafScript[4]]);
      const rawHex = signSlot1(replacement.psbt);
      expect(verifyInputs(rawHex, prevouts(replacement.psbt))).toEqual({ ok: true });
      expect(checkFeeOnlyReplacement('deposit', original, replacement.psbt)).toMatchObject({
        ok: true,
      });
    });
});

describe('vaultLeaf', () => {
  const { output } = twoKeyVault(1n, 0n);

  it('finds each slot and oracle by the keys and hashes in leaf order', () => {
    for (const slot of [0, 1]) {
      expect(vaultLeaf(output, 'update', { slot })).toBe(output.tapLeafScript[slot * 4]);
      for (const oracle of [0, 1, 2])
        expect(vaultLeaf(output, 'liquidation', { slot, oracle })).toBe(
          output.tapLeafScript[slot * 4 + 1 + oracle],
        );
    }
    expect(vaultLeaf(output, 'liquidation')).toBe(output.tapLeafScript[1]);
  });

  it('refuses a slot or an oracle the vault does not have', () => {
    expect(() => vaultLeaf(output, 'update', { slot: 2 })).toThrow('vault has no guardian slot 2');
    expect(() => vaultLeaf(output, 'liquidation', { slot: 1, oracle: 3 })).toThrow(
      'vault has no liquidation leaf for guardian slot 1, oracle 3',
    );
    const single = vaultUtxo(1n, 0n).output;
    expect(() => vaultLeaf(single, 'update', { slot: 1 })).toThrow('vault has no guardian slot 1');
  });
});
