// The guardian's work on the PSBT bytes of a vault request: reading it, the cheap check that the
// vault key signed its vault input (before any lock), and the co-signing of every fixed input the
// action's declaration says the guardian signs (its vault key, its treasury key, the liquidation
// leaf), then the final check of every signature against the chain's prevouts.
import { base64, hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { schnorr } from '@noble/curves/secp256k1.js';
import {
  finalize,
  parseTransaction,
  signTreasuryInput,
  TAPSCRIPT_LEAF_VERSION,
  updateLeafScript,
  verifyInputs,
  type InputRole,
  type Prevout,
} from '@unit/bitcoin';
import { DomainError } from '../errors';
import { bad, type Outpoint } from './action-reads';
import type { GuardianContext } from './context';
import type { CosignJob } from './signer';

// btc-signer refuses OP_RETURN outputs (state record, runestone) unless told they are wanted.
const PSBT_OPTS = { allowUnknownOutputs: true } as const;

export function readPsbt(psbtBase64: string): {
  bytes: Uint8Array;
  tx: Transaction;
  inputs: Outpoint[];
} {
  let bytes: Uint8Array;
  let tx: Transaction;
  try {
    bytes = base64.decode(psbtBase64);
    tx = Transaction.fromPSBT(bytes, PSBT_OPTS);
  } catch {
    throw bad('not a readable PSBT');
  }
  const inputs: Outpoint[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    if (!input.txid || input.index === undefined || !input.witnessUtxo)
      throw bad(`input ${i} has no witnessUtxo`);
    inputs.push({
      txid: hex.encode(input.txid),
      vout: input.index,
      script: input.witnessUtxo.script,
      amount: input.witnessUtxo.amount,
    });
  }
  return { bytes, tx, inputs };
}

export function outputScript(psbt: Uint8Array, index: number): Uint8Array {
  return Transaction.fromPSBT(psbt, PSBT_OPTS).getOutput(index).script ?? new Uint8Array();
}

/**
 * The vault key's signature of its vault input, over the prevouts the PSBT itself claims: CPU only,
 * no database or chain. A request that carries only someone's public vault key cannot pass it, so
 * it never gets to lock that vault. (The prevouts are checked against the chain later; a lie there
 * makes this signature fail the final check.)
 */
export function checkVaultSignature(
  g: GuardianContext,
  tx: Transaction,
  inputs: Outpoint[],
  index: number,
  vaultPubkey: Uint8Array,
): void {
  const refused = new DomainError(
    'bad_signature',
    'The vault input is not signed by the vault key',
  );
  if (index >= inputs.length) throw bad('the vault input is missing');
  // The update leaf under the vault's own guardian key: the newest set's, or an older one's until
  // this action moves the vault (rotation).
  let leafScript: Uint8Array = new Uint8Array();
  const entry = g.guardPubkeys
    .map((guardPubkey) => {
      const script = updateLeafScript(vaultPubkey, guardPubkey);
      const leafHash = tapLeafHash(script, TAPSCRIPT_LEAF_VERSION);
      const found = tx
        .getInput(index)
        .tapScriptSig?.find(
          ([key]) => equalBytes(key.pubKey, vaultPubkey) && equalBytes(key.leafHash, leafHash),
        );
      if (found) leafScript = script;
      return found;
    })
    .find(Boolean);
  if (!entry) throw refused;
  const signature = entry[1];
  if (signature.length !== 64 && signature.length !== 65) throw refused;
  const hashType = signature.length === 65 ? signature[64]! : 0;
  let ok = false;
  try {
    const message = tx.preimageWitnessV1(
      index,
      inputs.map((i) => i.script),
      hashType,
      inputs.map((i) => i.amount),
      -1,
      leafScript,
      TAPSCRIPT_LEAF_VERSION,
    );
    ok = schnorr.verify(signature.subarray(0, 64), message, vaultPubkey);
  } catch {
    ok = false;
  }
  if (!ok) throw refused;
}

/**
 * Adds the guardian's signatures (this server's key, or the guardian network's: signer.ts) and the
 * treasury's to the fixed inputs `spends` declares, finalizes, and checks every input against the
 * chain's prevouts.
 */
export async function cosign(
  g: Pick<GuardianContext, 'signer' | 'treasuryKey'>,
  job: Omit<CosignJob, 'psbt' | 'spends' | 'secret'>,
  spends: readonly InputRole[],
  psbt: Uint8Array,
  prevouts: Prevout[],
  secret: Uint8Array | null,
): Promise<{ txid: string; hex: string }> {
  const out = await g.signer.sign({ ...job, spends, psbt, secret, prevouts });
  // The network checked the finished transaction with its signatures (final-check.ts): once.
  if (!(out instanceof Uint8Array)) return { txid: parseTransaction(out.raw).id, hex: out.raw };
  let signed = out;
  // This server's own treasury key signs its input only when this server is the guardian; with
  // the network the treasury is the group key and the network signed it above.
  if (g.signer.kind === 'local')
    spends.forEach(({ role }, index) => {
      if (role === 'treasury') signed = signTreasuryInput(signed, g.treasuryKey, index);
    });
  let raw: string;
  try {
    raw = finalize(signed);
  } catch {
    throw new DomainError('bad_signature', 'The wallet signatures are missing');
  }
  const verified = verifyInputs(raw, prevouts);
  if (!verified.ok)
    throw new DomainError(
      'bad_signature',
      `The signature of input ${verified.input} is not valid (${verified.reason})`,
    );
  return { txid: parseTransaction(raw).id, hex: raw };
}
