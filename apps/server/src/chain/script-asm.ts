// Script assembly as esplora writes it (`scriptsig_asm`, `scriptpubkey_asm`): Blockstream's electrs
// prints rust-bitcoin's `Script::to_asm_string`, so opcodes carry rust-bitcoin's names
// (OP_PUSHBYTES_20, OP_PUSHNUM_1, OP_CLTV, OP_RETURN_187 ...), pushes their data in hex after the
// opcode, and a truncated script ends in `<unexpected end>` or `<push past end>`.
import { hex } from '@scure/base';

const NAMES: Record<number, string> = {
  0x4c: 'PUSHDATA1',
  0x4d: 'PUSHDATA2',
  0x4e: 'PUSHDATA4',
  0x4f: 'PUSHNUM_NEG1',
  0x50: 'RESERVED',
  0x61: 'NOP',
  0x62: 'VER',
  0x63: 'IF',
  0x64: 'NOTIF',
  0x65: 'VERIF',
  0x66: 'VERNOTIF',
  0x67: 'ELSE',
  0x68: 'ENDIF',
  0x69: 'VERIFY',
  0x6a: 'RETURN',
  0x6b: 'TOALTSTACK',
  0x6c: 'FROMALTSTACK',
  0x6d: '2DROP',
  0x6e: '2DUP',
  0x6f: '3DUP',
  0x70: '2OVER',
  0x71: '2ROT',
  0x72: '2SWAP',
  0x73: 'IFDUP',
  0x74: 'DEPTH',
  0x75: 'DROP',
  0x76: 'DUP',
  0x77: 'NIP',
  0x78: 'OVER',
  0x79: 'PICK',
  0x7a: 'ROLL',
  0x7b: 'ROT',
  0x7c: 'SWAP',
  0x7d: 'TUCK',
  0x7e: 'CAT',
  0x7f: 'SUBSTR',
  0x80: 'LEFT',
  0x81: 'RIGHT',
  0x82: 'SIZE',
  0x83: 'INVERT',
  0x84: 'AND',
  0x85: 'OR',
  0x86: 'XOR',
  0x87: 'EQUAL',
  0x88: 'EQUALVERIFY',
  0x89: 'RESERVED1',
  0x8a: 'RESERVED2',
  0x8b: '1ADD',
  0x8c: '1SUB',
  0x8d: '2MUL',
  0x8e: '2DIV',
  0x8f: 'NEGATE',
  0x90: 'ABS',
  0x91: 'NOT',
  0x92: '0NOTEQUAL',
  0x93: 'ADD',
  0x94: 'SUB',
  0x95: 'MUL',
  0x96: 'DIV',
  0x97: 'MOD',
  0x98: 'LSHIFT',
  0x99: 'RSHIFT',
  0x9a: 'BOOLAND',
  0x9b: 'BOOLOR',
  0x9c: 'NUMEQUAL',
  0x9d: 'NUMEQUALVERIFY',
  0x9e: 'NUMNOTEQUAL',
  0x9f: 'LESSTHAN',
  0xa0: 'GREATERTHAN',
  0xa1: 'LESSTHANOREQUAL',
  0xa2: 'GREATERTHANOREQUAL',
  0xa3: 'MIN',
  0xa4: 'MAX',
  0xa5: 'WITHIN',
  0xa6: 'RIPEMD160',
  0xa7: 'SHA1',
  0xa8: 'SHA256',
  0xa9: 'HASH160',
  0xaa: 'HASH256',
  0xab: 'CODESEPARATOR',
  0xac: 'CHECKSIG',
  0xad: 'CHECKSIGVERIFY',
  0xae: 'CHECKMULTISIG',
  0xaf: 'CHECKMULTISIGVERIFY',
  0xb1: 'CLTV',
  0xb2: 'CSV',
  0xba: 'CHECKSIGADD',
  0xff: 'INVALIDOPCODE',
};

function opcodeName(op: number): string {
  if (op === 0) return 'OP_0';
  if (op <= 0x4b) return `OP_PUSHBYTES_${op}`;
  if (op >= 0x51 && op <= 0x60) return `OP_PUSHNUM_${op - 0x50}`;
  if (op === 0xb0 || (op >= 0xb3 && op <= 0xb9)) return `OP_NOP${op - 0xaf}`;
  const name = NAMES[op];
  return name ? `OP_${name}` : `OP_RETURN_${op}`;
}

/** Length bytes of OP_PUSHDATA1/2/4. */
const LENGTH_BYTES: Record<number, number> = { 0x4c: 1, 0x4d: 2, 0x4e: 4 };

