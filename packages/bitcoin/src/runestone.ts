// Runes: the runestone message (encode, decode) and the rule that moves rune balances through a
// transaction. Written from the ordinals runes specification (docs.ordinals.com, "Runes") and ord's
// reference implementation; tests cross-check the bytes against @magiceden-oss/runestone-lib.
// UNIT is a rune, so these rules decide who holds UNIT after every vault transaction.
// The runestone's types and tags are in runestone-format.ts, rune ids and names in rune-names.ts,
// the varints in varint.ts, then runestone-encode.ts, runestone-decode.ts and rune-allocation.ts.
export type {
  Cenotaph,
  Edict,
  Etching,
  Flaw,
  RuneArtifact,
  RuneId,
  Runestone,
  Terms,
} from './runestone-format';
export { RunestoneTag } from './runestone-format';
export {
  parseRuneId,
  parseSpacedRune,
  runeIdToString,
  runeNameToValue,
  runeValueToName,
  spacedRuneName,
} from './rune-names';
export { decodeVarint, encodeVarint } from './varint';
export { encodeRunestone } from './runestone-encode';
export { decodeRunestone, isRunestoneScript } from './runestone-decode';
export { allocateRunes, type AllocateRunesParams, type RuneAllocation } from './rune-allocation';
