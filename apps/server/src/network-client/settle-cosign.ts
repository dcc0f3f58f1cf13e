// The settlement at the term signed by the guardian network (docs/protocol.md, "Leaving without the
// guardians"): one FROST session of the set whose key the vault's settlement leaf commits to, id
// `<txid>:0`, context `{kind: 'settle', psbt, vault_pubkey, quote, fee_rate}`. Each guardian checks it
// on its own chain view and price (packages/guardian-net/src/vault-policy/settle.ts); fewer than t
// approvals is a refusal naming each guardian's reason. Nothing is broadcast here.
import { schnorr } from '@noble/curves/secp256k1.js';
import { base64, hex } from '@scure/base';
import type { Transaction } from '@scure/btc-signer';
import {
  finishSettlement,
  settlementSighash,
  type SettlementPlan,
  type SettlementRequest,
} from '@unit/bitcoin';
import {
  Coordinator,
  QuorumError,
  SETTLE_KIND,
  type GuardianSet,
  type SettleContext,
  type SignEvent,
} from '@unit/guardian-net';
import type { SignedQuote } from '@unit/protocol/wire';
import { ApprovalBoard } from './approvals';
import { firstAttempt, NETWORK_SIGN_TIMEOUT_MS } from './signing-attempts';

/** The guardians' answer was fewer than t approvals (or none in time): nothing was signed. */
export class SettlementRefused extends Error {}

/** What each guardian is asked to check: the plan's PSBT, the vault key, the quorum quote. */
export function settleContext(
  plan: SettlementPlan,
  request: SettlementRequest,
  vaultPubkey: string,
  quote: SignedQuote,
): SettleContext {
  return {
    kind: SETTLE_KIND,
    psbt: base64.encode(plan.tx.toPSBT()),
    vault_pubkey: vaultPubkey,
    quote,
    fee_rate: request.feeRate,
  };
}

export interface SettleCosignOptions {
  /** Per call to one guardian (default 5 s). */
  callTimeoutMs?: number;
  /** The network's whole answer (default NETWORK_SIGN_TIMEOUT_MS). */
  timeoutMs?: number;
}

/** Signs a planned settlement through `set` (the vault's set) and finishes it. */
export type SettlementCosigner = (args: {
  plan: SettlementPlan;
  request: SettlementRequest;
  vaultPubkey: string;
  quote: SignedQuote;
}) => Promise<Transaction>;

export function settlementCosigner(
  set: GuardianSet,
  identity: ConstructorParameters<typeof Coordinator>[1],
  options: SettleCosignOptions = {},
): SettlementCosigner {
  const coordinator = new Coordinator(set, identity, options.callTimeoutMs ?? 5_000);
  const groupKey = hex.decode(set.groupKey!);
  const timeoutMs = options.timeoutMs ?? NETWORK_SIGN_TIMEOUT_MS;
  return async ({ plan, request, vaultPubkey, quote }) => {
    const message = settlementSighash(plan, request);
    const context = settleContext(plan, request, vaultPubkey, quote);
    const board = new ApprovalBoard(set.members, set.t);
    const onEvent = (event: SignEvent) => void board.record(event);
    const signing = coordinator.sign(message, context, onEvent, {
      sessionId: `${plan.tx.id}:0`,
      firstAttempt: firstAttempt(Date.now()),
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimedOut()), timeoutMs);
    });
    try {
      const { signature } = await Promise.race([signing, deadline]);
      // The coordinator checked it; a settlement is only ever sent with a valid signature.
      if (!schnorr.verify(signature, message, groupKey))
        throw new Error("the network's signature of the settlement does not verify");
      return finishSettlement(plan, request, signature);
    } catch (error) {
      if (!(error instanceof QuorumError || error instanceof TimedOut)) throw error;
      signing.catch(() => undefined);
      if (error instanceof TimedOut)
        board.giveUp(`no answer within ${Math.round(timeoutMs / 1000)} s`);
      throw new SettlementRefused(board.refusalMessage());
    } finally {
      clearTimeout(timer);
    }
  };
}

class TimedOut extends Error {}
