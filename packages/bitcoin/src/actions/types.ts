// What a vault action's declaration says (one file per action in this folder): the SPEC-level shape
// of @unit/protocol (its code, rules, postage, reservation), the inputs it spends and who signs each,
// its outputs as one coder that both builds and parses, its payload and result, and the amounts
// its history row and notifications show. The web client, the guardian, the test harness and the
// scripts all read these; nothing else branches on an action's name.
import type { ActionShape, GuardianMethods, VaultAction } from '@unit/protocol';
import type { RuneId, StateRecord } from '../core';
import type { InputSigner, PlannedOutput, VaultTxPlan } from '../flows/vault-tx';
import type { InputKind } from '../flows/vsize';
import type { ActionForm, ActionRequest, BuiltVaultTx } from './params';

/** A wallet-signed PSBT that is not the action's transaction; `message` is the reason. */
export class BadTransaction extends Error {}

export function check(condition: boolean, reason: string): asserts condition {
  if (!condition) throw new BadTransaction(reason);
}

/** A UTXO the guardian knows: the vault being spent, or the reserved treasury UTXO. */
export interface KnownUtxo {
  txid: string;
  vout: number;
  value: bigint;
  script: Uint8Array;
}

export interface ParseContext {
  /** The requester's vault (the claimant's on repossess); absent on open. */
  vault?: KnownUtxo & { unitDebt: bigint };
  /** The liquidated vault a repossess spends. */
  liquidated?: KnownUtxo & { unitDebt: bigint };
  /** The treasury UNIT UTXO reserved for open and borrow. */
  treasury?: KnownUtxo & { unitAmount: bigint };
  treasuryScript: Uint8Array;
  /** The vault output the transaction must create: the requester's keys and the quote's threshold. */
  newVaultScript: Uint8Array;
  unitRuneId: RuneId;
  /** Postage of the requester's own UNIT outputs (its referral level's); default SPEC §9's. */
  postageSats?: bigint;
  /** Postage of UNIT sent back to the treasury; default SPEC §9's. */
  treasuryPostageSats?: bigint;
  dustLimit?: bigint;
}

export interface ParsedVaultTransaction {
  action: VaultAction;
  state: StateRecord;
  /** BTC moved by the user: deposited (open, deposit), withdrawn (withdraw), taxed (repossess). */
  btcAmount: bigint;
  /** UNIT issued (open, borrow) or repaid (repay), hundredths; 0n otherwise. */
  unitAmount: bigint;
  vaultSats: bigint;
  fee: bigint;
  /** Estimated vsize once signed (signatures at their largest). */
  vsize: number;
  /** Index of the BTC change output, or null when it was left out. */
  changeVout: number | null;
}

/** Every action's outputs open with the new vault and carry its state record. */
export interface VaultFields {
  vaultScript: Uint8Array;
  vaultSats: bigint;
  state: StateRecord;
}

/** What an output coder reads back: the fields, and the BTC and UNIT the user moved. */
export interface Decoded<F> {
  fields: F;
  btcAmount: bigint;
  unitAmount: bigint;
}

/**
 * An action's outputs before the optional change, as @scure/btc-signer's OutScript coders are for
 * one script: `encode` lays the fields out in docs/protocol.md's order, `decode` reads them back
 * from a transaction's outputs and refuses (BadTransaction) any that the context does not allow.
 */
export interface OutputCoder<F extends VaultFields> {
  /** Slot names in docs/protocol.md order. */
  readonly slots: readonly string[];
  encode(fields: F): PlannedOutput[];
  decode(outputs: readonly PlannedOutput[], ctx: ParseContext): Decoded<F>;
}

/** A fixed input: the known UTXO it spends, how it is spent, and who signs it. */
export interface InputRole {
  role: 'liquidated' | 'vault' | 'treasury';
  /** How refusals name it ("input 0 must be the vault"). */
  name: string;
  kind: InputKind;
  signers: readonly InputSigner[];
}

export type PayloadOf<A extends VaultAction> = GuardianMethods[`vault.${A}`]['params']['payload'];
export type ResultOf<A extends VaultAction> = GuardianMethods[`vault.${A}`]['result'];

/** An amount of the payload the transaction must move exactly (the guardian's amount check). */
export interface PayloadAmount {
  moved: 'btc' | 'unit';
  amount: number;
  /** How the refusal names it: "the deposit does not match the request". */
  what: string;
}

/** The unsigned PSBT of an action, with the state record it carries. */
export interface BuiltPlan {
  plan: VaultTxPlan;
  record: StateRecord;
}

export interface ActionDeclaration<
  A extends VaultAction = VaultAction,
  Params = never,
  F extends VaultFields = VaultFields,
> {
  action: A;
  /** @unit/protocol's ACTION_SHAPES entry: code, rules, postage, reservation, fee-estimate kinds. */
  shape: ActionShape;
  /** The guardian's JSON-RPC method. */
  method: `vault.${A}`;
  /** The fixed inputs, first in the transaction, in this order; the wallet's inputs follow. */
  spends: readonly InputRole[];
  outputs: OutputCoder<F>;
  /** The transaction's plan (before coin selection) from the builder's parameters. */
  plan(params: Params): BuiltPlan;
  /** The PSBT of one request, from the pieces any action's request may carry. */
  build(request: ActionRequest): BuiltVaultTx;
  /** The JSON-RPC payload of a request, from what its form collected. */
  payload(form: ActionForm): PayloadOf<A>;
  /** The payload amounts the parsed transaction must move. */
  payloadAmounts(payload: PayloadOf<A>): readonly PayloadAmount[];
  /** What the vault's history row (and so its Telegram message) records as moved. */
  historyAmounts(parsed: ParsedVaultTransaction, ctx: ParseContext): { btc: bigint; unit: bigint };
  /** The JSON-RPC answer once `txid` is broadcast; `vaultId` is the vault's (an open's is txid). */
  result(txid: string, vaultId: string): ResultOf<A>;
}
