// The app server as the coordinator of the guardian network (GUARDIAN_NETWORK local or external):
// it holds no share, only the coordinator identity `guardian dkg` wrote, and asks the t-of-n
// guardians of the published set to sign each guardian input of a vault transaction. One FROST
// session per input (id `${nonce}:${input}`), message = the input's BIP-341 sighash
// (SIGHASH_DEFAULT) of its vault leaf, or of the key path for the treasury's input (the treasury
// is `OP_1 <group key>`: cosign/treasury-output.ts), context = the request (docs/guardian-network.md,
// contract "vault-input"). Every guardian decides alone; fewer than t approvals is a refusal that
// names each guardian's reason. The signatures are checked once, with the whole transaction, by
// verifyInputs against the chain's prevouts (final-check.ts) before anything is broadcast.
import { hex } from '@scure/base';
import { OutScript, TaprootControlBlock, Transaction } from '@scure/btc-signer';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import { equalBytes, hash160 } from '@scure/btc-signer/utils.js';
import { classifyTapLeaf, TAPSCRIPT_LEAF_VERSION } from '@unit/bitcoin';
import {
  Coordinator,
  QuorumError,
  type GuardianSet,
  type PoolOptions,
  type SignEvent,
} from '@unit/guardian-net';
import { DomainError } from '../errors';
import type { CosignJob, GuardianSigner } from '../cosign/signer';
import { ExclusionLog } from './exclusion-log';
import { FinalCheck, FINAL_PSBT_OPTS } from './final-check';
import { SetBoards } from './set-boards';
import { settlementCosigner } from './settle-cosign';
import { signingSets, type GuardianNetworkFiles } from './set-chain';
import { firstAttempt, NETWORK_SIGN_TIMEOUT_MS } from './signing-attempts';

export { loadGuardianNetwork, type GuardianNetworkFiles } from './set-chain';

const PSBT_OPTS = { allowUnknownOutputs: true } as const;
/** The contract's role names for the declaration's (its `liquidated` input is `liquidation`). */
const ROLE_OF = { vault: 'vault', treasury: 'treasury', liquidated: 'liquidation' } as const;
const SIGHASH_DEFAULT = 0;
export { ATTEMPTS_PER_SIGNING, firstAttempt, NETWORK_SIGN_TIMEOUT_MS } from './signing-attempts';

/** One set of the chain and the coordinator that asks its guardians. */
interface SetSigner {
  set: GuardianSet;
  key: Uint8Array;
  coordinator: Coordinator;
}

interface Session {
  /** The set whose key the input commits to: it signs this input (a vault not moved yet: an older one). */
  signer: SetSigner;
  input: number;
  kind: 'update' | 'liquidation' | 'treasury';
  /** Empty for the treasury's key path. */
  leafScript: Uint8Array;
  message: Uint8Array;
}

/** The treasury's input: key path of `OP_1 <group key>`, nothing else. */
function treasurySession(
  tx: Transaction,
  input: number,
  scripts: Uint8Array[],
  amounts: bigint[],
  signers: readonly SetSigner[],
): Session {
  const signer = signers.find((s) =>
    equalBytes(scripts[input]!, OutScript.encode({ type: 'tr', pubkey: s.key })),
  );
  if (!signer)
    throw new DomainError(
      'bad_request',
      `input ${input} is not the treasury of the guardian network`,
    );
  const message = tx.preimageWitnessV1(input, scripts, SIGHASH_DEFAULT, amounts);
  return { signer, input, kind: 'treasury', leafScript: new Uint8Array(), message };
}

