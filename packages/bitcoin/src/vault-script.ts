// The vault's Taproot output: an unspendable internal key and its script leaves (docs/protocol.md,
// "The vault output"): per guardian key an update leaf and one liquidation leaf per oracle
// commitment. The leaf scripts are written byte by byte so that every party (wallet, guardian,
// devnet) derives the very same output from the same keys and hashes.
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { p2tr, TAPROOT_UNSPENDABLE_KEY, TaprootControlBlock } from '@scure/btc-signer';
import type { TransactionInput } from '@scure/btc-signer/psbt.js';
import { concatBytes, equalBytes, hash160, type BTC_NETWORK } from '@scure/btc-signer/utils.js';
import {
  checkVaultTerm,
  VAULT_LAYOUT_TERMED,
  VAULT_LAYOUT_UNTERMED,
  VAULT_MAX_GUARD_COUNT,
  VAULT_MAX_ORACLE_COUNT,
  type VaultLayout,
  type VaultTerm,
} from '@unit/protocol';
import { exitLeafScript, parseTimelockLeaf, settlementLeafScript } from './term-leaves';

/** BIP342 tapscript leaf version; the only one our leaves use. */
export const TAPSCRIPT_LEAF_VERSION = 0xc0;

const OP_EQUALVERIFY = 0x88;
const OP_HASH160 = 0xa9;
const OP_CHECKSIGVERIFY = 0xad;
const OP_CHECKSIG = 0xac;
const PUSH_20 = 0x14;
const PUSH_32 = 0x20;

function assertLength(bytes: Uint8Array, length: number, what: string): void {
  if (bytes.length !== length)
    throw new Error(`${what} must be ${length} bytes, got ${bytes.length}`);
}

/** `<vault_pubkey> OP_CHECKSIGVERIFY <guard_pubkey> OP_CHECKSIG`: user and guardian together. */
export function updateLeafScript(vaultPubkey: Uint8Array, guardPubkey: Uint8Array): Uint8Array {
  assertLength(vaultPubkey, 32, 'vault_pubkey');
  assertLength(guardPubkey, 32, 'guard_pubkey');
  return concatBytes(
    new Uint8Array([PUSH_32]),
    vaultPubkey,
    new Uint8Array([OP_CHECKSIGVERIFY, PUSH_32]),
    guardPubkey,
    new Uint8Array([OP_CHECKSIG]),
  );
}

/** `OP_HASH160 <threshold_hash> OP_EQUALVERIFY <guard_pubkey> OP_CHECKSIG`: opens once the oracle reveals the secret. */
export function liquidationLeafScript(
  thresholdHash: Uint8Array,
  guardPubkey: Uint8Array,
): Uint8Array {
  assertLength(thresholdHash, 20, 'threshold_hash');
  assertLength(guardPubkey, 32, 'guard_pubkey');
  return concatBytes(
    new Uint8Array([OP_HASH160, PUSH_20]),
    thresholdHash,
    new Uint8Array([OP_EQUALVERIFY, PUSH_32]),
    guardPubkey,
    new Uint8Array([OP_CHECKSIG]),
  );
}

export type TapLeafKind =
  | { kind: 'update'; vaultPubkey: Uint8Array; guardPubkey: Uint8Array }
  | { kind: 'liquidation'; thresholdHash: Uint8Array; guardPubkey: Uint8Array };

/** A timelocked leaf: an owner's exit or a slot's settlement (which, depends on whose key it names). */
export type TimelockLeafKind = { kind: 'timelock'; height: number; pubkey: Uint8Array };

/**
 * Every leaf a vault may have, for the script check: the two leaves of `classifyTapLeaf` and the
 * timelocked key of layout 2; anything else is `null`.
 */
export function classifyVaultLeaf(script: Uint8Array): TapLeafKind | TimelockLeafKind | null {
  const timelock = parseTimelockLeaf(script);
  return timelock ? { kind: 'timelock', ...timelock } : classifyTapLeaf(script);
}

/**
 * Recognises exactly the two leaves a user action or a liquidation spends; anything else (a
 * timelocked leaf among them) is `null`, so no action flow takes an exit or a settlement.
 */
export function classifyTapLeaf(script: Uint8Array): TapLeafKind | null {
  if (
    script.length === 68 &&
    script[0] === PUSH_32 &&
    script[33] === OP_CHECKSIGVERIFY &&
    script[34] === PUSH_32 &&
    script[67] === OP_CHECKSIG
  ) {
    return { kind: 'update', vaultPubkey: script.slice(1, 33), guardPubkey: script.slice(35, 67) };
  }
  if (
    script.length === 57 &&
    script[0] === OP_HASH160 &&
    script[1] === PUSH_20 &&
    script[22] === OP_EQUALVERIFY &&
    script[23] === PUSH_32 &&
    script[56] === OP_CHECKSIG
  ) {
    return {
      kind: 'liquidation',
      thresholdHash: script.slice(2, 22),
      guardPubkey: script.slice(24, 56),
    };
  }
  return null;
}

