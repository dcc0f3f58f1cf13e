// What an attacker does in the adversary test, outside the app: a compromised coordinator asking
// the network (the app's own signer, its identity from GUARDIAN_DIR) to sign requests the app would
// refuse; a thief with one guardian's share file running FROST alone; a redirected withdrawal of
// someone else's vault.
import { base64, hex } from '@scure/base';
import { p2wpkh, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import { pubECDSA } from '@scure/btc-signer/utils.js';
import type { FrostPublic, FrostSecret } from '@noble/curves/abstract/frost.js';
import {
  declarationOf,
  signUserInputs,
  TAPSCRIPT_LEAF_VERSION,
  updateLeafScript,
} from '@unit/bitcoin';
import type { Approvals } from '@unit/protocol/wire';
import {
  frost,
  frostIdentifier,
  publicFromJson,
  readShareFile,
  type GuardianSet,
} from '@unit/guardian-net';
import { join } from 'node:path';
import { loadGuardianNetwork, networkSigner } from '../../src/network-client/network-signer';
import { sha256 } from '@noble/hashes/sha2.js';
import type { TestWallet } from '../guardian/harness';

const PSBT_OPTS = { allowUnknownOutputs: true } as const;

export interface VaultRequest {
  nonce: string;
  psbt: string;
  payload: unknown;
}

/**
 * The app's own network signer, used by whoever holds GUARDIAN_DIR (a compromised app server): it
 * skips every check of the app's pipeline and sends the request straight to the guardians.
 */
export async function coordinateDirectly(
  dir: string,
  action: 'borrow' | 'withdraw',
  request: VaultRequest,
): Promise<{ error: { code?: string; message: string } | null; approvals: Approvals[] }> {
  const signer = networkSigner(loadGuardianNetwork(dir));
  const approvals: Approvals[] = [];
  const error = await signer
    .sign({
      action,
      request,
      nonce: request.nonce,
      spends: declarationOf(action).spends,
      psbt: base64.decode(request.psbt),
      secret: null,
      onApprovals: (a) => approvals.push(a),
    })
    .then(
      () => null,
      (e: unknown) => e as { code?: string; message: string },
    );
  return { error, approvals };
}

/** Mallory's payment script: where the redirected withdrawal pays. */
export const malloryScript = () =>
  p2wpkh(pubECDSA(sha256(new TextEncoder().encode('adversary: mallory payment'))), TEST_NETWORK)
    .script;

/**
 * `owner`'s own withdrawal draft (unsigned), its withdrawal output redirected to Mallory. With
 * `vaultKey`, the vault input is signed by that key (the owner's: the worst case, where only the
 * group signature stands in the way).
 */
export function redirect(
  owner: TestWallet,
  unsignedPsbt: Uint8Array,
  vaultKey?: Uint8Array,
): Uint8Array {
  const tx = Transaction.fromPSBT(unsignedPsbt, PSBT_OPTS);
  const own = hex.encode(owner.vaultWallet.satsScript);
  let redirected = 0;
  for (let i = 0; i < tx.outputsLength; i++) {
    const out = tx.getOutput(i);
    if (out.script && hex.encode(out.script) === own) {
      tx.updateOutput(i, { script: malloryScript() });
      redirected++;
    }
  }
  if (redirected === 0) throw new Error('the withdrawal pays nothing to its owner');
  const psbt = tx.toPSBT(0);
  return vaultKey ? signUserInputs(psbt, vaultKey, [0]) : psbt;
}

/** The update-leaf sighash of input 0 (the vault) under the group key, as the coordinator makes it. */
export function vaultSighash(psbt: Uint8Array, vaultPubkey: string, groupKey: Uint8Array) {
  const tx = Transaction.fromPSBT(psbt, PSBT_OPTS);
  const scripts: Uint8Array[] = [];
  const amounts: bigint[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    scripts.push(tx.getInput(i).witnessUtxo!.script);
    amounts.push(tx.getInput(i).witnessUtxo!.amount);
  }
  const leaf = updateLeafScript(hex.decode(vaultPubkey), groupKey);
  return {
    leaf,
    sighash: tx.preimageWitnessV1(0, scripts, 0, amounts, -1, leaf, TAPSCRIPT_LEAF_VERSION),
  };
}

/** The PSBT with `signature` in the group key's slot of input 0's update leaf. */
export function withGroupSignature(
  psbt: Uint8Array,
  leaf: Uint8Array,
  groupKey: Uint8Array,
  signature: Uint8Array,
): Uint8Array {
  const tx = Transaction.fromPSBT(psbt, PSBT_OPTS);
  const leafHash = tapLeafHash(leaf, TAPSCRIPT_LEAF_VERSION);
  tx.updateInput(0, { tapScriptSig: [[{ pubKey: groupKey, leafHash }, signature]] });
  return tx.toPSBT(0);
}

/** A guardian's share, as a thief reads it from the guardian's directory. */
export function stealShare(dir: string, id: number): FrostSecret {
  return readShareFile(join(dir, `guardian-${id}`, 'share.json')).secret;
}

/** The FROST rounds run by one party holding `shares`, with the set's public package. */
export function signAlone(
  set: GuardianSet,
  shares: FrostSecret[],
  message: Uint8Array,
  pub: FrostPublic = publicFromJson(set.frost!, set.t, set.n),
): Uint8Array {
  const round1 = shares.map((s) => ({ s, ...frost.commit(s) }));
  const list = round1.map((r) => r.commitments);
  const sigShares = Object.fromEntries(
    round1.map((r) => [r.s.identifier, frost.signShare(r.s, pub, r.nonces, list, message)]),
  );
  return frost.aggregate(pub, list, message, sigShares);
}

/**
 * Every way one share might be made to sign: the FROST rounds alone; with the threshold in the
 * public package lowered to 1; with an invented second guardian; the share used as a key (what a
 * Lagrange interpolation of one point gives). Each a signature, or the error that stopped it.
 */
export function oneShareAttempts(
  set: GuardianSet,
  share: FrostSecret,
  message: Uint8Array,
): { name: string; result: Uint8Array | Error }[] {
  const pub = publicFromJson(set.frost!, set.t, set.n);
  const attempt = (name: string, f: () => Uint8Array) => {
    try {
      return { name, result: f() };
    } catch (e) {
      return { name, result: e as Error };
    }
  };
  const other = set.members.map((m) => frostIdentifier(m.id)).find((i) => i !== share.identifier)!;
  return [
    attempt('FROST rounds alone', () => signAlone(set, [share], message)),
    attempt('FROST with t lowered to 1', () =>
      signAlone(set, [share], message, { ...pub, signers: { min: 1, max: set.n } }),
    ),
    attempt('FROST with an invented second share', () =>
      signAlone(
        set,
        [share, { identifier: other, signingShare: frost.utils.randomScalar() }],
        message,
      ),
    ),
    attempt('the share as a key', () => frost.sign(message, share.signingShare)),
  ];
}
