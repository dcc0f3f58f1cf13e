// Who adds the guardian's signatures to a vault transaction: this server's own key (GUARDIAN_NETWORK
// off, one guardian), or the t-of-n guardian network that this server only coordinates
// (network-client/network-signer.ts). The pipeline sees only this port: the key the vault leaves
// commit to, and an asynchronous co-signature of the fixed inputs an action's declaration names.
import { schnorr } from '@noble/curves/secp256k1.js';
import type { Transaction } from '@scure/btc-signer';
import { equalBytes, pubSchnorr } from '@scure/btc-signer/utils.js';
import {
  addLiquidationWitness,
  cosignVaultInput,
  finishSettlement,
  settlementSighash,
  type SettlementPlan,
  type SettlementRequest,
  type InputRole,
  type Prevout,
} from '@unit/bitcoin';
import type { Approvals, NetworkExclusionDto, SignedQuote } from '@unit/protocol/wire';
import { DomainError } from '../errors';

/** One co-signing job: a validated request's PSBT and what the guardians need to judge it. */
export interface CosignJob {
  /** The vault action (or 'speedup' for a replacement of one). */
  action: string;
  /** The request exactly as the wallet sent it (the guardians re-validate it). */
  request: unknown;
  /** The request's nonce (hex): the network's session ids are `${nonce}:${input}`. */
  nonce: string;
  /** The declaration's fixed inputs, in order (input i is spends[i]). */
  spends: readonly InputRole[];
  psbt: Uint8Array;
  /** The revealed threshold secret of a repossess's liquidated vault, else null. */
  secret: Uint8Array | null;
  /** Each guardian's decision as it arrives (tracker step 4); not called by a lone guardian. */
  onApprovals?: (approvals: Approvals) => void;
  /** The chain's prevouts of every input, for a signer that finishes and checks the transaction. */
  prevouts?: readonly Prevout[];
}

/** A settlement at the term to sign (term-settle-round.ts), and the key its leaf commits to. */
export interface SettlementJob {
  plan: SettlementPlan;
  request: SettlementRequest;
  vaultPubkey: string;
  quote: SignedQuote;
  /** The key of the vault's settlement leaf: the set that signs it (an older one's until it moves). */
  guardPubkey: Uint8Array;
}

/** A transaction the signer finished: finalized and passed by `verifyInputs` on `job.prevouts`. */
export interface Finished {
  raw: string;
}

export interface GuardianSigner {
  /** `network` when t of n guardians sign; `local` when this server's key does. */
  kind: 'local' | 'network';
  /** x-only `guard_pubkey` that every new vault leaf commits to (the newest guardian set's). */
  guardPubkey: Uint8Array;
  /**
   * The older guardian sets' keys, oldest first, that vaults not moved yet still commit to (a
   * rotation: docs/protocol.md); their next action moves them to `guardPubkey`.
   */
  olderGuardPubkeys?: readonly Uint8Array[];
  /**
   * Network mode: the set key the treasury is under, the first set's until the operator moves it
   * (network-client/treasury-set.ts). Absent: the first of `olderGuardPubkeys`, else `guardPubkey`.
   */
  treasuryPubkey?: Uint8Array;
  /**
   * The PSBT with the guardian's signatures on its `vault` and `liquidated` inputs (the liquidation
   * witness complete). Treasury inputs are not its business (cosign.ts signs them). The network,
   * which signs every input the guardian and the treasury sign, may answer the finished
   * transaction instead, checked once, with its signatures, against `job.prevouts`.
   */
  sign(job: CosignJob): Promise<Uint8Array | Finished>;
  /**
   * The settlement at the term signed through the vault's settlement leaf and finished; network
   * mode asks the set with the 'settle' context, each guardian checking it alone (settle-cosign.ts).
   */
  signSettlement?(job: SettlementJob): Promise<Transaction>;
  /** Network mode: the guardians last left out of a signing, newest first (exclusion-log.ts). */
  recentExclusions?: () => NetworkExclusionDto[];
}

/** GUARDIAN_NETWORK=off: one key in this server signs every vault spend, synchronously. */
export function localSigner(guardianKey: Uint8Array): GuardianSigner {
  const guardPubkey = pubSchnorr(guardianKey);
  return {
    kind: 'local',
    guardPubkey,
    signSettlement: ({ plan, request, guardPubkey: leafKey }) => {
      if (!equalBytes(leafKey, guardPubkey))
        return Promise.reject(new Error("the vault's settlement leaf is not this guardian's key"));
      const signature = schnorr.sign(settlementSighash(plan, request), guardianKey);
      return Promise.resolve(finishSettlement(plan, request, signature));
    },
    sign: ({ spends, psbt, secret }) => {
      let signed = psbt;
      spends.forEach(({ role }, index) => {
        if (role === 'vault') signed = cosignVaultInput(signed, guardianKey, index);
        else if (role === 'liquidated') {
          if (!secret) throw new DomainError('not_liquidated', 'No revealed threshold secret');
          signed = addLiquidationWitness(signed, index, { secret, guardianKey });
        }
      });
      return Promise.resolve(signed);
    },
  };
}
