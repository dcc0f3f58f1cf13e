// The operator's treasury transaction signed by the guardian network (GUARDIAN_NETWORK local or
// external): the treasury is `OP_1 <group key>`, so each input's key path is one FROST session the
// app's coordinator runs (the same Coordinator, attempt numbering and refusal message as
// network-signer.ts), id `<txid>:<input>`, context `{kind: 'treasury-split', psbt, input}` (or
// `treasury-move` after a rotation, signed by the older set the treasury is under). Each guardian
// checks it on its own chain view (packages/guardian-net/src/vault-policy/treasury-split.ts,
// treasury-move.ts) and fewer than t approvals is a refusal naming each guardian's reason. Nothing
// is broadcast here.
import { schnorr } from '@noble/curves/secp256k1.js';
import { base64, hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { Coordinator, QuorumError, type GuardianSet, type SignEvent } from '@unit/guardian-net';
import { ApprovalBoard } from '../network-client/approvals';
import {
  firstAttempt,
  NETWORK_SIGN_TIMEOUT_MS,
  type GuardianNetworkFiles,
} from '../network-client/network-signer';

const SIGHASH_DEFAULT = 0;

/** The guardians' answer was fewer than t approvals (or none in time): nothing was signed. */
export class TreasuryRefused extends Error {}

export interface TreasuryCosignOptions {
  /** Per call to one guardian (default 5 s). */
  callTimeoutMs?: number;
  /** The network's whole answer (default NETWORK_SIGN_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Told which guardians signed, once they have. */
  say?: (line: string) => void;
  /** The set whose key the treasury is under (treasury-set.ts); default the first of the chain. */
  set?: GuardianSet;
  /** What the guardians are asked to check: a split (default), or a move to the newest set. */
  kind?: 'treasury-split' | 'treasury-move';
}

/** Signs every input of `tx` (all the treasury's key path) through the network, and finalizes it. */
export type TreasuryCosigner = (tx: Transaction) => Promise<Transaction>;

export function treasuryCosigner(
  files: GuardianNetworkFiles,
  options: TreasuryCosignOptions = {},
): TreasuryCosigner {
  // The treasury stays under the first set after a rotation until moved (treasury-set.ts).
  const set = options.set ?? files.older[0] ?? files.set;
  const kind = options.kind ?? 'treasury-split';
  const { identity } = files;
  const coordinator = new Coordinator(set, identity, options.callTimeoutMs ?? 5_000);
  const groupKey = hex.decode(set.groupKey!);
  const timeoutMs = options.timeoutMs ?? NETWORK_SIGN_TIMEOUT_MS;
  return async (unsigned) => {
    const tx = unsigned.clone();
    const scripts: Uint8Array[] = [];
    const amounts: bigint[] = [];
    for (let i = 0; i < tx.inputsLength; i++) {
      const utxo = tx.getInput(i).witnessUtxo;
      if (!utxo) throw new Error(`input ${i} has no witnessUtxo`);
      scripts.push(utxo.script);
      amounts.push(utxo.amount);
    }
    const psbt = base64.encode(tx.toPSBT(0));
    const messages = scripts.map((_, i) =>
      tx.preimageWitnessV1(i, scripts, SIGHASH_DEFAULT, amounts),
    );
    const board = new ApprovalBoard(set.members, set.t);
    const onEvent = (event: SignEvent) => void board.record(event);
    const attempt = firstAttempt(Date.now());
    const signing = Promise.all(
      messages.map((message, input) =>
        coordinator.sign(message, { kind, psbt, input }, onEvent, {
          sessionId: `${tx.id}:${input}`,
          firstAttempt: attempt,
        }),
      ),
    );
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimedOut()), timeoutMs);
    });
    try {
      const results = await Promise.race([signing, deadline]);
      results.forEach(({ signature }, input) => {
        // The coordinator checked it; a transaction is only ever sent with a valid signature.
        if (!schnorr.verify(signature, messages[input]!, groupKey))
          throw new Error(`the network's signature on input ${input} does not verify`);
        tx.updateInput(input, { tapKeySig: signature });
      });
      tx.finalize();
      const signers = new Set(results.flatMap((r) => r.signers));
      const names = set.members.filter((m) => signers.has(m.id)).map((m) => m.name);
      options.say?.(`signed by ${names.join(', ')} (${set.t} of ${set.n} needed)`);
      return tx;
    } catch (error) {
      if (!(error instanceof QuorumError || error instanceof TimedOut)) throw error;
      signing.catch(() => undefined);
      if (error instanceof TimedOut)
        board.giveUp(`no answer within ${Math.round(timeoutMs / 1000)} s`);
      throw new TreasuryRefused(board.refusalMessage());
    } finally {
      clearTimeout(timer);
    }
  };
}

class TimedOut extends Error {}
