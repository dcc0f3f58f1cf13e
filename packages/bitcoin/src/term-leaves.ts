// The two timelocked leaves of a vault with a term (docs/protocol.md, "Leaving without the
// guardians"): the owner's exit `<exit_height> OP_CHECKLOCKTIMEVERIFY OP_DROP <vault_pubkey>
// OP_CHECKSIG` and, per guardian slot, the settlement `<settle_height> OP_CHECKLOCKTIMEVERIFY
// OP_DROP <guard_pubkey> OP_CHECKSIG`. Heights are pushed as minimal script numbers, so one height
// has one script and every party derives the same output.
import { concatBytes } from '@scure/btc-signer/utils.js';
import { MAX_TERM_HEIGHT } from '@unit/protocol';

const OP_1 = 0x51;
const OP_CHECKLOCKTIMEVERIFY = 0xb1;
const OP_DROP = 0x75;
const OP_CHECKSIG = 0xac;
const PUSH_32 = 0x20;

/** The minimal push of a block height (1..MAX_TERM_HEIGHT): OP_1..OP_16, else a little-endian number. */
export function pushHeight(height: number): Uint8Array {
  if (!Number.isInteger(height) || height < 1 || height > MAX_TERM_HEIGHT)
    throw new Error(`a term height must be from 1 to ${MAX_TERM_HEIGHT}, got ${height}`);
  if (height <= 16) return Uint8Array.of(OP_1 - 1 + height);
  const bytes: number[] = [];
  for (let rest = height; rest > 0; rest = Math.floor(rest / 256)) bytes.push(rest % 256);
  // A set top bit would make the number negative: a zero byte keeps it positive.
  if (bytes[bytes.length - 1]! & 0x80) bytes.push(0);
  return Uint8Array.of(bytes.length, ...bytes);
}

/** The height a minimal push holds, with its length in bytes, or null when it is not one. */
function readHeight(script: Uint8Array): { height: number; length: number } | null {
  const first = script[0];
  if (first === undefined) return null;
  if (first >= OP_1 && first <= OP_1 + 15) return { height: first - OP_1 + 1, length: 1 };
  if (first < 1 || first > 4 || script.length < 1 + first) return null;
  let height = 0;
  for (let i = first; i >= 1; i--) height = height * 256 + script[i]!;
  const pushed = script.subarray(0, 1 + first);
  if (height < 1 || height > MAX_TERM_HEIGHT) return null;
  // Only the minimal encoding is this height's script.
  const minimal = pushHeight(height);
  if (minimal.length !== pushed.length || minimal.some((b, i) => b !== pushed[i])) return null;
  return { height, length: 1 + first };
}

/** `<height> OP_CHECKLOCKTIMEVERIFY OP_DROP <pubkey> OP_CHECKSIG`: the key alone from `height`. */
export function timelockLeafScript(height: number, pubkey: Uint8Array): Uint8Array {
  if (pubkey.length !== 32)
    throw new Error(`a timelocked key must be 32 bytes, got ${pubkey.length}`);
  return concatBytes(
    pushHeight(height),
    Uint8Array.of(OP_CHECKLOCKTIMEVERIFY, OP_DROP, PUSH_32),
    pubkey,
    Uint8Array.of(OP_CHECKSIG),
  );
}

/** The owner's exit leaf: `vault_pubkey` alone from `exit_height`. */
export const exitLeafScript = (exitHeight: number, vaultPubkey: Uint8Array): Uint8Array =>
  timelockLeafScript(exitHeight, vaultPubkey);

/** A guardian slot's settlement leaf: `guard_pubkey` alone from `settle_height`. */
export const settlementLeafScript = (settleHeight: number, guardPubkey: Uint8Array): Uint8Array =>
  timelockLeafScript(settleHeight, guardPubkey);

/** The height and key of a timelocked leaf, or null when the script is not exactly one. */
export function parseTimelockLeaf(
  script: Uint8Array,
): { height: number; pubkey: Uint8Array } | null {
  const push = readHeight(script);
  if (!push) return null;
  const rest = script.subarray(push.length);
  if (
    rest.length !== 36 ||
    rest[0] !== OP_CHECKLOCKTIMEVERIFY ||
    rest[1] !== OP_DROP ||
    rest[2] !== PUSH_32 ||
    rest[35] !== OP_CHECKSIG
  )
    return null;
  return { height: push.height, pubkey: rest.slice(3, 35) };
}

/**
 * Whether an input's witness spends a vault through its settlement leaf: `<sig> <leaf> <control
 * block>` whose leaf is a timelocked one at the vault's settlement height (its last record's; the
 * exit leaf has the later exit height). Read from the chain, where the leaf's commitment, lock and
 * signature were checked already: how a reindex and an open validator tell the settlement.
 */
export function spendsSettlementLeaf(
  witness: readonly Uint8Array[] | undefined,
  settleHeight: number | null | undefined,
): boolean {
  if (settleHeight == null || witness?.length !== 3) return false;
  return parseTimelockLeaf(witness[1]!)?.height === settleHeight;
}

/**
 * Whether an input's witness spends a vault through its owner's exit leaf: `<sig> <leaf> <control
 * block>` whose leaf is the timelocked one at the exit height of the vault's last record (the
 * settlement leaves have the earlier settlement height) and, when the vault's key is known, names
 * that key. Read from the chain, which checked the leaf's commitment, lock and signature already.
 */
export function spendsExitLeaf(
  witness: readonly Uint8Array[] | undefined,
  exitHeight: number | null | undefined,
  vaultPubkey?: Uint8Array | null,
): boolean {
  if (exitHeight == null || witness?.length !== 3) return false;
  const leaf = parseTimelockLeaf(witness[1]!);
  if (leaf?.height !== exitHeight) return false;
  return !vaultPubkey || leaf.pubkey.every((b, i) => b === vaultPubkey[i]);
}
