// The vault output, the state record and the ledger digest against docs/vectors/: each vector's
// inputs through the real code must give its outputs (encode), its outputs must read back as its
// inputs (decode), and each file must be what `npm run vectors` writes from today's code.
import { describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import {
  addressToScript,
  classifyVaultLeaf,
  decodeRunestone,
  decodeStateRecord,
  encodeRunestone,
  encodeStateRecord,
  ledgerDigest,
  ledgerEntry,
  ledgerFromJson,
  ledgerJson,
  parseStateRecordScript,
  priceQuorumCommitment,
  stateRecordScript,
  type Runestone,
} from '../src/index';
import ledgerFile from '../../../docs/vectors/ledger-digest.json';
import runestoneFile from '../../../docs/vectors/runestones.json';
import recordFile from '../../../docs/vectors/state-records.json';
import vaultFile from '../../../docs/vectors/vault-scripts.json';
import {
  fieldsOfRecord,
  ledgerDigestVectors,
  ledgerVaultOf,
  recordOfFields,
  stateRecordVectors,
  type LedgerVaultJson,
  type RecordFields,
} from './vectors/records';
import {
  jsonOfRunestone,
  runestoneOfJson,
  runestoneVectors,
  type RunestoneJson,
} from './vectors/runestones';
import {
  rootOfControlBlock,
  taggedHash,
  tapLeafHash,
  thresholdVector,
  tweakedKey,
  VECTOR_NETWORKS,
  vaultScriptVectors,
  vaultVector,
  type VaultInput,
} from './vectors/vault-scripts';

const vaults = vaultFile as unknown as ReturnType<typeof vaultScriptVectors>;
const records = recordFile as unknown as ReturnType<typeof stateRecordVectors>;
const ledgers = ledgerFile as unknown as ReturnType<typeof ledgerDigestVectors>;
const runestones = runestoneFile as unknown as ReturnType<typeof runestoneVectors>;

describe('docs/vectors/vault-scripts.json', () => {
  it.each(vaults.thresholds.map((t) => [t.thCents, t] as const))(
    'threshold of th_cents %s: secret and hash',
    (_th, t) => {
      expect(thresholdVector(t)).toEqual(t);
    },
  );

  it.each(vaults.vaults.map((v) => [v.name, v] as const))('%s: built from its inputs', (_n, v) => {
    const input: VaultInput = {
      name: v.name,
      vaultPubkey: v.vaultPubkey,
      guardPubkeys: v.guardPubkeys,
      thresholdHashes: v.thresholdHashes,
      term: v.term,
    };
    expect(vaultVector(input)).toEqual(v);
  });

  it.each(vaults.vaults.map((v) => [v.name, v] as const))('%s: read back', (_n, v) => {
    // Each leaf says what it is, and its control block proves it under the merkle root.
    for (const leaf of v.leaves) {
      const script = hex.decode(leaf.script);
      const kind = classifyVaultLeaf(script);
      const guard = leaf.slot === null ? null : v.guardPubkeys[leaf.slot];
      if (leaf.kind === 'update')
        expect(kind).toEqual({
          kind: 'update',
          vaultPubkey: hex.decode(v.vaultPubkey),
          guardPubkey: hex.decode(guard!),
        });
      if (leaf.kind === 'liquidation')
        expect(kind).toEqual({
          kind: 'liquidation',
          thresholdHash: hex.decode(v.thresholdHashes[leaf.oracle!]!),
          guardPubkey: hex.decode(guard!),
        });
      if (leaf.kind === 'settlement' || leaf.kind === 'exit')
        expect(kind).toEqual({
          kind: 'timelock',
          height: leaf.kind === 'exit' ? v.term!.exitHeight : v.term!.settleHeight,
          pubkey: hex.decode(leaf.kind === 'exit' ? v.vaultPubkey : guard!),
        });
      expect(hex.encode(tapLeafHash(script))).toBe(leaf.leafHash);
      const control = hex.decode(leaf.controlBlock);
      expect(hex.encode(control.subarray(1, 33))).toBe(vaults.internalKey);
      expect(hex.encode(rootOfControlBlock(hex.decode(leaf.leafHash), control))).toBe(v.merkleRoot);
      expect(control[0]! & 0xfe).toBe(0xc0);
      expect(control[0]! & 1).toBe(tweakedKey(v.internalKey, v.merkleRoot).parity);
    }
    expect(v.internalKey).toBe(vaults.internalKey);
    expect(tweakedKey(v.internalKey, v.merkleRoot).key).toBe(v.outputKey);
    expect(v.scriptPubKey).toBe(`5120${v.outputKey}`);
    for (const [name, network] of Object.entries(VECTOR_NETWORKS))
      expect(hex.encode(addressToScript(v.addresses[name]!, network))).toBe(v.scriptPubKey);
    if (v.exitBranch) {
      const exit = v.leaves.find((l) => l.kind === 'exit')!;
      expect(exit.controlBlock.slice(66)).toBe(v.exitBranch);
    }
  });

  it('is the file the generator writes from the current code (npm run vectors)', () => {
    expect(vaults).toEqual(vaultScriptVectors());
  });
});

describe('docs/vectors/state-records.json', () => {
  it('price quorum commitment: canonical JSON, then the tagged hash', () => {
    const { quorum } = records;
    expect(hex.encode(priceQuorumCommitment(quorum.prices))).toBe(quorum.commitment);
    expect(hex.encode(taggedHash(quorum.tag, new TextEncoder().encode(quorum.canonicalJson)))).toBe(
      quorum.commitment,
    );
  });

  it.each(records.records.map((r) => [r.name, r] as const))('%s: encode', (_n, r) => {
    const record = recordOfFields(r.fields as RecordFields);
    const bytes = encodeStateRecord(record);
    expect(hex.encode(bytes)).toBe(r.hex);
    expect(bytes[5]).toBe(r.version);
    expect(bytes.length).toBe(r.length);
    expect(hex.encode(stateRecordScript(record))).toBe(r.script);
  });

  it.each(records.records.map((r) => [r.name, r] as const))('%s: decode', (_n, r) => {
    expect(fieldsOfRecord(decodeStateRecord(hex.decode(r.hex))!)).toEqual(r.fields);
    expect(fieldsOfRecord(parseStateRecordScript(hex.decode(r.script))!)).toEqual(r.fields);
  });

  it.each(records.invalid.map((r) => [r.name, r] as const))('%s: no record', (_n, r) => {
    expect(decodeStateRecord(hex.decode(r.hex))).toBeNull();
  });

  it('covers versions 1 to 8', () => {
    expect(new Set(records.records.map((r) => r.version))).toEqual(
      new Set([1, 2, 3, 4, 5, 6, 7, 8]),
    );
  });

  it('is the file the generator writes from the current code (npm run vectors)', () => {
    expect(records).toEqual(stateRecordVectors());
  });
});

describe('docs/vectors/ledger-digest.json', () => {
  it.each(ledgers.ledgers.map((l) => [l.name, l] as const))('%s: entries and digest', (_n, l) => {
    const vaultList = (l.vaults as LedgerVaultJson[]).map(ledgerVaultOf);
    const json = ledgerJson(1, vaultList);
    expect(json.digest).toBe(l.digest);
    expect(ledgerDigest(vaultList)).toBe(l.digest);
    const ordered = ledgerFromJson(json)!;
    expect(ordered.map((v) => hex.encode(ledgerEntry(v)))).toEqual(l.entries);
    // The digest by hand from the entries: an implementation that hashes them itself must agree.
    const count = new Uint8Array(4);
    new DataView(count.buffer).setUint32(0, l.entries.length);
    const body = Uint8Array.of(...count, ...l.entries.flatMap((e) => [...hex.decode(e)]));
    expect(hex.encode(taggedHash(ledgers.tag, body))).toBe(l.digest);
  });

  it('is the file the generator writes from the current code (npm run vectors)', () => {
    expect(ledgers).toEqual(ledgerDigestVectors());
  });
});

describe('docs/vectors/runestones.json', () => {
  const all = [...runestones.vaultActions, ...runestones.messages];

  it.each(all.map((r) => [r.name, r] as const))('%s: encode and decode', (_n, r) => {
    const message = r.runestone as RunestoneJson;
    expect(hex.encode(encodeRunestone(runestoneOfJson(message)))).toBe(r.script);
    // An edict may not name an output past the transaction's last: decode among ten outputs.
    const others = Array.from({ length: 9 }, () => ({
      script: hex.decode(`5120${'00'.repeat(32)}`),
    }));
    const decoded = decodeRunestone([{ script: hex.decode(r.script) }, ...others]);
    expect(decoded && 'runestone' in decoded).toBe(true);
    expect(jsonOfRunestone((decoded as { runestone: Runestone }).runestone)).toEqual(message);
  });

  it('is the file the generator writes from the current code (npm run vectors)', () => {
    expect(runestones).toEqual(runestoneVectors());
  });
});
