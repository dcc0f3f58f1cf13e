// Runes: the runestone message (encode, decode) and the rule that moves rune balances through a
// transaction. Written from the ordinals runes specification (docs.ordinals.com, "Runes") and ord's
// reference implementation; tests cross-check the bytes against @magiceden-oss/runestone-lib.
// UNIT is a rune, so these rules decide who holds UNIT after every vault transaction.

/** A rune's id: the block of its etching and the transaction's index in that block. */
export interface RuneId {
  block: bigint;
  tx: number;
}

export interface Edict {
  id: RuneId;
  /** Rune units; 0 means "all that is left". */
  amount: bigint;
  /** Output index; `outputs.length` splits among the non-OP_RETURN outputs. */
  output: number;
}

export interface Terms {
  amount?: bigint;
  cap?: bigint;
  height?: { start?: bigint; end?: bigint };
  offset?: { start?: bigint; end?: bigint };
}

export interface Etching {
  /** Rune name in capital letters without spacers, e.g. `UNITUNITUNIT`. */
  rune?: string;
  divisibility?: number;
  /** Bit i set: a spacer after letter i. */
  spacers?: number;
  symbol?: string;
  premine?: bigint;
  terms?: Terms;
  turbo?: boolean;
}

export interface Runestone {
  edicts: Edict[];
  pointer?: number;
  etching?: Etching;
  mint?: RuneId;
}

export type Flaw =
  | 'edict_output'
  | 'edict_rune_id'
  | 'invalid_script'
  | 'opcode'
  | 'supply_overflow'
  | 'trailing_integers'
  | 'truncated_field'
  | 'unrecognized_even_tag'
  | 'unrecognized_flag'
  | 'varint';

export interface Cenotaph {
  cenotaph: true;
  flaws: Flaw[];
  /** The rune a flawed etching names: it is etched with no supply. */
  etching?: string;
  mint?: RuneId;
}

export type RuneArtifact = { runestone: Runestone } | Cenotaph;

// Tags: even tags must be understood, odd ones may be ignored (runes spec).
export const RunestoneTag = {
  Body: 0n,
  Divisibility: 1n,
  Flags: 2n,
  Spacers: 3n,
  Rune: 4n,
  Symbol: 5n,
  Premine: 6n,
  Cap: 8n,
  Amount: 10n,
  HeightStart: 12n,
  HeightEnd: 14n,
  OffsetStart: 16n,
  OffsetEnd: 18n,
  Mint: 20n,
  Pointer: 22n,
  Cenotaph: 126n,
  Nop: 127n,
} as const;

const FLAG_ETCHING = 1n << 0n;
const FLAG_TERMS = 1n << 1n;
const FLAG_TURBO = 1n << 2n;

const OP_RETURN = 0x6a;
/** `OP_13`: the runestone's magic number. */
const OP_13 = 0x5d;
const OP_PUSHDATA1 = 0x4c;
const OP_PUSHDATA2 = 0x4d;
const OP_PUSHDATA4 = 0x4e;

const U32_MAX = 0xffffffffn;
const U64_MAX = (1n << 64n) - 1n;
const U128_MAX = (1n << 128n) - 1n;
const MAX_DIVISIBILITY = 38n;
const MAX_SPACERS = 0x07ffffffn;

// ---- rune ids ----

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

