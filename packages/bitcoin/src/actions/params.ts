// What the builders of the vault actions take: the wallet, the UTXOs it pays from, the state record's
// quote fields, and the known UTXOs (vault, treasury, UNIT outputs) each action spends.
import type { RuneId, StateRecord, StateRecordTerm, VaultOutput } from '../core';
import type { PaymentUtxo } from '../flows/coin-select';
import type { AssembledVaultTx, VaultLeafChoice } from '../flows/vault-tx';

/** The connected wallet: its sats address (payments, change) and runes address (UNIT). */
export interface VaultWallet {
  satsScript: Uint8Array;
  /** 33-byte key for P2WPKH / P2SH-P2WPKH, x-only (or 33-byte) for P2TR. */
  paymentPublicKey: Uint8Array;
  runesScript: Uint8Array;
  runesPublicKey: Uint8Array;
}

/** State record fields the caller brings from the oracle quote and the request (docs/protocol.md). */
export interface VaultStateFields {
  quotePriceCents: bigint;
  thresholdCents: bigint;
  quoteStamp: number;
  /** 16 bytes */
  nonce: Uint8Array;
  expiry: number;
  /** The vault's key: only an opening's record carries it (docs/protocol.md, version 2). */
  vaultPubkey?: Uint8Array;
  /**
   * With the guardian network: the quote's price quorum commitment (priceQuorumCommitment of its
   * `quorum`, 32 bytes); every record then carries it (versions 3 and 4). Absent in off mode.
   */
  quorumCommitment?: Uint8Array;
  /**
   * Layout 2: the new vault output's term and its exit leaf's sibling hash (`VaultOutput.exitBranch`);
   * the record is then version 5 to 8. Absent: a layout 1 output.
   */
  term?: StateRecordTerm;
}

/** A vault UTXO on chain with the debt its last state record holds. */
export interface VaultUtxo {
  txid: string;
  vout: number;
  value: bigint;
  unitDebt: bigint;
  /** From `vaultOutput` of the vault's keys and its current threshold hash. */
  output: Pick<VaultOutput, 'script' | 'tapLeafScript'>;
  /** The leaf spent: guardian slot (update and liquidation) and oracle (liquidation); default 0, 0. */
  spendPath?: VaultLeafChoice;
}

/** The treasury UNIT UTXO handed out by unit.reserve (ReserveResult.treasury_utxo). */
export interface TreasuryUtxo {
  txid: string;
  vout: number;
  value: bigint;
  script: Uint8Array;
  unitAmount: bigint;
  /**
   * `treasury_pubkey` of /api/config: the P2TR key-path internal key of this server's treasury key.
   * Absent when the treasury is the guardian network's `OP_1 <group key>`: that key is already the
   * output key, and its internal key is nobody's to give.
   */
  internalKey?: Uint8Array;
}

/** A UNIT output of the wallet's runes address (SPEC §3 UNIT output). */
export interface UnitUtxo {
  txid: string;
  vout: number;
  value: bigint;
  script: Uint8Array;
  unitAmount: bigint;
}

export interface ActionBase {
  wallet: VaultWallet;
  utxos: readonly PaymentUtxo[];
  /** sat/vB */
  feeRate: number;
  state: VaultStateFields;
  /** The vault output after the action: its liquidation leaf commits to the new threshold. */
  newVault: Pick<VaultOutput, 'script'>;
  dustLimit?: bigint;
}

export interface RuneIssue {
  unitRuneId: RuneId;
  /** Postage of the account's own UNIT output (its referral level's); default SPEC §9's. */
  postageSats?: bigint;
}

export interface BuiltVaultTx extends AssembledVaultTx {
  /** The state record the transaction carries. */
  state: StateRecord;
}

/**
 * Everything any action's builder may take, for callers that hold one request of any action (the web
 * client, the test harness, the scripts): `btc` is the BTC the user moves (deposit, withdrawal, an
 * open's deposit), `unit` the UNIT (borrowed, repaid, an open's borrow); each declaration's `build`
 * takes the pieces its action spends and refuses a request that lacks one.
 */
export interface ActionRequest extends ActionBase {
  btc: bigint;
  unit: bigint;
  vault?: VaultUtxo;
  liquidated?: VaultUtxo;
  treasury?: TreasuryUtxo;
  /** Where UNIT goes back (repay) and the tax goes (repossess). */
  treasuryScript?: Uint8Array;
  unitUtxos?: readonly UnitUtxo[];
  unitRuneId?: RuneId;
  postageSats?: bigint;
  treasuryPostageSats?: bigint;
}

/** What a form collected, for an action's payload: amounts in sats and UNIT hundredths. */
export interface ActionForm {
  btc: bigint;
  unit: bigint;
  /** sat/vB */
  feeRate: number;
  /** open: the vault's name */
  label?: string;
  /** repossess: the vault claimed */
  liquidatedVaultId?: string;
}

/** A piece an action's request must carry, or the request is refused before any PSBT. */
export function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new TypeError(`this action needs ${what}`);
  return value;
}

/** The request with the requester's vault, which every action but open spends. */
export const withVault = (request: ActionRequest) => ({
  ...request,
  vault: need(request.vault, 'the vault'),
});
