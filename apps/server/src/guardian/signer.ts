// Who adds the guardian's signatures to a vault transaction: this server's own key (GUARDIAN_NETWORK
// off, one guardian), or the t-of-n guardian network that this server only coordinates
// (guardian-network/network-signer.ts). The pipeline sees only this port: the key the vault leaves
// commit to, and an asynchronous co-signature of the fixed inputs an action's declaration names.
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import {
  addLiquidationWitness,
  cosignVaultInput,
  type InputRole,
  type Prevout,
} from '@unit/bitcoin';
import type { Approvals, NetworkExclusionDto } from '@unit/protocol/wire';
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
   * (guardian-network/treasury-set.ts). Absent: the first of `olderGuardPubkeys`, else `guardPubkey`.
   */
  treasuryPubkey?: Uint8Array;
  /**
   * The PSBT with the guardian's signatures on its `vault` and `liquidated` inputs (the liquidation
   * witness complete). Treasury inputs are not its business (cosign.ts signs them). The network,
   * which signs every input the guardian and the treasury sign, may answer the finished
   * transaction instead, checked once, with its signatures, against `job.prevouts`.
   */
  sign(job: CosignJob): Promise<Uint8Array | Finished>;
  /** Network mode: the guardians last left out of a signing, newest first (exclusion-log.ts). */
  recentExclusions?: () => NetworkExclusionDto[];
}

/** Today's single guardian: one key in this server signs every vault spend, synchronously. */
export function localSigner(guardianKey: Uint8Array): GuardianSigner {
  return {
    kind: 'local',
    guardPubkey: pubSchnorr(guardianKey),
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
