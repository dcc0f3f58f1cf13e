// The client's half of a vault request, free of I/O (docs/protocol.md): from the vault, the action
// and its amounts, what to reserve, the state after the action and the threshold the oracle quote
// is asked for; then, from the quote, the reservation and the wallet's outputs, the PSBT to sign,
// its payload and which of the wallet's keys signs each input. The web app, the test harnesses and
// the scripts all build requests through it (request-run.ts does the reading and the sending);
// what each action reserves, spends and pays is its ACTION_SHAPES entry.
import {
  actionAmountOf,
  applyAction,
  liquidationThresholdCents,
  repossessState,
  sats,
  unitCents,
  type ActionShape,
  type ReserveParams,
  type VaultAction,
  type VaultState,
} from '@unit/protocol';
import { hex } from '@scure/base';
import type { RuneId, VaultOutput, VaultOutputParams } from '../core';
import type { PaymentUtxo } from '../flows/coin-select';
import { quotedVault, type QuoteCommitment } from '../flows/quoted-vault';
import { declarationOf } from '../actions';
import type {
  ActionRequest,
  BuiltVaultTx,
  TreasuryUtxo,
  UnitUtxo,
  VaultStateFields,
  VaultUtxo,
  VaultWallet,
} from '../actions/params';
import type { ActionDeclaration, PayloadOf, VaultFields } from '../actions/types';
import { withdrawFee } from '../actions/withdraw';

/** What a request starts from: the action, its amounts and the vaults it spends. */
export interface VaultRequestInput<A extends VaultAction = VaultAction> {
  action: A;
  /** The BTC the user moves: deposited (open, deposit) or withdrawn; 0n otherwise. */
  btc: bigint;
  /** The UNIT the user moves: issued (open, borrow) or repaid, hundredths; 0n otherwise. */
  unit: bigint;
  /** The requester's vault as it stands (the claimant's on repossess); absent on open. */
  vault?: VaultUtxo;
  /** The liquidated vault a repossess claims. */
  liquidated?: VaultUtxo;
  wallet: VaultWallet;
  /** sat/vB */
  feeRate: number;
  /**
   * What the state record will carry besides its fields, for a fee from the vault sized before the
   * quote: the price quorum's commitment (guardian network) and the term (layout 2).
   */
  record?: { committed?: boolean; termed?: boolean };
}

/** The wallet key that signs one of its inputs: the vault key, the runes key or the payment key. */
export type WalletKey = 'vault' | 'runes' | 'payment';

export interface VaultRequestPlan<A extends VaultAction = VaultAction> {
  input: VaultRequestInput<A>;
  declaration: ActionDeclaration<A, never, VaultFields>;
  shape: ActionShape;
  /** unit.reserve's parameters (the caller adds its vault key), or null: the action reserves none. */
  reserve: Omit<ReserveParams, 'vault_pubkey'> | null;
  /** What the request reads before it builds (the runner fetches only these). */
  needs: { vault: boolean; payments: boolean; unitUtxos: boolean; accountPostage: boolean };
  /** The fee a withdraw pays from the vault (its layout fixes it before the quote); 0n otherwise. */
  vaultFeeSats: bigint;
  before: VaultState;
  after: VaultState;
  /** The liquidation threshold of the state after: the quote to ask the oracle for. */
  thresholdCents: number;
}

const PLACEHOLDER_TERM = { settleHeight: 1, exitHeight: 2, exitBranch: new Uint8Array(32) };

/** The sizes a withdraw's record will have: only sizes count for its fee, not the quote's values. */
function sizingState(record: VaultRequestInput['record']): VaultStateFields {
  return {
    quotePriceCents: 0n,
    thresholdCents: 0n,
    quoteStamp: 0,
    nonce: new Uint8Array(16),
    expiry: 0,
    ...(record?.committed ? { quorumCommitment: new Uint8Array(32) } : {}),
    ...(record?.termed ? { term: PLACEHOLDER_TERM } : {}),
  };
}

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new TypeError(`this request needs ${what}`);
  return value;
}

/** What to reserve, the state after the action and the quote to ask for. */
export function planVaultRequest<A extends VaultAction>(
  input: VaultRequestInput<A>,
): VaultRequestPlan<A> {
  const declaration = declarationOf(input.action);
  const { shape } = declaration;
  const vault = shape.vault === 'creates' ? undefined : need(input.vault, 'the vault');
  const before = {
    btcSats: sats(vault?.value ?? 0n),
    unitCents: unitCents(vault?.unitDebt ?? 0n),
  };
  // A withdraw's fee comes out of the vault, so it is part of the state after.
  const vaultFeeSats = shape.paysFromWallet
    ? 0n
    : withdrawFee({
        wallet: input.wallet,
        feeRate: input.feeRate,
        state: sizingState(input.record),
        newVault: vault!.output,
        vault: vault!,
        withdrawAmount: input.btc,
      });
  const action = input.action as Exclude<VaultAction, 'repossess'>;
  const after =
    shape.vault === 'claims'
      ? repossessState(before, {
          btcSats: sats(need(input.liquidated, 'the liquidated vault').value),
          unitCents: unitCents(input.liquidated!.unitDebt),
        })
      : applyAction(
          before,
          action,
          actionAmountOf(action, { btcSats: sats(input.btc), unitCents: unitCents(input.unit) }),
          { feeSats: sats(vaultFeeSats) },
        );
  return {
    input,
    declaration,
    shape,
    reserve:
      shape.reserve === null
        ? null
        : {
            unit_amount: Number(input.unit),
            vault_action: input.action as ReserveParams['vault_action'],
          },
    needs: {
      vault: shape.vault !== 'creates',
      payments: shape.paysFromWallet,
      unitUtxos: shape.inputs.includes('unit'),
      accountPostage: shape.accountPostage,
    },
    vaultFeeSats,
    before,
    after,
    thresholdCents: liquidationThresholdCents(after.btcSats, after.unitCents),
  };
}

