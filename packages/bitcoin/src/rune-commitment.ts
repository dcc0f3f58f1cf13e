// The commitment an etching of a named rune must reveal (ord, runes specification, "Etchings"): the
// rune name as a little-endian integer with its trailing zero bytes left out, pushed in a tapscript
// of an input whose spent output is Taproot and has at least six confirmations. The leaf that
// carries it here is `<pubkey> OP_CHECKSIG OP_FALSE OP_IF <commitment> OP_ENDIF`: only the key
// holder can spend it, and the push inside the never-run branch is the commitment.
import { concatBytes } from '@scure/btc-signer/utils.js';
import { runeNameToValue } from './runestone';

/** Confirmations the commitment's output needs before the etching's block (ord's COMMIT_CONFIRMATIONS). */
export const RUNE_COMMIT_CONFIRMATIONS = 6;

const OP_0 = 0x00;
const OP_IF = 0x63;
const OP_ENDIF = 0x68;
const OP_CHECKSIG = 0xac;
const PUSH_32 = 0x20;
/** The longest direct push; a u128 name is at most 16 bytes. */
const MAX_DIRECT_PUSH = 0x4b;

/** The name's commitment bytes: little-endian, trailing zero bytes elided. */
export function runeCommitment(rune: string): Uint8Array {
  let value = runeNameToValue(rune);
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.push(Number(value & 0xffn));
    value >>= 8n;
  }
  return Uint8Array.from(bytes);
}

/** `<pubkey> OP_CHECKSIG OP_FALSE OP_IF <commitment> OP_ENDIF`. */
export function commitmentLeafScript(pubkey: Uint8Array, commitment: Uint8Array): Uint8Array {
  if (pubkey.length !== 32) throw new Error('the commitment leaf key must be x-only (32 bytes)');
  if (commitment.length < 1 || commitment.length > MAX_DIRECT_PUSH)
    throw new Error('a rune commitment is 1 to 75 bytes');
  return concatBytes(
    new Uint8Array([PUSH_32]),
    pubkey,
    new Uint8Array([OP_CHECKSIG, OP_0, OP_IF, commitment.length]),
    commitment,
    new Uint8Array([OP_ENDIF]),
  );
}

/** The key and commitment of a leaf written by commitmentLeafScript, else null. */
export function classifyCommitmentLeaf(
  script: Uint8Array,
): { pubkey: Uint8Array; commitment: Uint8Array } | null {
  const length = script[36] ?? 0;
  if (
    script.length !== 38 + length ||
    length < 1 ||
    length > MAX_DIRECT_PUSH ||
    script[0] !== PUSH_32 ||
    script[33] !== OP_CHECKSIG ||
    script[34] !== OP_0 ||
    script[35] !== OP_IF ||
    script[script.length - 1] !== OP_ENDIF
  )
    return null;
  return { pubkey: script.slice(1, 33), commitment: script.slice(37, 37 + length) };
}
