// LEB128 varints up to u128: the runestone payload's integers.
import { U128_MAX } from './runestone-format';

export function encodeVarint(value: bigint): Uint8Array {
  if (value < 0n || value > U128_MAX) throw new Error('varint out of u128 range');
  const out: number[] = [];
  let n = value;
  while (n >> 7n > 0n) {
    out.push(Number(n & 0x7fn) | 0x80);
    n >>= 7n;
  }
  out.push(Number(n));
  return Uint8Array.from(out);
}

/** Decodes one varint at `offset`; null when it is unterminated, overlong or over u128. */
export function decodeVarint(
  bytes: Uint8Array,
  offset = 0,
): { value: bigint; length: number } | null {
  let value = 0n;
  for (let i = 0; offset + i < bytes.length; i++) {
    if (i > 18) return null;
    const byte = bytes[offset + i]!;
    const bits = BigInt(byte & 0x7f);
    if (i === 18 && (bits & 0x7cn) !== 0n) return null;
    value |= bits << BigInt(7 * i);
    if ((byte & 0x80) === 0) return { value, length: i + 1 };
  }
  return null;
}
