// Rune ids (`block:tx`) and rune names (modified base-26, with spacers), as ord writes them.
import { U128_MAX, U32_MAX, U64_MAX, type RuneId } from './runestone-format';

export function runeIdToString(id: RuneId): string {
  return `${id.block}:${id.tx}`;
}

export function parseRuneId(text: string): RuneId {
  const match = /^(\d+):(\d+)$/.exec(text);
  if (!match) throw new Error(`invalid rune id ${text}`);
  const block = BigInt(match[1]!);
  const tx = Number(match[2]!);
  if (block > U64_MAX || tx > Number(U32_MAX)) throw new Error(`invalid rune id ${text}`);
  return { block, tx };
}

export function compareRuneIds(a: RuneId, b: RuneId): number {
  if (a.block !== b.block) return a.block < b.block ? -1 : 1;
  return a.tx - b.tx;
}

// ---- rune names (modified base-26: A = 0, Z = 25, AA = 26) ----

export function runeNameToValue(name: string): bigint {
  if (!/^[A-Z]+$/.test(name)) throw new Error(`invalid rune name ${name}`);
  let value = 0n;
  for (let i = 0; i < name.length; i++) {
    if (i > 0) value += 1n;
    value = value * 26n + BigInt(name.charCodeAt(i) - 65);
  }
  if (value > U128_MAX) throw new Error(`rune name ${name} is too long`);
  return value;
}

export function runeValueToName(value: bigint): string {
  if (value < 0n || value > U128_MAX) throw new Error('rune value out of range');
  // u128::MAX has a name of its own in ord: n + 1 would overflow.
  if (value === U128_MAX) return 'BCGDENLQRQWDSLRUGSNLBTMFIJAV';
  let n = value + 1n;
  let name = '';
  while (n > 0n) {
    name = String.fromCharCode(65 + Number((n - 1n) % 26n)) + name;
    n = (n - 1n) / 26n;
  }
  return name;
}

/** `UNIT•DOLLAR` from the name and its spacer bits. */
export function spacedRuneName(name: string, spacers = 0): string {
  let out = '';
  for (let i = 0; i < name.length; i++) {
    out += name[i];
    if (i < name.length - 1 && (spacers >> i) & 1) out += '•';
  }
  return out;
}

/** The name and spacer bits of `UNIT•DOLLAR` (`.` is accepted for `•`). */
export function parseSpacedRune(text: string): { rune: string; spacers: number } {
  let rune = '';
  let spacers = 0;
  for (const char of text) {
    if (char === '•' || char === '.') {
      if (rune.length === 0 || (spacers >> (rune.length - 1)) & 1)
        throw new Error(`invalid spaced rune ${text}`);
      spacers |= 1 << (rune.length - 1);
    } else {
      rune += char;
    }
  }
  runeNameToValue(rune);
  if (spacers >> (rune.length - 1)) throw new Error(`invalid spaced rune ${text}`);
  return { rune, spacers };
}
