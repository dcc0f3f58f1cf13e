// Decoding a transaction's runestone as ord does: the runestone, or the cenotaph and its flaws.
import { runeValueToName } from './rune-names';
import {
  FLAG_ETCHING,
  FLAG_TERMS,
  FLAG_TURBO,
  MAX_DIVISIBILITY,
  MAX_SPACERS,
  OP_13,
  OP_PUSHDATA1,
  OP_PUSHDATA2,
  OP_PUSHDATA4,
  OP_RETURN,
  RunestoneTag,
  U128_MAX,
  U32_MAX,
  U64_MAX,
  type Cenotaph,
  type Edict,
  type Etching,
  type Flaw,
  type RuneArtifact,
  type RuneId,
  type Runestone,
  type Terms,
} from './runestone-format';
import { decodeVarint } from './varint';

/** True when the output script starts `OP_RETURN OP_13`: the runestone output. */
export function isRunestoneScript(script: Uint8Array): boolean {
  return script[0] === OP_RETURN && script[1] === OP_13;
}

/** The concatenated pushes after `OP_RETURN OP_13`, or the flaw that makes the script a cenotaph. */
function runestonePayload(script: Uint8Array): Uint8Array | Flaw {
  const payload: number[] = [];
  let i = 2;
  while (i < script.length) {
    const op = script[i]!;
    i += 1;
    let length: number;
    if (op <= 0x4b) {
      length = op;
    } else if (op === OP_PUSHDATA1) {
      if (i + 1 > script.length) return 'invalid_script';
      length = script[i]!;
      i += 1;
    } else if (op === OP_PUSHDATA2) {
      if (i + 2 > script.length) return 'invalid_script';
      length = script[i]! | (script[i + 1]! << 8);
      i += 2;
    } else if (op === OP_PUSHDATA4) {
      if (i + 4 > script.length) return 'invalid_script';
      length =
        (script[i]! | (script[i + 1]! << 8) | (script[i + 2]! << 16)) + script[i + 3]! * 0x1000000;
      i += 4;
    } else {
      // Any non-push opcode (OP_1..OP_16 included) makes the message a cenotaph.
      return 'opcode';
    }
    if (i + length > script.length) return 'invalid_script';
    for (let j = 0; j < length; j++) payload.push(script[i + j]!);
    i += length;
  }
  return Uint8Array.from(payload);
}

type Fields = Map<bigint, bigint[]>;

/** Takes `n` values of a tag when `accept` agrees, as ord does; refused values stay as unread fields. */
function take<T>(
  fields: Fields,
  tag: bigint,
  n: number,
  accept: (values: bigint[]) => T | undefined,
): T | undefined {
  const field = fields.get(tag);
  if (!field || field.length < n) return undefined;
  const value = accept(field.slice(0, n));
  if (value === undefined) return undefined;
  field.splice(0, n);
  if (field.length === 0) fields.delete(tag);
  return value;
}

const one = (values: bigint[]): bigint => values[0]!;
const u64 = (values: bigint[]): bigint | undefined =>
  values[0]! <= U64_MAX ? values[0] : undefined;

function isUnicodeScalar(code: bigint): boolean {
  return code <= 0x10ffffn && !(code >= 0xd800n && code <= 0xdfffn);
}

/**
 * The runes artifact of a transaction from its outputs: the first `OP_RETURN OP_13` output decides.
 * Returns null when there is none.
 */
