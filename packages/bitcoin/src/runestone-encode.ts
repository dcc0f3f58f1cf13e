// Encoding a runestone into its OP_RETURN OP_13 output script, as ord builds it.
import { compareRuneIds, runeNameToValue } from './rune-names';
import {
  FLAG_ETCHING,
  FLAG_TERMS,
  FLAG_TURBO,
  MAX_DIVISIBILITY,
  OP_13,
  OP_PUSHDATA1,
  OP_PUSHDATA2,
  OP_PUSHDATA4,
  OP_RETURN,
  RunestoneTag,
  type RuneId,
  type Runestone,
} from './runestone-format';
import { encodeVarint } from './varint';

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
