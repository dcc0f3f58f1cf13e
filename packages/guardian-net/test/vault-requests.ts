// Vault requests built the way the web app and apps/server/test/guardian/harness.ts build them
// (through @unit/bitcoin's request planner, at the state after the action, signed by the wallet),
// for guardians whose group key is in the vault's leaves; and the message of each fixed input,
// computed as the coordinator does. Used by the policy's unit test and the app's guardian-network
// test.
import { randomBytes } from 'node:crypto';
import { base64, hex } from '@scure/base';
import { p2tr, p2wpkh, Transaction } from '@scure/btc-signer';
import { hash160, pubECDSA, pubSchnorr, type BTC_NETWORK } from '@scure/btc-signer/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  buildVaultRequest,
  declarationOf,
  liquidationLeafScript,
  planVaultRequest,
  quotedRequest,
  signUserInputs,
  taprootSighash,
  updateLeafScript,
  type BuiltVaultTx,
  type PaymentUtxo,
  type RuneId,
  type TreasuryUtxo,
  type VaultUtxo,
  type VaultWallet,
} from '@unit/bitcoin';
import type { SignedVaultRequest, VaultAction } from '@unit/protocol';
import { envelopeFields, type SignedQuote } from '@unit/protocol/wire';

export const FEE_RATE = 2;
export const keyOf = (label: string) => sha256(new TextEncoder().encode(`policy test: ${label}`));

/** An oracle quote as GET /api/oracle/quote answers it (signed fields plus the threshold hash). */
export type OracleQuote = SignedQuote & { threshold_hash: string; threshold_hashes?: string[] };

/** A wallet: P2WPKH payments, a P2TR runes address, a vault key. */
export class Wallet {
  readonly paymentKey: Uint8Array;
  readonly runesKey: Uint8Array;
  readonly vaultKey: Uint8Array;
  readonly vaultPubkey: string;
  readonly vaultWallet: VaultWallet;
  readonly paymentAddress: string;

  constructor(label: string, network: BTC_NETWORK) {
    this.paymentKey = keyOf(`${label} payment`);
    this.runesKey = keyOf(`${label} runes`);
    this.vaultKey = keyOf(`${label} vault`);
    this.vaultPubkey = hex.encode(pubSchnorr(this.vaultKey));
    const payment = p2wpkh(pubECDSA(this.paymentKey), network);
    this.paymentAddress = payment.address!;
    this.vaultWallet = {
      satsScript: payment.script,
      paymentPublicKey: pubECDSA(this.paymentKey),
      runesScript: p2tr(pubSchnorr(this.runesKey), undefined, network).script,
      runesPublicKey: pubSchnorr(this.runesKey),
    };
  }
}

export interface Draft {
  action: VaultAction;
  request: SignedVaultRequest<unknown>;
  built: BuiltVaultTx;
  /** the txid the transaction will have (segwit: the signatures do not change it) */
  txid: string;
}

export interface DraftParams {
  action: VaultAction;
  wallet: Wallet;
  network: BTC_NETWORK;
  groupKey: Uint8Array;
  treasuryScript: Uint8Array;
  unitRuneId: RuneId;
  now: number;
  /** the oracle's quote for the state after the action (see thresholdAfter) */
  quote: (th: number, ts: number) => Promise<OracleQuote> | OracleQuote;
  payments: PaymentUtxo[];
  btc: bigint;
  unit: bigint;
  vault?: VaultUtxo;
  liquidated?: VaultUtxo;
  liquidatedVaultId?: string;
  treasury?: TreasuryUtxo;
}

/** A signed request of `action`, built through the planner at the state after it. */
export async function draftRequest(p: DraftParams): Promise<Draft> {
  const plan = planVaultRequest({
    action: p.action,
    btc: p.btc,
    unit: p.unit,
    ...(p.vault ? { vault: p.vault } : {}),
    ...(p.liquidated ? { liquidated: p.liquidated } : {}),
    wallet: p.wallet.vaultWallet,
    feeRate: FEE_RATE,
  });
  const quote = await p.quote(plan.thresholdCents, p.now);
  const draft = { nonce: randomBytes(16), expiresAt: p.now + 120 };
  const quoted = quotedRequest(plan, {
    quote,
    draft,
    keys: {
      vaultPubkey: hex.decode(p.wallet.vaultPubkey),
      guardPubkey: p.groupKey,
      network: p.network,
    },
  });
  const { built, payload, signers } = buildVaultRequest(plan, quoted, {
    utxos: p.payments,
    treasuryScript: p.treasuryScript,
    unitRuneId: p.unitRuneId,
    ...(p.treasury ? { treasury: p.treasury } : {}),
    label: 'policy vault',
    ...(p.liquidatedVaultId ? { liquidatedVaultId: p.liquidatedVaultId } : {}),
  });
  let psbt = built.psbt;
  for (const { index, key } of signers)
    psbt = signUserInputs(psbt, key === 'vault' ? p.wallet.vaultKey : p.wallet.paymentKey, [index]);
  const request: SignedVaultRequest<unknown> = {
    ...envelopeFields({ draft, vaultPubkey: p.wallet.vaultPubkey, quote }),
    psbt: base64.encode(psbt),
    payload,
  };
  const txid = Transaction.fromPSBT(psbt, { allowUnknownOutputs: true }).id;
  return { action: p.action, request, built, txid };
}

export type Role = 'vault' | 'treasury' | 'liquidation';

/** The fixed inputs a guardian signs: index and contract role. */
export function fixedInputs(action: VaultAction): { input: number; role: Role }[] {
  return declarationOf(action).spends.map((s, input) => ({
    input,
    role: s.role === 'liquidated' ? 'liquidation' : s.role,
  }));
}

/** The sighash the coordinator asks the guardians to sign for one fixed input. */
export function inputMessage(
  request: SignedVaultRequest<unknown>,
  input: number,
  role: Role,
  groupKey: Uint8Array,
  secret?: Uint8Array,
): Uint8Array {
  const tx = Transaction.fromPSBT(base64.decode(request.psbt), { allowUnknownOutputs: true });
  const prevouts = Array.from({ length: tx.inputsLength }, (_, i) => tx.getInput(i).witnessUtxo!);
  const leaf =
    role === 'treasury'
      ? null
      : role === 'vault'
        ? updateLeafScript(hex.decode(request.vault_pubkey), groupKey)
        : liquidationLeafScript(hash160(secret!), groupKey);
  return taprootSighash(tx, prevouts, input, leaf);
}

/** The contract's context of one fixed input. */
export function inputContext(draft: Draft, input: number, role: Role, secret?: Uint8Array) {
  return {
    kind: 'vault-input' as const,
    action: draft.action,
    request: draft.request,
    input,
    role,
    ...(secret ? { secret: hex.encode(secret) } : {}),
  };
}
