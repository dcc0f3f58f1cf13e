// The runestone's format, shared by its encoder and decoder: the message's types, its tags, its
// flags, the script opcodes it is pushed with, and the ranges its values must fall in (written from
// the ordinals runes specification and ord's reference implementation; runestone.ts says more).

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

export const FLAG_ETCHING = 1n << 0n;
export const FLAG_TERMS = 1n << 1n;
export const FLAG_TURBO = 1n << 2n;

export const OP_RETURN = 0x6a;
/** `OP_13`: the runestone's magic number. */
export const OP_13 = 0x5d;
export const OP_PUSHDATA1 = 0x4c;
export const OP_PUSHDATA2 = 0x4d;
export const OP_PUSHDATA4 = 0x4e;

export const U32_MAX = 0xffffffffn;
export const U64_MAX = (1n << 64n) - 1n;
export const U128_MAX = (1n << 128n) - 1n;
export const MAX_DIVISIBILITY = 38n;
export const MAX_SPACERS = 0x07ffffffn;
