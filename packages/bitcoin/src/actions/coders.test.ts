// Each action's output coder: what `plan` encodes, `decode` reads back as the same fields (and the
// amounts moved), and a layout that is not the action's is refused with the reason the guardian
// has always given. Pure: no PSBT is signed.
import { describe, expect, it } from 'vitest';
import { repossessionClaim, UNIT_POSTAGE_SATS } from '@unit/protocol';
import {
  newVault,
  paymentUtxo,
  runesPub,
  stateFields,
  treasuryScript,
  treasuryUtxo,
  unitRuneId,
  vaultUtxo,
  wallet,
} from '../flows/test-fixtures';
import type { PlannedOutput } from '../flows/vault-tx';
import { BadTransaction, DECLARATIONS, type ParseContext, type VaultUtxo } from './index';

const postage = BigInt(UNIT_POSTAGE_SATS);
const vault = vaultUtxo(300_000n, 600_000n);
const liquidated = vaultUtxo(200_000n, 900_000n, 5_000_000n, runesPub);
const treasury = treasuryUtxo();
const base = { wallet, utxos: [paymentUtxo(500_000n)], feeRate: 2, state: stateFields, newVault };
const unitUtxo = {
  txid: vault.txid,
  vout: 3,
  value: postage,
  script: wallet.runesScript,
  unitAmount: 50_000n,
};

const known = (utxo: VaultUtxo) => ({ ...utxo, script: utxo.output.script });
const context: ParseContext = {
  vault: known(vault),
  liquidated: known(liquidated),
  treasury,
  treasuryScript,
  newVaultScript: newVault.script,
  unitRuneId,
};

/** Each action's plan from the same request, and what its coder must read back as moved. */
const cases = [
  {
    plan: () =>
      DECLARATIONS.open.plan({
        ...base,
        depositAmount: 250_000n,
        borrowAmount: 70_000n,
        treasury,
        unitRuneId,
      }),
    moved: { btcAmount: 250_000n, unitAmount: 70_000n },
    decl: DECLARATIONS.open,
  },
  {
    plan: () => DECLARATIONS.deposit.plan({ ...base, vault, depositAmount: 40_000n }),
    moved: { btcAmount: 40_000n, unitAmount: 0n },
    decl: DECLARATIONS.deposit,
  },
  {
    plan: () =>
      DECLARATIONS.borrow.plan({ ...base, vault, borrowAmount: 30_000n, treasury, unitRuneId }),
    moved: { btcAmount: 0n, unitAmount: 30_000n },
    decl: DECLARATIONS.borrow,
  },
  {
    plan: () =>
      DECLARATIONS.repay.plan({
        ...base,
        vault,
        repayAmount: 20_000n,
        unitUtxos: [unitUtxo],
        treasuryScript,
        unitRuneId,
      }),
    moved: { btcAmount: 0n, unitAmount: 20_000n },
    decl: DECLARATIONS.repay,
  },
  {
    plan: () => DECLARATIONS.withdraw.plan({ ...base, vault, withdrawAmount: 60_000n }),
    moved: { btcAmount: 60_000n, unitAmount: 0n },
    decl: DECLARATIONS.withdraw,
  },
  {
    plan: () => DECLARATIONS.repossess.plan({ ...base, vault, liquidated, treasuryScript }),
    moved: { btcAmount: repossessionClaim(liquidated.value).taxSats, unitAmount: 0n },
    decl: DECLARATIONS.repossess,
  },
] as const;

const decode = (decl: (typeof cases)[number]['decl'], outputs: readonly PlannedOutput[]) =>
  (decl.outputs as { decode(o: readonly PlannedOutput[], c: ParseContext): unknown }).decode(
    outputs,
    context,
  );

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof BadTransaction) return error.message;
    throw error;
  }
  throw new Error('accepted');
}

describe('action output coders', () => {
  for (const { plan, moved, decl } of cases) {
    describe(decl.action, () => {
      const { plan: built, record } = plan();
      const outputs = built.outputs;

      it('lays out its slots and reads back the fields it was built from', () => {
        expect(outputs).toHaveLength(decl.outputs.slots.length);
        const decoded = decode(decl, outputs) as {
          fields: { state: unknown; vaultSats: bigint };
          btcAmount: bigint;
          unitAmount: bigint;
        };
        expect(decoded).toMatchObject(moved);
        expect(decoded.fields.state).toEqual(record);
        // Encoding the fields read back gives the same outputs, byte for byte.
        const again = (decl.outputs as { encode(f: unknown): PlannedOutput[] }).encode(
          decoded.fields,
        );
        expect(again).toEqual(outputs);
      });

      it('spends its declared inputs first, in order, each with its signers', () => {
        decl.spends.forEach((role, index) => {
          expect(built.inputs[index]!.kind).toBe(role.kind);
          expect(built.inputs[index]!.signers).toEqual(role.signers);
        });
      });

      it('refuses another vault in output 0 and a state record of another action', () => {
        const moved0 = [{ ...outputs[0]!, script: treasuryScript }, ...outputs.slice(1)];
        expect(refusal(() => decode(decl, moved0))).toBe('output 0 is not the expected vault');
        const other = cases.find(
          (c) => c.decl.outputs.slots.length === outputs.length && c.decl !== decl,
        );
        if (other) {
          const state = other.plan().plan.outputs.at(-1)!;
          expect(refusal(() => decode(decl, [...outputs.slice(0, -1), state]))).toMatch(
            /^state record (action is|BTC differs)/,
          );
        }
      });
    });
  }

  it('refuses the reasons parse.ts always gave for a borrow that lies about its issue', () => {
    const { plan } = cases[2].plan();
    const outs = plan.outputs;
    const withPostage = (amount: bigint) => [outs[0]!, { ...outs[1]!, amount }, ...outs.slice(2)];
    expect(refusal(() => decode(DECLARATIONS.borrow, withPostage(postage + 1n)))).toBe(
      'UNIT postage amount',
    );
    const toTreasury = [outs[0]!, { ...outs[1]!, script: treasuryScript }, ...outs.slice(2)];
    expect(refusal(() => decode(DECLARATIONS.borrow, toTreasury))).toBe(
      'UNIT postage goes to the treasury',
    );
    const keep = [outs[0]!, outs[1]!, { ...outs[2]!, amount: 1n }, ...outs.slice(3)];
    expect(refusal(() => decode(DECLARATIONS.borrow, keep))).toBe(
      'treasury change must return the treasury UTXO',
    );
    const runestone = cases[0].plan().plan.outputs[3]!;
    const wrongIssue = [...outs.slice(0, 3), runestone, outs[4]!];
    expect(refusal(() => decode(DECLARATIONS.borrow, wrongIssue))).toBe(
      'runestone does not issue the recorded debt',
    );
  });

  it('refuses a repossession that keeps less than the tax for the treasury', () => {
    const { plan } = cases[5].plan();
    const outs = plan.outputs;
    const lowTax = [outs[0]!, { ...outs[1]!, amount: outs[1]!.amount - 1n }, outs[2]!];
    expect(refusal(() => decode(DECLARATIONS.repossess, lowTax))).toBe(
      'repossession tax must be 15% to the treasury',
    );
  });

  it('refuses a withdrawal to a script no wallet pays from', () => {
    const { plan } = cases[4].plan();
    const outs = plan.outputs;
    const odd = [outs[0]!, { ...outs[1]!, script: new Uint8Array([0x6a]) }, outs[2]!];
    expect(refusal(() => decode(DECLARATIONS.withdraw, odd))).toBe(
      'withdrawal: Unexpected script type',
    );
  });
});