/** The leaf the guardian signs on each guardian input (or the treasury's key path), and its sighash. */
function sessionsOf(tx: Transaction, job: CosignJob, signers: readonly SetSigner[]): Session[] {
  const scripts: Uint8Array[] = [];
  const amounts: bigint[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const utxo = tx.getInput(i).witnessUtxo;
    if (!utxo) throw new DomainError('bad_request', `input ${i} has no witnessUtxo`);
    scripts.push(utxo.script);
    amounts.push(utxo.amount);
  }
  const sessions: Session[] = [];
  job.spends.forEach(({ role }, input) => {
    if (role === 'treasury') {
      sessions.push(treasurySession(tx, input, scripts, amounts, signers));
      return;
    }
    const kind = role === 'vault' ? 'update' : 'liquidation';
    // One liquidation leaf per oracle: the one the revealed secret opens (docs/guardian-network.md).
    const opens = kind === 'liquidation' && job.secret ? hash160(job.secret) : null;
    let signer: SetSigner | undefined;
    const leaf = tx.getInput(input).tapLeafScript?.find(([, withVersion]) => {
      const leafKind = classifyTapLeaf(withVersion.subarray(0, -1));
      if (leafKind?.kind !== kind) return false;
      if (opens && !(leafKind.kind === 'liquidation' && equalBytes(leafKind.thresholdHash, opens)))
        return false;
      signer = signers.find((s) => equalBytes(leafKind.guardPubkey, s.key));
      return signer !== undefined;
    });
    if (!leaf || !signer)
      throw new DomainError(
        'bad_request',
        `input ${input} has no ${kind} leaf under a key of the guardian network`,
      );
    const leafScript = leaf[1].subarray(0, -1);
    const message = tx.preimageWitnessV1(
      input,
      scripts,
      SIGHASH_DEFAULT,
      amounts,
      -1,
      leafScript,
      TAPSCRIPT_LEAF_VERSION,
    );
    sessions.push({ signer, input, kind, leafScript, message });
  });
  return sessions;
}

/** The group's signature on its input: key path, a leaf signature, or the whole liquidation witness. */
function place(
  tx: Transaction,
  session: Session,
  signature: Uint8Array,
  secret: Uint8Array | null,
): void {
  const { input, leafScript } = session;
  const groupKey = session.signer.key;
  if (session.kind === 'treasury') {
    tx.updateInput(input, { tapKeySig: signature });
    return;
  }
  if (session.kind === 'update') {
    const leafHash = tapLeafHash(leafScript, TAPSCRIPT_LEAF_VERSION);
    tx.updateInput(input, { tapScriptSig: [[{ pubKey: groupKey, leafHash }, signature]] });
    return;
  }
  if (!secret) throw new DomainError('not_liquidated', 'No revealed threshold secret');
  const [controlBlock] = tx
    .getInput(input)
    .tapLeafScript!.find(([, s]) => equalBytes(s.subarray(0, -1), leafScript))!;
  // `<guardian signature> <secret> <leaf script> <control block>` (packages/bitcoin flows/sign.ts).
  tx.updateInput(
    input,
    {
      finalScriptWitness: [signature, secret, leafScript, TaprootControlBlock.encode(controlBlock)],
    },
    true,
  );
}

export interface NetworkSignerOptions extends Omit<GuardianNetworkFiles, 'older'> {
  /** The older sets of the chain, oldest first (set-chain.ts); none before a rotation. */
  older?: GuardianSet[];
  /** Per call to one guardian (default 5 s). */
  callTimeoutMs?: number;
  /** The network's whole answer (default NETWORK_SIGN_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Where each guardian left out of a signing is recorded (default a log of its own). */
  exclusions?: ExclusionLog;
  /** The coordinators' pools of preprocessed commitments (default on); false: two round trips. */
  preprocess?: PoolOptions | boolean;
}