/** The script's assembly, token for token as esplora's `*_asm` fields show it. */
export function scriptAsm(script: Uint8Array): string {
  let out = '';
  let i = 0;
  let first = true;
  while (i < script.length) {
    const op = script[i++]!;
    let length = op <= 0x4b ? op : 0;
    const lengthBytes = LENGTH_BYTES[op];
    if (lengthBytes !== undefined) {
      if (i + lengthBytes > script.length) {
        // rust-bitcoin writes this before the separator and the opcode, then stops.
        out += '<unexpected end>';
        break;
      }
      length = 0;
      for (let b = lengthBytes - 1; b >= 0; b--) length = length * 256 + script[i + b]!;
      i += lengthBytes;
    }
    if (!first) out += ' ';
    first = false;
    out += opcodeName(op);
    if (length > 0) {
      out += ' ';
      if (i + length > script.length) {
        out += '<push past end>';
        break;
      }
      out += hex.encode(script.subarray(i, i + length));
      i += length;
    }
  }
  return out;
}

const CODES = new Map<string, number>(
  Object.entries(NAMES).map(([code, name]) => [name, Number(code)]),
);

/**
 * The script bytes of an assembly text as scriptAsm writes it (older ord servers answer an output's
 * script_pubkey so); null when a token is not understood.
 */
export function asmScript(asm: string): Uint8Array | null {
  const out: number[] = [];
  const tokens = asm.trim() === '' ? [] : asm.trim().split(/\s+/);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const push = /^OP_PUSHBYTES_(\d+)$/.exec(token);
    const data = /^OP_PUSHDATA([124])$/.exec(token);
    if (push || data) {
      const bytes = /^[0-9a-f]*$/.test(tokens[i + 1] ?? '') ? hex.decode(tokens[++i]!) : null;
      if (!bytes) return null;
      if (push) {
        if (Number(push[1]) !== bytes.length || bytes.length > 0x4b) return null;
        out.push(bytes.length);
      } else {
        const size = Number(data![1]);
        out.push(size === 1 ? 0x4c : size === 2 ? 0x4d : 0x4e);
        for (let b = 0; b < size; b++) out.push(Math.floor(bytes.length / 256 ** b) & 0xff);
      }
      out.push(...bytes);
      continue;
    }
    if (token === 'OP_0') out.push(0);
    else if (/^OP_PUSHNUM_(\d+)$/.test(token)) {
      const n = Number(token.slice(11));
      if (n < 1 || n > 16) return null;
      out.push(0x50 + n);
    } else if (/^OP_NOP(\d+)$/.test(token)) {
      const n = Number(token.slice(6));
      if (n < 1 || n > 10 || n === 2 || n === 3) return null;
      out.push(0xaf + n);
    } else if (/^OP_RETURN_(\d+)$/.test(token)) {
      const n = Number(token.slice(10));
      if (n < 0xbb || n > 0xfe) return null;
      out.push(n);
    } else {
      const code = token.startsWith('OP_') ? CODES.get(token.slice(3)) : undefined;
      if (code === undefined) return null;
      out.push(code);
    }
  }
  return Uint8Array.from(out);
}

/** The data of the script's last instruction when it is a push (rust-bitcoin: instructions().last()). */
function lastPush(script: Uint8Array): Uint8Array | null {
  let last: Uint8Array | null = null;
  let i = 0;
  while (i < script.length) {
    const op = script[i++]!;
    const lengthBytes = LENGTH_BYTES[op];
    if (op > 0x4b && lengthBytes === undefined) {
      last = null;
      continue;
    }
    let length = op <= 0x4b ? op : 0;
    if (lengthBytes !== undefined) {
      if (i + lengthBytes > script.length) return null;
      for (let b = lengthBytes - 1; b >= 0; b--) length = length * 256 + script[i + b]!;
      i += lengthBytes;
    }
    if (i + length > script.length) return null;
    last = script.subarray(i, i + length);
    i += length;
  }
  return last;
}

const isP2sh = (s: Uint8Array) =>
  s.length === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87;
const isP2wsh = (s: Uint8Array) => s.length === 34 && s[0] === 0x00 && s[1] === 0x20;

/**
 * esplora's `inner_redeemscript_asm` (a P2SH spend's redeem script, the scriptSig's last push) and
 * `inner_witnessscript_asm` (a P2WSH or P2SH-P2WSH spend's witness script, the last witness item);
 * each present only when the input has one, as electrs leaves them out otherwise.
 */
export function innerScriptsAsm(
  prevoutScript: Uint8Array,
  scriptSig: Uint8Array,
  witness: readonly Uint8Array[],
): { inner_redeemscript_asm?: string; inner_witnessscript_asm?: string } {
  const redeem = isP2sh(prevoutScript) ? lastPush(scriptSig) : null;
  const wrapsWsh = isP2wsh(prevoutScript) || (redeem !== null && isP2wsh(redeem));
  const witnessScript = wrapsWsh ? witness[witness.length - 1] : undefined;
  return {
    ...(redeem !== null ? { inner_redeemscript_asm: scriptAsm(redeem) } : {}),
    ...(witnessScript ? { inner_witnessscript_asm: scriptAsm(witnessScript) } : {}),
  };
}
