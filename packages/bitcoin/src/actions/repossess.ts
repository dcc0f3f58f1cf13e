// repossess `x` (docs/protocol.md): liquidated vault (liquidation leaf), claimant's vault, P… →
// claimant's vault, tax to treasury, S, C. The claimant's vault takes on the liquidated debt and the
// collateral less the repossession tax (@unit/protocol repossessionClaim).
import { repossessionClaim } from '@unit/protocol';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { declareAction, decodeUpdate } from './declare';
import { need, type ActionBase, type VaultUtxo } from './params';
import {
  assemble,
  liquidatedInput,
  payment,
  stateRecord,
  stateSlot,
  vaultSlot,
  vaultUpdateInput,
} from './slots';
import { check, type BuiltPlan, type OutputCoder, type VaultFields } from './types';

export interface RepossessParams extends ActionBase {
  /** The claimant's own vault. */
  vault: VaultUtxo;
  liquidated: VaultUtxo;
  treasuryScript: Uint8Array;
}

export interface RepossessedVaultFields extends VaultFields {
  tax: { treasuryScript: Uint8Array; amount: bigint };
}

/** The repossession tax, as @unit/protocol defines it, in plain bigint for the builders. */
export function repossessionTax(liquidatedSats: bigint): bigint {
  return repossessionClaim(liquidatedSats).taxSats;
}

const outputs: OutputCoder<RepossessedVaultFields> = {
  slots: ['vault', 'tax', 'state'],
  encode: (fields) => [
    vaultSlot(fields),
    { script: fields.tax.treasuryScript, amount: fields.tax.amount },
    stateSlot(fields),
  ],
  decode(outs, ctx) {
    const { vault, before } = decodeUpdate(outs, 'repossess', ctx);
    const liquidated = ctx.liquidated;
    check(liquidated !== undefined, 'context has no liquidated vault');
    const tax = repossessionTax(liquidated.value);
    const taxOut = outs[1]!;
    check(
      equalBytes(taxOut.script, ctx.treasuryScript) && taxOut.amount === tax,
      'repossession tax must be 15% to the treasury',
    );
    check(
      vault.vaultSats === before.value + liquidated.value - tax,
      'the claimant vault must take the liquidated collateral less tax',
    );
    check(
      vault.state.unitDebt === before.unitDebt + liquidated.unitDebt,
      'the claimant vault must take on the liquidated debt',
    );
    return {
      fields: { ...vault, tax: { treasuryScript: taxOut.script, amount: tax } },
      btcAmount: tax,
      unitAmount: 0n,
    };
  },
};

export function repossessPlan(params: RepossessParams): BuiltPlan {
  const { takenSats, taxSats } = repossessionClaim(params.liquidated.value);
  const vaultSats = params.vault.value + takenSats;
  const debt = params.vault.unitDebt + params.liquidated.unitDebt;
  const state = stateRecord('repossess', params.state, debt, vaultSats);
  const fields = {
    vaultScript: params.newVault.script,
    vaultSats,
    state,
    tax: { treasuryScript: params.treasuryScript, amount: taxSats },
  };
  return {
    plan: {
      inputs: [liquidatedInput(params.liquidated), vaultUpdateInput(params.vault)],
      outputs: outputs.encode(fields),
      payment: payment(params),
    },
    record: state,
  };
}

export function buildRepossessPsbt(params: RepossessParams) {
  return assemble(repossessPlan(params));
}

export const repossess = declareAction('repossess', {
  outputs,
  plan: repossessPlan,
  build: (request) =>
    buildRepossessPsbt({
      ...request,
      vault: need(request.vault, 'the claimant vault'),
      liquidated: need(request.liquidated, 'the liquidated vault'),
      treasuryScript: need(request.treasuryScript, 'the treasury script'),
    }),
  payload: (form) => ({
    liquidated_vault_id: need(form.liquidatedVaultId, 'the liquidated vault id'),
    tx_feerate: form.feeRate,
  }),
  // The claimant's request names no amount: the tax and the claim follow from the vaults.
  payloadAmounts: () => [],
  // The claimant's history records what it took: the collateral less tax, and the debt.
  historyAmounts: (tx, ctx) => ({
    btc: need(ctx.liquidated, 'the liquidated vault').value - tx.btcAmount,
    unit: need(ctx.liquidated, 'the liquidated vault').unitDebt,
  }),
  result: (txid) => ({ vault_txid: txid }),
});