export function networkSigner(options: NetworkSignerOptions): GuardianSigner {
  const { set, identity } = options;
  // Oldest first; the newest set's key is every new vault's, each older one's signs its old vaults.
  // A set resharing replaced (same key) no longer signs: its successor does (set-chain.ts).
  const signers: SetSigner[] = signingSets([...(options.older ?? []), set]).map((s) => ({
    set: s,
    key: hex.decode(s.groupKey!),
    // Each guardian's commitments preprocessed (commitment-pool.ts): a request decided and signed
    // in one round trip; a guardian whose pool is empty is asked by the two-round path.
    coordinator: new Coordinator(s, identity, options.callTimeoutMs ?? 5_000, {
      preprocess: options.preprocess ?? true,
    }),
  }));
  const newest = signers.at(-1)!;
  // The newest set signs every new vault: its pools fill now (retried until its guardians answer).
  void newest.coordinator.pool?.fill();
  // The settlement leaf of a vault names its set's key: that set signs it (settle-cosign.ts).
  const settlers = new Map(
    signers.map((s) => [hex.encode(s.key), settlementCosigner(s.set, identity, options)]),
  );
  const timeoutMs = options.timeoutMs ?? NETWORK_SIGN_TIMEOUT_MS;
  const exclusions = options.exclusions ?? new ExclusionLog();
  return {
    kind: 'network',
    recentExclusions: () => exclusions.recent(),
    guardPubkey: newest.key,
    olderGuardPubkeys: signers.slice(0, -1).map((s) => s.key),
    signSettlement: async ({ guardPubkey, ...job }) => {
      const settle = settlers.get(hex.encode(guardPubkey));
      if (!settle) throw new Error("no guardian set of this network holds the vault's key");
      return settle(job);
    },
    sign: async (job) => {
      // With the chain's prevouts, read as final-check.ts reads it (FinalCheck finishes this copy).
      const tx = Transaction.fromPSBT(job.psbt, job.prevouts ? FINAL_PSBT_OPTS : PSBT_OPTS);
      const sessions = sessionsOf(tx, job, signers);
      if (sessions.length === 0) return job.psbt;
      const board = new SetBoards(sessions.map((s) => s.signer.set));
      let open = true;
      const show = () => open && job.onApprovals?.(board.snapshot());
      const onEventOf = (of: GuardianSet) => (event: SignEvent) => {
        if (board.record(of, event)) show();
      };
      show();
      // With the chain's prevouts, the finished transaction is the one check of the signatures.
      const final =
        job.prevouts &&
        new FinalCheck(
          tx,
          job.psbt,
          sessions.map((s) => ({ input: s.input, message: s.message, key: s.signer.key })),
          (into, i, signature) => place(into, sessions[i]!, signature, job.secret),
          job.prevouts,
        );
      const signing = Promise.all(
        sessions.map((s, i) =>
          s.signer.coordinator.sign(
            s.message,
            {
              kind: 'vault-input',
              action: job.action,
              request: job.request,
              input: s.input,
              role: ROLE_OF[job.spends[s.input]!.role],
              // A repossess's sessions both carry the claimed vault's secret (contract.md).
              ...(job.secret ? { secret: hex.encode(job.secret) } : {}),
            },
            onEventOf(s.signer.set),
            {
              sessionId: `${job.nonce}:${s.input}`,
              firstAttempt: firstAttempt(Date.now()),
              onExclusion: (x) => exclusions.record(s.signer.set, x),
              ...(final ? { check: (signature: Uint8Array) => final.check(i, signature) } : {}),
            },
          ),
        ),
      );
      // The user's signatures, checked while the guardians sign (once the requests are out).
      if (final) setImmediate(() => final.precheck());
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new NetworkTimeout()), timeoutMs);
      });
      try {
        const results = await Promise.race([signing, deadline]);
        if (final?.finished) return final.finished;
        // Not finished here (no prevouts, or an input the group does not sign failed): placed on a
        // fresh parse, for cosign.ts to finish and check as for any signer.
        const signed = final ? Transaction.fromPSBT(job.psbt, PSBT_OPTS) : tx;
        results.forEach((r, i) => place(signed, sessions[i]!, r.signature, job.secret));
        return signed.toPSBT(0);
      } catch (error) {
        if (!(error instanceof QuorumError || error instanceof NetworkTimeout)) throw error;
        // Late answers must not repaint a request that has already failed.
        signing.catch(() => undefined);
        if (error instanceof NetworkTimeout)
          board.giveUp(`no answer within ${Math.round(timeoutMs / 1000)} s`);
        show();
        open = false;
        throw new DomainError('guardians_refused', board.refusalMessage());
      } finally {
        open = false;
        clearTimeout(timer);
      }
    },
  };
}

class NetworkTimeout extends Error {}
