// Test vectors of the vault output (docs/vectors/vault-scripts.json): the threshold hashes an oracle
// derives and, from an owner key, guardian keys, threshold hashes and a term, every leaf script,
// its leaf hash and control block, the merkle root, the output key and the address on each network.
import { hex } from '@scure/base';
import { NETWORK, TAPROOT_UNSPENDABLE_KEY, TEST_NETWORK } from '@scure/btc-signer';
import { taprootTweakPubkey, type BTC_NETWORK } from '@scure/btc-signer/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';
import type { VaultTerm } from '@unit/protocol';
import { thresholdHash, thresholdSecret, vaultOutput, type VaultLeaf } from '../../src/index';
import { testKey } from '../testKeys';

/** The networks a vault address is given for: mainnet bc1, signet (and testnet) tb1, regtest bcrt1. */
export const VECTOR_NETWORKS: Record<'mainnet' | 'signet' | 'regtest', BTC_NETWORK> = {
  mainnet: NETWORK,
  signet: TEST_NETWORK,
  regtest: { ...TEST_NETWORK, bech32: 'bcrt' },
};

const utf8 = (text: string) => new TextEncoder().encode(text);

/** BIP-340 tagged hash, written out here so the vectors' checks do not lean on the code they check. */
export function taggedHash(tag: string, ...parts: Uint8Array[]): Uint8Array {
  const t = sha256(utf8(tag));
  const h = sha256.create().update(t).update(t);
  for (const part of parts) h.update(part);
  return h.digest();
}

/** BIP-341 leaf hash of a tapscript leaf (version 0xc0; every script here is under 253 bytes). */
export function tapLeafHash(script: Uint8Array): Uint8Array {
  if (script.length >= 253) throw new Error('leaf scripts here are under 253 bytes');
  return taggedHash('TapLeaf', Uint8Array.of(0xc0, script.length), script);
}

/** BIP-341: the root a control block proves for a leaf, walking its sibling hashes in order. */
export function rootOfControlBlock(leafHash: Uint8Array, controlBlock: Uint8Array): Uint8Array {
  let node = leafHash;
  for (let at = 33; at < controlBlock.length; at += 32) {
    const sibling = controlBlock.subarray(at, at + 32);
    const [a, b] = hex.encode(node) < hex.encode(sibling) ? [node, sibling] : [sibling, node];
    node = taggedHash('TapBranch', a, b);
  }
  return node;
}

export interface ThresholdInput {
  oracleSecret: string;
  thCents: string;
  stamp: number;
}

const ORACLE_SECRETS = ['oracle-1', 'oracle-2', 'oracle-3'].map((name) =>
  hex.encode(sha256(utf8(`unit-vector/${name}`))),
);

export const THRESHOLD_INPUTS: ThresholdInput[] = ORACLE_SECRETS.map((oracleSecret, i) => ({
  oracleSecret,
  thCents: String(843_750 + i),
  stamp: 1_750_000_000 + i,
}));

export function thresholdVector(input: ThresholdInput) {
  const secret = thresholdSecret(
    hex.decode(input.oracleSecret),
    BigInt(input.thCents),
    input.stamp,
  );
  return { ...input, secret: hex.encode(secret), thresholdHash: hex.encode(thresholdHash(secret)) };
}

export interface VaultInput {
  name: string;
  vaultPubkey: string;
  guardPubkeys: string[];
  thresholdHashes: string[];
  term: VaultTerm | null;
}

const owner = hex.encode(testKey('vector-owner').xOnly);
const guards = ['vector-guardian-1', 'vector-guardian-2', 'vector-guardian-3'].map((name) =>
  hex.encode(testKey(name).xOnly),
);