export interface VaultOutputParams {
  vaultPubkey: Uint8Array;
  /**
   * The guardian key, or the vault's guardian slots in order (1 to VAULT_MAX_GUARD_COUNT keys,
   * slot 0 first): each slot gets an update leaf and its own liquidation leaves.
   */
  guardPubkey: Uint8Array | readonly Uint8Array[];
  /** The threshold hash, or one per oracle commitment (1 to VAULT_MAX_ORACLE_COUNT, oracle 0 first). */
  thresholdHash: Uint8Array | readonly Uint8Array[];
  network: BTC_NETWORK;
  /**
   * The term (layout 2): the owner's exit leaf at the root's top and one settlement leaf per slot.
   * Absent: layout 1, the vault of update and liquidation leaves alone.
   */
  term?: VaultTerm;
}

/** One `[control block, script || leaf version]` pair, the shape btc-signer takes as `tapLeafScript`. */
export type TapLeafScript = NonNullable<TransactionInput['tapLeafScript']>[number];

/** A leaf of the vault tree with the control block that proves it. */
export interface VaultLeaf {
  script: Uint8Array;
  controlBlock: Uint8Array;
}

export interface VaultOutput {
  script: Uint8Array;
  address: string;
  /** The Taproot output key (x-only) the script commits to. */
  tweakedPubkey: Uint8Array;
  tapInternalKey: Uint8Array;
  tapMerkleRoot: Uint8Array;
  /** The guardian keys by slot and the threshold hashes by oracle, as committed. */
  guardPubkeys: Uint8Array[];
  thresholdHashes: Uint8Array[];
  /**
   * Every leaf for `tx.addInput({ ..., tapLeafScript })`, in leaf order: per slot, its update leaf
   * then its liquidation leaves by oracle. One key and one hash: index 0 update, 1 liquidation.
   */
  tapLeafScript: TapLeafScript[];
  /** By slot. */
  updateLeaves: VaultLeaf[];
  /** By slot, then by oracle. */
  liquidationLeaves: VaultLeaf[][];
  /** Slot 0's update leaf. */
  updateLeaf: VaultLeaf;
  /** Slot 0's liquidation leaf of oracle 0. */
  liquidationLeaf: VaultLeaf;
  layout: VaultLayout;
  /** Layout 2: the term, the owner's exit leaf, each slot's settlement leaf and the exit's sibling. */
  term?: VaultTerm;
  exitLeaf?: VaultLeaf;
  settlementLeaves?: VaultLeaf[];
  /** The hash of the tree beside the exit leaf: what the state record carries (`exitBranch`). */
  exitBranch?: Uint8Array;
}

/** 1..max distinct values of one length, or an error naming the field. */
function slotList(
  value: Uint8Array | readonly Uint8Array[],
  max: number,
  [what, plural]: [string, string],
  length: number,
): Uint8Array[] {
  // Array.isArray, not instanceof Uint8Array: bytes from another realm (jsdom) are still bytes.
  const list: Uint8Array[] = Array.isArray(value)
    ? [...(value as readonly Uint8Array[])]
    : [value as Uint8Array];
  if (list.length < 1 || list.length > max)
    throw new Error(`a vault commits to 1 to ${max} ${plural}, got ${list.length}`);
  list.forEach((item, i) => {
    assertLength(item, length, `${what} ${i}`);
    if (list.slice(0, i).some((earlier) => equalBytes(earlier, item)))
      throw new Error(`${what} ${i} repeats an earlier one`);
  });
  return list;
}

type VaultTree = { script: Uint8Array } | [VaultTree, VaultTree];

/** n nodes as a tree: the first ⌊n/2⌋ on the left, the rest on the right (earlier is shallower). */
function splitTree(nodes: readonly VaultTree[]): VaultTree {
  if (nodes.length === 1) return nodes[0]!;
  const half = Math.floor(nodes.length / 2);
  return [splitTree(nodes.slice(0, half)), splitTree(nodes.slice(half))];
}

/**
 * The vault output of docs/protocol.md: `p2tr(TAPROOT_UNSPENDABLE_KEY, tree)` where each guardian
 * slot's subtree is `[update leaf, its liquidation leaves]` and the slots are split as evenly as
 * `splitTree` does. One key and one hash give `[updateLeaf, liquidationLeaf]`, the original output.
 */