/** What the quote and the request's envelope fix in the transaction. */
export interface QuotedRequest {
  quote: QuoteCommitment;
  /** The envelope's nonce (16 bytes) and expiry, which the state record commits to. */
  draft: { nonce: Uint8Array; expiresAt: number };
  /** The new vault output's keys: the requester's and the newest guardian set's. */
  keys: Omit<VaultOutputParams, 'thresholdHash'>;
}

/** The state record's fields and the new vault output, at the quote of the state after. */
export function quotedRequest(
  plan: VaultRequestPlan,
  quoted: QuotedRequest,
): { state: VaultStateFields; newVault: VaultOutput } {
  return quotedVault(
    quoted.quote,
    plan.thresholdCents,
    { nonce: quoted.draft.nonce, expiry: quoted.draft.expiresAt },
    quoted.keys,
  );
}

/** The outputs and answers the PSBT spends or pays besides the vaults. */
export interface RequestPieces {
  /** The wallet's payment outputs (used only by an action that pays from the wallet). */
  utxos: readonly PaymentUtxo[];
  /** The treasury UNIT output a reservation handed out (open, borrow). */
  treasury?: TreasuryUtxo;
  /** Where UNIT goes back (repay) and the tax goes (repossess). */
  treasuryScript?: Uint8Array;
  /** The wallet's UNIT outputs (repay). */
  unitUtxos?: readonly UnitUtxo[];
  unitRuneId?: RuneId;
  /** The account's postage (its referral level's) and the treasury's; default SPEC §9's. */
  postageSats?: bigint;
  treasuryPostageSats?: bigint;
  /** open: the vault's name; repossess: the vault claimed. */
  label?: string;
  liquidatedVaultId?: string;
}

export interface VaultRequestPsbt<A extends VaultAction = VaultAction> {
  built: BuiltVaultTx;
  payload: PayloadOf<A>;
  /** Each input the wallet signs and the key it signs with, in input order. */
  signers: readonly { index: number; key: WalletKey }[];
}

/** The PSBT to sign, its payload and the wallet's signers, once quoted, reserved and read. */
export function buildVaultRequest<A extends VaultAction>(
  plan: VaultRequestPlan<A>,
  quoted: { state: VaultStateFields; newVault: Pick<VaultOutput, 'script'> },
  pieces: RequestPieces,
): VaultRequestPsbt<A> {
  const { declaration, input, shape } = plan;
  const unitUtxos = shape.inputs.includes('unit') ? (pieces.unitUtxos ?? []) : [];
  const request: ActionRequest = {
    wallet: input.wallet,
    feeRate: input.feeRate,
    state: quoted.state,
    newVault: quoted.newVault,
    utxos: shape.paysFromWallet ? pieces.utxos : [],
    btc: input.btc,
    unit: input.unit,
    unitUtxos,
    ...(input.vault ? { vault: input.vault } : {}),
    ...(input.liquidated ? { liquidated: input.liquidated } : {}),
    ...(pieces.treasury ? { treasury: pieces.treasury } : {}),
    ...(pieces.treasuryScript ? { treasuryScript: pieces.treasuryScript } : {}),
    ...(pieces.unitRuneId ? { unitRuneId: pieces.unitRuneId } : {}),
    ...(pieces.postageSats !== undefined ? { postageSats: pieces.postageSats } : {}),
    ...(pieces.treasuryPostageSats !== undefined
      ? { treasuryPostageSats: pieces.treasuryPostageSats }
      : {}),
  };
  const built = declaration.build(request);
  const payload = declaration.payload({
    btc: input.btc,
    unit: input.unit,
    feeRate: input.feeRate,
    ...(pieces.label !== undefined ? { label: pieces.label } : {}),
    ...(pieces.liquidatedVaultId !== undefined
      ? { liquidatedVaultId: pieces.liquidatedVaultId }
      : {}),
  });
  // The vault input is the vault key's, the UNIT inputs after it the runes key's, the rest pay.
  const vaultIndex = declaration.spends.findIndex((spent) => spent.role === 'vault');
  const signers = built.signInputs.user.map((index) => ({
    index,
    key: (index === vaultIndex
      ? 'vault'
      : vaultIndex >= 0 && index > vaultIndex && index <= vaultIndex + unitUtxos.length
        ? 'runes'
        : 'payment') as WalletKey,
  }));
  return { built, payload, signers };
}

/** A reservation's treasury UNIT output as the builders take it (`internalKey`: params.ts). */
export function reservedTreasuryUtxo(
  utxo: { txid: string; vout: number; value: number; script_hex: string; unit_amount: number },
  internalKey?: Uint8Array,
): TreasuryUtxo {
  return {
    txid: utxo.txid,
    vout: utxo.vout,
    value: BigInt(utxo.value),
    script: hex.decode(utxo.script_hex),
    unitAmount: BigInt(utxo.unit_amount),
    ...(internalKey ? { internalKey } : {}),
  };
}