function compareRuneIds(a: RuneId, b: RuneId): number {
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

// ---- LEB128 varints (u128) ----

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

// ---- encoding ----

function pushTag(payload: number[], tag: bigint, value: bigint): void {
  payload.push(...encodeVarint(tag), ...encodeVarint(value));
}

/** A minimal push of `data`, as rust-bitcoin's `push_slice` writes it (ord builds with it). */
function pushData(script: number[], data: readonly number[]): void {
  const n = data.length;
  if (n < OP_PUSHDATA1) script.push(n);
  else if (n <= 0xff) script.push(OP_PUSHDATA1, n);
  else if (n <= 0xffff) script.push(OP_PUSHDATA2, n & 0xff, n >> 8);
  else script.push(OP_PUSHDATA4, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24);
  for (const byte of data) script.push(byte);
}

/**
 * The runestone output script: `OP_RETURN OP_13 <payload>`, the payload in one push however long
 * (ord's `Runestone::encipher`: an OP_RETURN output is never executed, so the 520-byte element limit
 * does not apply; an empty payload is no push at all). Edicts are written sorted by rune id
 * (stable), as the delta encoding requires; that sorted order is the one allocation follows.
 */
export function encodeRunestone(runestone: Runestone): Uint8Array {
  const payload: number[] = [];
  const { etching } = runestone;
  if (etching) {
    let flags = FLAG_ETCHING;
    if (etching.terms) flags |= FLAG_TERMS;
    if (etching.turbo) flags |= FLAG_TURBO;
    pushTag(payload, RunestoneTag.Flags, flags);
    if (etching.rune !== undefined)
      pushTag(payload, RunestoneTag.Rune, runeNameToValue(etching.rune));
    if (etching.divisibility !== undefined) {
      if (
        !Number.isInteger(etching.divisibility) ||
        BigInt(etching.divisibility) > MAX_DIVISIBILITY ||
        etching.divisibility < 0
      )
        throw new Error('divisibility must be 0..38');
      pushTag(payload, RunestoneTag.Divisibility, BigInt(etching.divisibility));
    }
    if (etching.spacers !== undefined)
      pushTag(payload, RunestoneTag.Spacers, BigInt(etching.spacers));
    if (etching.symbol !== undefined) {
      const code = etching.symbol.codePointAt(0);
      if (code === undefined || [...etching.symbol].length !== 1)
        throw new Error('symbol must be one character');
      pushTag(payload, RunestoneTag.Symbol, BigInt(code));
    }
    if (etching.premine !== undefined) pushTag(payload, RunestoneTag.Premine, etching.premine);
    const { terms } = etching;
    if (terms) {
      if (terms.amount !== undefined) pushTag(payload, RunestoneTag.Amount, terms.amount);
      if (terms.cap !== undefined) pushTag(payload, RunestoneTag.Cap, terms.cap);
      if (terms.height?.start !== undefined)
        pushTag(payload, RunestoneTag.HeightStart, terms.height.start);
      if (terms.height?.end !== undefined)
        pushTag(payload, RunestoneTag.HeightEnd, terms.height.end);
      if (terms.offset?.start !== undefined)
        pushTag(payload, RunestoneTag.OffsetStart, terms.offset.start);
      if (terms.offset?.end !== undefined)
        pushTag(payload, RunestoneTag.OffsetEnd, terms.offset.end);
    }
  }
  if (runestone.mint) {
    pushTag(payload, RunestoneTag.Mint, runestone.mint.block);
    pushTag(payload, RunestoneTag.Mint, BigInt(runestone.mint.tx));
  }
  if (runestone.pointer !== undefined)
    pushTag(payload, RunestoneTag.Pointer, BigInt(runestone.pointer));
  if (runestone.edicts.length > 0) {
    payload.push(...encodeVarint(RunestoneTag.Body));
    const edicts = [...runestone.edicts].sort((a, b) => compareRuneIds(a.id, b.id));
    let previous: RuneId = { block: 0n, tx: 0 };
    for (const edict of edicts) {
      const blockDelta = edict.id.block - previous.block;
      const txDelta = blockDelta === 0n ? edict.id.tx - previous.tx : edict.id.tx;
      payload.push(
        ...encodeVarint(blockDelta),
        ...encodeVarint(BigInt(txDelta)),
        ...encodeVarint(edict.amount),
        ...encodeVarint(BigInt(edict.output)),
      );
      previous = edict.id;
    }
  }
  const script: number[] = [OP_RETURN, OP_13];
  if (payload.length > 0) pushData(script, payload);
  return Uint8Array.from(script);
}

// ---- decoding ----

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

// ---- allocation ----

export interface AllocateRunesParams {
  /** Rune balances of all inputs together, keyed by `"block:tx"`. */
  inputBalances: ReadonlyMap<string, bigint>;
  /** What `decodeRunestone` found, or null when the transaction has no runestone. */
  runestone: RuneArtifact | null;
  outputs: readonly { script: Uint8Array }[];
  /** The id the etching of this transaction receives, when the indexer accepts it. */
  etchedId?: RuneId;
  /** Units minted by the runestone's `mint`, when the indexer accepts the mint. */
  mintAmount?: bigint;
}

export interface RuneAllocation {
  /** One map per output, keyed by `"block:tx"`; OP_RETURN outputs hold nothing. */
  balances: Map<string, bigint>[];
  burned: Map<string, bigint>;
}

function add(map: Map<string, bigint>, key: string, amount: bigint): void {
  if (amount > 0n) map.set(key, (map.get(key) ?? 0n) + amount);
}

/**
 * Moves the input runes to the outputs as ord does: edicts in order (amount 0 = all remaining,
 * output == outputs.length splits among the non-OP_RETURN outputs), the rest to the pointer or
 * the first non-OP_RETURN output; a cenotaph burns everything; runes sent to OP_RETURN burn.
 */
export function allocateRunes({
  inputBalances,
  runestone: artifact,
  outputs,
  etchedId,
  mintAmount,
}: AllocateRunesParams): RuneAllocation {
  const unallocated = new Map<string, bigint>();
  for (const [id, amount] of inputBalances) add(unallocated, id, amount);
  const allocated = outputs.map(() => new Map<string, bigint>());
  const burned = new Map<string, bigint>();
  const isOpReturn = (vout: number) => outputs[vout]!.script[0] === OP_RETURN;

  const mint = artifact
    ? 'runestone' in artifact
      ? artifact.runestone.mint
      : artifact.mint
    : undefined;
  if (mint && mintAmount !== undefined) add(unallocated, runeIdToString(mint), mintAmount);

  if (artifact && 'cenotaph' in artifact) {
    for (const [id, amount] of unallocated) add(burned, id, amount);
    return { balances: allocated, burned };
  }

  const stone = artifact?.runestone;
  if (stone) {
    if (stone.etching && etchedId)
      add(unallocated, runeIdToString(etchedId), stone.etching.premine ?? 0n);
    const destinations = outputs.map((_, vout) => vout).filter((vout) => !isOpReturn(vout));
    for (const edict of stone.edicts) {
      let id = edict.id;
      if (id.block === 0n && id.tx === 0) {
        // 0:0 names the rune this very transaction etches.
        if (!etchedId) continue;
        id = etchedId;
      }
      const key = runeIdToString(id);
      let balance = unallocated.get(key);
      if (balance === undefined) continue;
      const allocate = (amount: bigint, vout: number) => {
        if (amount <= 0n) return;
        balance! -= amount;
        add(allocated[vout]!, key, amount);
      };
      if (edict.output === outputs.length) {
        if (destinations.length > 0) {
          if (edict.amount === 0n) {
            const count = BigInt(destinations.length);
            const share = balance / count;
            const remainder = balance % count;
            destinations.forEach((vout, i) =>
              allocate(BigInt(i) < remainder ? share + 1n : share, vout),
            );
          } else {
            for (const vout of destinations)
              allocate(edict.amount < balance ? edict.amount : balance, vout);
          }
        }
      } else {
        allocate(
          edict.amount === 0n || edict.amount > balance ? balance : edict.amount,
          edict.output,
        );
      }
      unallocated.set(key, balance);
    }
  }

  const fallback = stone?.pointer ?? outputs.findIndex((_, vout) => !isOpReturn(vout));
  for (const [id, amount] of unallocated) {
    if (fallback >= 0) add(allocated[fallback]!, id, amount);
    else add(burned, id, amount);
  }
  const balances = allocated.map((map, vout) => {
    if (!isOpReturn(vout)) return map;
    for (const [id, amount] of map) add(burned, id, amount);
    return new Map<string, bigint>();
  });
  return { balances, burned };
}