export function vaultOutput({
  vaultPubkey,
  guardPubkey,
  thresholdHash,
  network,
  term,
}: VaultOutputParams): VaultOutput {
  if (term) checkVaultTerm(term);
  const guardPubkeys = slotList(
    guardPubkey,
    VAULT_MAX_GUARD_COUNT,
    ['guard_pubkey', 'guardian keys'],
    32,
  );
  const thresholdHashes = slotList(
    thresholdHash,
    VAULT_MAX_ORACLE_COUNT,
    ['threshold_hash', 'threshold hashes'],
    20,
  );
  const updates = guardPubkeys.map((guard) => updateLeafScript(vaultPubkey, guard));
  const liquidations = guardPubkeys.map((guard) =>
    thresholdHashes.map((hash) => liquidationLeafScript(hash, guard)),
  );
  const settlements = term
    ? guardPubkeys.map((guard) => settlementLeafScript(term.settleHeight, guard))
    : [];
  const exit = term ? exitLeafScript(term.exitHeight, vaultPubkey) : undefined;
  // Layout 2: each slot's settlement leaf heads its liquidation leaves, and the owner's exit sits
  // beside the whole tree, so its control block is one sibling the state record can carry.
  const slots = splitTree(
    updates.map((update, slot): VaultTree => [
      { script: update },
      splitTree(
        [...(term ? [settlements[slot]!] : []), ...liquidations[slot]!].map((script) => ({
          script,
        })),
      ),
    ]),
  );
  const tree: VaultTree = exit ? [{ script: exit }, slots] : slots;
  // The liquidation leaf is no template btc-signer knows, hence allowUnknownOutputs.
  const out = p2tr(TAPROOT_UNSPENDABLE_KEY, tree, network, true);
  const leaves = [...(out.tapLeafScript ?? [])];
  const entryFor = (script: Uint8Array): TapLeafScript => {
    const leaf = leaves.find(([, s]) => equalBytes(s.subarray(0, -1), script));
    if (!leaf) throw new Error('vault leaf missing from the Taproot tree');
    return leaf;
  };
  const leafFor = (script: Uint8Array): VaultLeaf => ({
    script,
    controlBlock: TaprootControlBlock.encode(entryFor(script)[0]),
  });
  const updateLeaves = updates.map(leafFor);
  const liquidationLeaves = liquidations.map((scripts) => scripts.map(leafFor));
  const exitLeaf = exit ? leafFor(exit) : undefined;
  const termed = exitLeaf
    ? {
        term,
        exitLeaf,
        settlementLeaves: settlements.map(leafFor),
        exitBranch: exitLeaf.controlBlock.slice(33, 65),
      }
    : {};
  return {
    script: out.script,
    address: out.address,
    tweakedPubkey: out.tweakedPubkey,
    tapInternalKey: out.tapInternalKey,
    tapMerkleRoot: out.tapMerkleRoot,
    guardPubkeys,
    thresholdHashes,
    tapLeafScript: [
      ...updates.flatMap((update, slot) => [
        entryFor(update),
        ...liquidations[slot]!.map(entryFor),
        ...(term ? [entryFor(settlements[slot]!)] : []),
      ]),
      ...(exit ? [entryFor(exit)] : []),
    ],
    updateLeaves,
    liquidationLeaves,
    updateLeaf: updateLeaves[0]!,
    liquidationLeaf: liquidationLeaves[0]![0]!,
    layout: term ? VAULT_LAYOUT_TERMED : VAULT_LAYOUT_UNTERMED,
    ...termed,
  };
}

const THRESHOLD_TAG = new TextEncoder().encode('unit/threshold');

function u64be(value: bigint): Uint8Array {
  if (value < 0n || value >= 1n << 64n) throw new Error('value out of u64 range');
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value);
  return out;
}

function u32be(value: number): Uint8Array {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
    throw new Error('value out of u32 range');
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value);
  return out;
}

/** `HMAC-SHA256(oracle_secret, "unit/threshold" || u64be(th_cents) || u32be(stamp))` (docs/protocol.md). */
export function thresholdSecret(
  oracleSecret: Uint8Array,
  thCents: bigint,
  stamp: number,
): Uint8Array {
  return hmac(sha256, oracleSecret, concatBytes(THRESHOLD_TAG, u64be(thCents), u32be(stamp)));
}

/** `threshold_hash = hash160(secret)`: what the liquidation leaf commits to. */
export function thresholdHash(secret: Uint8Array): Uint8Array {
  return hash160(secret);
}