export function vaultInputs(): VaultInput[] {
  const hashes = THRESHOLD_INPUTS.map((input) => thresholdVector(input).thresholdHash);
  const mainnetTerm = { settleHeight: 932_561, exitHeight: 936_881 };
  return [
    {
      name: 'layout 1, one guardian key, one oracle',
      vaultPubkey: owner,
      guardPubkeys: guards.slice(0, 1),
      thresholdHashes: hashes.slice(0, 1),
      term: null,
    },
    {
      name: 'layout 1, three guardian slots, three oracles',
      vaultPubkey: owner,
      guardPubkeys: guards,
      thresholdHashes: hashes,
      term: null,
    },
    {
      name: 'layout 2, one guardian key, one oracle, mainnet term',
      vaultPubkey: owner,
      guardPubkeys: guards.slice(0, 1),
      thresholdHashes: hashes.slice(0, 1),
      term: mainnetTerm,
    },
    {
      name: 'layout 2, one guardian key, three oracles, small heights (OP_16 push)',
      vaultPubkey: owner,
      guardPubkeys: guards.slice(0, 1),
      thresholdHashes: hashes,
      term: { settleHeight: 16, exitHeight: 128 },
    },
    {
      name: 'layout 2, two guardian slots, two oracles',
      vaultPubkey: owner,
      guardPubkeys: guards.slice(0, 2),
      thresholdHashes: hashes.slice(0, 2),
      term: mainnetTerm,
    },
  ];
}

export interface LeafVector {
  kind: 'update' | 'liquidation' | 'settlement' | 'exit';
  slot: number | null;
  oracle: number | null;
  script: string;
  leafHash: string;
  controlBlock: string;
}

const leafVector = (
  kind: LeafVector['kind'],
  slot: number | null,
  oracle: number | null,
  leaf: VaultLeaf,
): LeafVector => ({
  kind,
  slot,
  oracle,
  script: hex.encode(leaf.script),
  leafHash: hex.encode(tapLeafHash(leaf.script)),
  controlBlock: hex.encode(leaf.controlBlock),
});

/** What vaultOutput gives for one input, on every network. */
export function vaultVector(input: VaultInput) {
  const params = {
    vaultPubkey: hex.decode(input.vaultPubkey),
    guardPubkey: input.guardPubkeys.map((k) => hex.decode(k)),
    thresholdHash: input.thresholdHashes.map((h) => hex.decode(h)),
    ...(input.term ? { term: input.term } : {}),
  };
  const outs = Object.fromEntries(
    Object.entries(VECTOR_NETWORKS).map(([name, network]) => [
      name,
      vaultOutput({ ...params, network }),
    ]),
  );
  const out = outs.mainnet!;
  const leaves: LeafVector[] = [
    ...out.updateLeaves.flatMap((update, slot) => [
      leafVector('update', slot, null, update),
      ...out.liquidationLeaves[slot]!.map((leaf, oracle) =>
        leafVector('liquidation', slot, oracle, leaf),
      ),
      ...(out.settlementLeaves
        ? [leafVector('settlement', slot, null, out.settlementLeaves[slot]!)]
        : []),
    ]),
    ...(out.exitLeaf ? [leafVector('exit', null, null, out.exitLeaf)] : []),
  ];
  return {
    ...input,
    layout: out.layout,
    internalKey: hex.encode(out.tapInternalKey),
    leaves,
    merkleRoot: hex.encode(out.tapMerkleRoot),
    outputKey: hex.encode(out.tweakedPubkey),
    scriptPubKey: hex.encode(out.script),
    addresses: Object.fromEntries(Object.entries(outs).map(([name, o]) => [name, o.address])),
    exitBranch: out.exitBranch ? hex.encode(out.exitBranch) : null,
  };
}

/** The output key BIP-341 gives the internal key and merkle root, and its parity bit. */
export function tweakedKey(
  internalKey: string,
  merkleRoot: string,
): { key: string; parity: number } {
  const [key, parity] = taprootTweakPubkey(hex.decode(internalKey), hex.decode(merkleRoot));
  return { key: hex.encode(key), parity };
}

export function vaultScriptVectors() {
  return {
    about:
      'The vault Taproot output of docs/protocol.md as packages/bitcoin builds it (vaultOutput): threshold hashes from an oracle secret, then per vault the leaf scripts in tree order with their BIP-341 leaf hashes and control blocks, the merkle root, the output key, the output script and the address per network.',
    internalKey: hex.encode(TAPROOT_UNSPENDABLE_KEY),
    thresholds: THRESHOLD_INPUTS.map(thresholdVector),
    vaults: vaultInputs().map(vaultVector),
  };
}
