// The app server as the coordinator of the guardian network (GUARDIAN_NETWORK local or external):
// it holds no share, only the coordinator identity `guardian dkg` wrote, and asks the t-of-n
// guardians of the published set to sign each guardian input of a vault transaction. One FROST
// session per input (id `${nonce}:${input}`), message = the input's BIP-341 sighash
// (SIGHASH_DEFAULT) of its vault leaf, or of the key path for the treasury's input (the treasury
// is `OP_1 <group key>`: guardian/treasury-output.ts), context = the request (docs/guardian-network.md,
// contract "vault-input"). Every guardian decides alone; fewer than t approvals is a refusal that
// names each guardian's reason. The signature is checked by the coordinator under the group key,
// and the whole transaction again by cosign.ts (verifyInputs) before anything is broadcast.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hex } from '@scure/base';
import { OutScript, TaprootControlBlock, Transaction } from '@scure/btc-signer';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import { equalBytes, hash160 } from '@scure/btc-signer/utils.js';
import { classifyTapLeaf, TAPSCRIPT_LEAF_VERSION } from '@unit/bitcoin';
import {
  Coordinator,
  loadIdentity,
  QuorumError,
  verifySet,
  type GuardianSet,
  type Identity,
  type SignEvent,
} from '@unit/guardian-net';
import { DomainError } from '../errors';
import type { CosignJob, GuardianSigner } from '../guardian/signer';
import { ApprovalBoard } from './approvals';

const PSBT_OPTS = { allowUnknownOutputs: true } as const;
/** The contract's role names for the declaration's (its `liquidated` input is `liquidation`). */
const ROLE_OF = { vault: 'vault', treasury: 'treasury', liquidated: 'liquidation' } as const;
const SIGHASH_DEFAULT = 0;
/** The network's whole answer to one request: every session, both rounds, retries included. */
export const NETWORK_SIGN_TIMEOUT_MS = 20_000;

export interface GuardianNetworkFiles {
  set: GuardianSet;
  identity: Identity;
}

/**
 * The published set and this server's coordinator identity from the directory `guardian dkg`
 * writes (`guardian-set.json`, `coordinator/identity.json`), the set verified (structure, FROST
 * consistency, every member's signature) and, when given, pinned to the group key the vaults
 * already commit to.
 */
export function loadGuardianNetwork(dir: string, pinnedGroupKey?: string): GuardianNetworkFiles {
  const path = join(dir, 'guardian-set.json');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(
      `No readable guardian set at ${path} (${(error as Error).message}); create one with ` +
        '`npm run guardian -- dkg --dir <dir>` or point GUARDIAN_DIR at the network’s directory',
      { cause: error },
    );
  }
  const set = verifySet(raw, pinnedGroupKey);
  const identity = loadIdentity(join(dir, 'coordinator', 'identity.json'));
  if (!set.coordinators.some((c) => c.identityKey === identity.publicKey))
    throw new Error(`The identity in ${dir}/coordinator is not a coordinator of the guardian set`);
  return { set, identity };
}

interface Session {
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
  groupKey: Uint8Array,
): Session {
  if (!equalBytes(scripts[input]!, OutScript.encode({ type: 'tr', pubkey: groupKey })))
    throw new DomainError(
      'bad_request',
      `input ${input} is not the treasury of the guardian network`,
    );
  const message = tx.preimageWitnessV1(input, scripts, SIGHASH_DEFAULT, amounts);
  return { input, kind: 'treasury', leafScript: new Uint8Array(), message };
}

/** The leaf the guardian signs on each guardian input (or the treasury's key path), and its sighash. */
function sessionsOf(tx: Transaction, job: CosignJob, groupKey: Uint8Array): Session[] {
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
      sessions.push(treasurySession(tx, input, scripts, amounts, groupKey));
      return;
    }
    const kind = role === 'vault' ? 'update' : 'liquidation';
    // One liquidation leaf per oracle: the one the revealed secret opens (docs/guardian-network.md).
    const opens = kind === 'liquidation' && job.secret ? hash160(job.secret) : null;
    const leaf = tx.getInput(input).tapLeafScript?.find(([, withVersion]) => {
      const leafKind = classifyTapLeaf(withVersion.subarray(0, -1));
      if (leafKind?.kind !== kind || !equalBytes(leafKind.guardPubkey, groupKey)) return false;
      return (
        !opens || (leafKind.kind === 'liquidation' && equalBytes(leafKind.thresholdHash, opens))
      );
    });
    if (!leaf)
      throw new DomainError(
        'bad_request',
        `input ${input} has no ${kind} leaf under the guardian network's key`,
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
    sessions.push({ input, kind, leafScript, message });
  });
  return sessions;
}

/** The group's signature on its input: key path, a leaf signature, or the whole liquidation witness. */
function place(
  tx: Transaction,
  session: Session,
  signature: Uint8Array,
  groupKey: Uint8Array,
  secret: Uint8Array | null,
): void {
  const { input, leafScript } = session;
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

/**
 * A guardian gives one nonce per (session, attempt), ever, and a session id is the request's, so a
 * request signed again (retaken after a failure, or by another instance after a crash) must not
 * start at attempt 1 again. Each signing takes 4 attempts from a base that moves every 2.5 s and
 * comes round again after 249 steps (622 s): longer than a request lives (600 s at most), inside
 * the 1..1000 a guardian accepts. Two signings of one request within 2.5 s (not possible while its
 * vault is locked) would find their nonces taken and fail cleanly, naming the guardians.
 */
export function firstAttempt(nowMs: number): number {
  return 1 + 4 * (Math.floor(nowMs / 2_500) % 249);
}

export interface NetworkSignerOptions extends GuardianNetworkFiles {
  /** Per call to one guardian (default 5 s). */
  callTimeoutMs?: number;
  /** The network's whole answer (default NETWORK_SIGN_TIMEOUT_MS). */
  timeoutMs?: number;
}

export function networkSigner(options: NetworkSignerOptions): GuardianSigner {
  const { set, identity } = options;
  const coordinator = new Coordinator(set, identity, options.callTimeoutMs ?? 5_000);
  const groupKey = hex.decode(set.groupKey!);
  const timeoutMs = options.timeoutMs ?? NETWORK_SIGN_TIMEOUT_MS;
  return {
    kind: 'network',
    guardPubkey: groupKey,
    sign: async (job) => {
      const tx = Transaction.fromPSBT(job.psbt, PSBT_OPTS);
      const sessions = sessionsOf(tx, job, groupKey);
      if (sessions.length === 0) return job.psbt;
      const board = new ApprovalBoard(set.members, set.t, sessions.length);
      let open = true;
      const show = () => open && job.onApprovals?.(board.snapshot());
      const onEvent = (event: SignEvent) => {
        if (board.record(event)) show();
      };
      show();
      const signing = Promise.all(
        sessions.map((s) =>
          coordinator.sign(
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
            onEvent,
            { sessionId: `${job.nonce}:${s.input}`, firstAttempt: firstAttempt(Date.now()) },
          ),
        ),
      );
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new NetworkTimeout()), timeoutMs);
      });
      try {
        const results = await Promise.race([signing, deadline]);
        results.forEach((r, i) => place(tx, sessions[i]!, r.signature, groupKey, job.secret));
        return tx.toPSBT(0);
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
