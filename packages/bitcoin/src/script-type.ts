// Output script types. Vault transactions spend only the standard types SPEC §8 allows.

export type ScriptKind = 'p2wpkh' | 'p2sh' | 'p2tr' | 'op_return' | 'other';

const OP_0 = 0x00;
const OP_1 = 0x51;
const OP_RETURN = 0x6a;
const OP_HASH160 = 0xa9;
const OP_EQUAL = 0x87;

/** The type of an output script, from its exact template. */
export function classifyScript(script: Uint8Array): ScriptKind {
  if (script.length === 22 && script[0] === OP_0 && script[1] === 0x14) return 'p2wpkh';
  if (
    script.length === 23 &&
    script[0] === OP_HASH160 &&
    script[1] === 0x14 &&
    script[22] === OP_EQUAL
  )
    return 'p2sh';
  if (script.length === 34 && script[0] === OP_1 && script[1] === 0x20) return 'p2tr';
  if (script.length > 0 && script[0] === OP_RETURN) return 'op_return';
  return 'other';
}

/** The SPEC §8 message for a UTXO whose script is not p2sh, p2w-pkh or p2tr. */
export const UNEXPECTED_SCRIPT_TYPE = 'Unexpected script type';

/** Throws 'Unexpected script type' unless the script is p2sh, p2wpkh or p2tr (SPEC §8). */
export function assertSpendableScript(script: Uint8Array): 'p2sh' | 'p2wpkh' | 'p2tr' {
  const kind = classifyScript(script);
  if (kind === 'p2sh' || kind === 'p2wpkh' || kind === 'p2tr') return kind;
  throw new Error(UNEXPECTED_SCRIPT_TYPE);
}