export function decodeRunestone(outputs: readonly { script: Uint8Array }[]): RuneArtifact | null {
  const carrier = outputs.find((o) => isRunestoneScript(o.script));
  if (!carrier) return null;
  const payload = runestonePayload(carrier.script);
  if (typeof payload === 'string') return { cenotaph: true, flaws: [payload] };

  const integers: bigint[] = [];
  for (let i = 0; i < payload.length;) {
    const varint = decodeVarint(payload, i);
    if (!varint) return { cenotaph: true, flaws: ['varint'] };
    integers.push(varint.value);
    i += varint.length;
  }

  const flaws = new Set<Flaw>();
  const edicts: Edict[] = [];
  const fields: Fields = new Map();
  for (let i = 0; i < integers.length; i += 2) {
    const tag = integers[i]!;
    if (tag === RunestoneTag.Body) {
      let id: RuneId = { block: 0n, tx: 0 };
      for (let j = i + 1; j < integers.length; j += 4) {
        if (j + 4 > integers.length) {
          flaws.add('trailing_integers');
          break;
        }
        const [blockDelta, txDelta, amount, output] = integers.slice(j, j + 4) as [
          bigint,
          bigint,
          bigint,
          bigint,
        ];
        const block = id.block + blockDelta;
        const tx = blockDelta === 0n ? BigInt(id.tx) + txDelta : txDelta;
        if (blockDelta > U64_MAX || block > U64_MAX || tx > U32_MAX || (block === 0n && tx > 0n)) {
          flaws.add('edict_rune_id');
          break;
        }
        if (output > BigInt(outputs.length)) {
          flaws.add('edict_output');
          break;
        }
        id = { block, tx: Number(tx) };
        edicts.push({ id, amount, output: Number(output) });
      }
      break;
    }
    const value = integers[i + 1];
    if (value === undefined) {
      flaws.add('truncated_field');
      break;
    }
    const list = fields.get(tag);
    if (list) list.push(value);
    else fields.set(tag, [value]);
  }

  let flags = take(fields, RunestoneTag.Flags, 1, one) ?? 0n;
  const takeFlag = (mask: bigint): boolean => {
    const set = (flags & mask) !== 0n;
    flags &= ~mask;
    return set;
  };

  let etching: Etching | undefined;
  let etchedRune: bigint | undefined;
  if (takeFlag(FLAG_ETCHING)) {
    etching = {};
    const divisibility = take(fields, RunestoneTag.Divisibility, 1, (v) =>
      v[0]! <= MAX_DIVISIBILITY ? v[0] : undefined,
    );
    if (divisibility !== undefined) etching.divisibility = Number(divisibility);
    const premine = take(fields, RunestoneTag.Premine, 1, one);
    if (premine !== undefined) etching.premine = premine;
    etchedRune = take(fields, RunestoneTag.Rune, 1, one);
    if (etchedRune !== undefined) etching.rune = runeValueToName(etchedRune);
    const spacers = take(fields, RunestoneTag.Spacers, 1, (v) =>
      v[0]! <= MAX_SPACERS ? v[0] : undefined,
    );
    if (spacers !== undefined) etching.spacers = Number(spacers);
    const symbol = take(fields, RunestoneTag.Symbol, 1, (v) =>
      isUnicodeScalar(v[0]!) ? v[0] : undefined,
    );
    if (symbol !== undefined) etching.symbol = String.fromCodePoint(Number(symbol));
    if (takeFlag(FLAG_TERMS)) {
      const terms: Terms = {};
      const cap = take(fields, RunestoneTag.Cap, 1, one);
      if (cap !== undefined) terms.cap = cap;
      const heightStart = take(fields, RunestoneTag.HeightStart, 1, u64);
      const heightEnd = take(fields, RunestoneTag.HeightEnd, 1, u64);
      if (heightStart !== undefined || heightEnd !== undefined) {
        terms.height = {};
        if (heightStart !== undefined) terms.height.start = heightStart;
        if (heightEnd !== undefined) terms.height.end = heightEnd;
      }
      const amount = take(fields, RunestoneTag.Amount, 1, one);
      if (amount !== undefined) terms.amount = amount;
      const offsetStart = take(fields, RunestoneTag.OffsetStart, 1, u64);
      const offsetEnd = take(fields, RunestoneTag.OffsetEnd, 1, u64);
      if (offsetStart !== undefined || offsetEnd !== undefined) {
        terms.offset = {};
        if (offsetStart !== undefined) terms.offset.start = offsetStart;
        if (offsetEnd !== undefined) terms.offset.end = offsetEnd;
      }
      etching.terms = terms;
    }
    if (takeFlag(FLAG_TURBO)) etching.turbo = true;
  }

  const mint = take(fields, RunestoneTag.Mint, 2, ([block, tx]): RuneId | undefined => {
    if (block! > U64_MAX || tx! > U32_MAX || (block === 0n && tx! > 0n)) return undefined;
    return { block: block!, tx: Number(tx) };
  });
  const pointer = take(fields, RunestoneTag.Pointer, 1, (v) =>
    v[0]! < BigInt(outputs.length) ? Number(v[0]) : undefined,
  );

  if (etching) {
    const supply =
      (etching.premine ?? 0n) + (etching.terms?.cap ?? 0n) * (etching.terms?.amount ?? 0n);
    if (supply > U128_MAX) flaws.add('supply_overflow');
  }
  if (flags !== 0n) flaws.add('unrecognized_flag');
  if ([...fields.keys()].some((tag) => tag % 2n === 0n)) flaws.add('unrecognized_even_tag');

  if (flaws.size > 0) {
    const cenotaph: Cenotaph = { cenotaph: true, flaws: [...flaws] };
    if (etchedRune !== undefined) cenotaph.etching = runeValueToName(etchedRune);
    if (mint) cenotaph.mint = mint;
    return cenotaph;
  }
  const runestone: Runestone = { edicts };
  if (etching) runestone.etching = etching;
  if (mint) runestone.mint = mint;
  if (pointer !== undefined) runestone.pointer = pointer;
  return { runestone };
}
