// Which guardian keys a vault request may use, after a rotation (docs/protocol.md, "Guardian
// rotation": each vault moves to the new group key on its next action). A guardian knows the keys
// of every set it holds a share of, and the key each of those sets names as its `previous` (a set
// it checked the handover of, or was a member of). So:
// - the vault input of a request may commit to any key it knows (an old vault, not moved yet); the
//   session that signs it is that key's set (the sighash and the leaf say so);
// - the new vault output must commit to the newest key it holds: the action itself is the move;
// - the treasury is `OP_1 <key>` of a key it knows: it stays under the first set's key until the
//   operator moves it, so a set that joined later still recognises it.
import { hex } from '@scure/base';
import { OutScript, type Transaction } from '@scure/btc-signer';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { vaultSignatureValid, type ActionDeclaration, type VaultFields } from '@unit/bitcoin';
import type { VaultAction } from '@unit/protocol/wire';
import type { GuardianSet } from '../guardian-set';
import { Refused, type ClaimedInput } from './reads';

export interface SetKeys {
  /** the group key of the set this session is signed by */
  signing: Uint8Array;
  /** the newest set's group key this guardian holds: every new vault output commits to it */
  newest: Uint8Array;
  /** every group key this guardian knows, newest first (the held sets' and their `previous`) */
  known: Uint8Array[];
}

/** The keys from the node's env: the session's set key, and every set it holds (when it says). */
export function setKeysOf(groupKey: string, sets: readonly GuardianSet[] = []): SetKeys {
  const signing = hex.decode(groupKey);
  const held = [...sets].sort((a, b) => b.version - a.version);
  const newest = held[0]?.groupKey ? hex.decode(held[0].groupKey) : signing;
  const known: Uint8Array[] = [newest, signing];
  for (const s of held) {
    if (s.groupKey) known.push(hex.decode(s.groupKey));
    if (s.previous) known.push(hex.decode(s.previous.groupKey));
  }
  const unique = known.filter((k, i) => known.findIndex((o) => equalBytes(o, k)) === i);
  return { signing, newest, known: unique };
}

type Declaration = ActionDeclaration<VaultAction, never, VaultFields>;

/**
 * The group key the request's vault input commits to: this session's own when it signs the vault
 * input (its leaf is that key's), else whichever known key the vault key signed its leaf under.
 */
export function vaultGuardKey(
  keys: SetKeys,
  signsVault: boolean,
  tx: Transaction,
  inputs: ClaimedInput[],
  vaultIndex: number,
  vaultKey: Uint8Array,
): Uint8Array {
  const candidates = signsVault ? [keys.signing] : keys.known;
  const found = candidates.find((k) => vaultSignatureValid(tx, inputs, vaultIndex, vaultKey, k));
  if (!found) throw new Refused('the vault input is not signed by the vault key');
  return found;
}

/**
 * The treasury script of this request: its treasury input's, when that is `OP_1 <key>` of a key
 * this guardian knows (this session's own, when it signs that input); else (no treasury input, or
 * a stranger's, refused by the treasury's check) this session's set's.
 */
export function treasuryScriptOf(
  keys: SetKeys,
  declaration: Declaration,
  inputs: ClaimedInput[],
  signsTreasury: boolean,
): Uint8Array {
  const index = declaration.spends.findIndex((s) => s.role === 'treasury');
  const claimed = index >= 0 ? inputs[index]?.script : undefined;
  // A session signs the treasury's key path only with the key the treasury is.
  const usable = signsTreasury ? [keys.signing] : keys.known;
  const scripts = usable.map((pubkey) => OutScript.encode({ type: 'tr', pubkey }));
  return (
    (claimed && scripts.find((s) => equalBytes(s, claimed))) ??
    OutScript.encode({ type: 'tr', pubkey: keys.signing })
  );
}
