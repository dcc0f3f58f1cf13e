import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hex } from '@scure/base';
import { p2wpkh, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { fakeTxid, userKey } from '../test/testKeys';
import { encodeRunestone } from './runestone';
import {
  decodeStateRecord,
  encodeStateRecord,
  findStateRecord,
  parseStateRecordScript,
  stateRecordScript,
  type StateRecord,
} from './state-record';

const record: StateRecord = {
  action: 'b',
  unitDebt: 625_000n,
  vaultSats: 10_000_000n,
  quotePriceCents: 9_500_000n,
  thresholdCents: 8_437_500n,
  quoteStamp: 1_750_000_000,
  nonce: hex.decode('000102030405060708090a0b0c0d0e0f'),
  expiry: 1_750_000_060,
};

describe('state record', () => {
  it('lays out the 63 bytes of docs/protocol.md, big-endian', () => {
    const bytes = encodeStateRecord(record);
    expect(bytes).toHaveLength(63);
    expect(hex.encode(bytes)).toBe(
      [
        '554e495456', // UNITV
        '01',
        '62', // 'b'
        '0000000000098968', // 625,000
        '0000000000989680', // 10,000,000
        '000000000090f560', // 9,500,000
        '000000000080befc', // 8,437,500
        '684ee180', // 1,750,000,000
        '000102030405060708090a0b0c0d0e0f',
        '684ee1bc', // 1,750,000,060
      ].join(''),
    );
  });

  it('round-trips any record', () => {
    const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
    const u32 = fc.integer({ min: 0, max: 0xffffffff });
    fc.assert(
      fc.property(
        fc.record({
          action: fc.constantFrom('o', 'b', 'd', 'r', 'w', 'x') as fc.Arbitrary<
            StateRecord['action']
          >,
          unitDebt: u64,
          vaultSats: u64,
          quotePriceCents: u64,
          thresholdCents: u64,
          quoteStamp: u32,
          nonce: fc.uint8Array({ minLength: 16, maxLength: 16 }),
          expiry: u32,
        }),
        (r) => {
          expect(decodeStateRecord(encodeStateRecord(r))).toEqual(r);
          expect(parseStateRecordScript(stateRecordScript(r))).toEqual(r);
        },
      ),
    );
  });

  it('refuses values that do not fit their field', () => {
    expect(() => encodeStateRecord({ ...record, unitDebt: 1n << 64n })).toThrow('unitDebt');
    expect(() => encodeStateRecord({ ...record, vaultSats: -1n })).toThrow('vaultSats');
    expect(() => encodeStateRecord({ ...record, expiry: 2 ** 32 })).toThrow('expiry');
    expect(() => encodeStateRecord({ ...record, nonce: new Uint8Array(15) })).toThrow('16 bytes');
  });

  it('decodes nothing from bytes with another magic, version, action or length', () => {
    const bytes = encodeStateRecord(record);
    const wrongMagic = bytes.slice();
    wrongMagic[0] = 0x41;
    const wrongVersion = bytes.slice();
    wrongVersion[5] = 2;
    const wrongAction = bytes.slice();
    wrongAction[6] = 'l'.charCodeAt(0);
    expect(decodeStateRecord(wrongMagic)).toBeNull();
    expect(decodeStateRecord(wrongVersion)).toBeNull();
    expect(decodeStateRecord(wrongAction)).toBeNull();
    expect(decodeStateRecord(bytes.subarray(0, 62))).toBeNull();
  });

  it('is an OP_RETURN with one direct 63-byte push', () => {
    const script = stateRecordScript(record);
    expect(hex.encode(script.subarray(0, 2))).toBe('6a3f');
    expect(script).toHaveLength(65);
  });

  it('is found among the outputs of a real transaction, after the runestone', () => {
    const tx = new Transaction({ allowUnknownOutputs: true });
    tx.addInput({ txid: fakeTxid(1), index: 0 });
    tx.addOutput({ script: p2wpkh(userKey.compressed, TEST_NETWORK).script, amount: 10_000n });
    tx.addOutput({ script: encodeRunestone({ edicts: [], pointer: 0 }), amount: 0n });
    tx.addOutput({ script: stateRecordScript(record), amount: 0n });
    expect(findStateRecord(hex.encode(tx.unsignedTx))).toEqual({ vout: 2, record });
    expect(findStateRecord(tx)).toEqual({ vout: 2, record });
  });

  describe("an opening's record with its vault key (version 2)", () => {
    const vaultPubkey = hex.decode('11'.repeat(32));
    const opening: StateRecord = { ...record, action: 'o', vaultPubkey };

    it('is the 63 bytes at version 2 and the x-only key after them, in one OP_PUSHDATA1 push', () => {
      const bytes = encodeStateRecord(opening);
      expect(bytes).toHaveLength(95);
      expect(bytes[5]).toBe(2);
      expect(hex.encode(bytes.subarray(6, 63))).toBe(
        hex.encode(encodeStateRecord({ ...record, action: 'o' }).subarray(6)),
      );
      expect(hex.encode(bytes.subarray(63))).toBe('11'.repeat(32));
      const script = stateRecordScript(opening);
      expect(hex.encode(script.subarray(0, 3))).toBe('6a4c5f');
      expect(script).toHaveLength(98);
      expect(parseStateRecordScript(script)).toEqual(opening);
      expect(decodeStateRecord(bytes)).toEqual(opening);
    });

    it('still reads a version 1 opening, which has no key', () => {
      const old = parseStateRecordScript(stateRecordScript({ ...record, action: 'o' }));
      expect(old).toEqual({ ...record, action: 'o' });
      expect(old).not.toHaveProperty('vaultPubkey');
    });

    it('refuses a key on another action, a key that is not 32 bytes, and mismatched bytes', () => {
      expect(() => encodeStateRecord({ ...record, vaultPubkey })).toThrow('only an opening');
      expect(() => encodeStateRecord({ ...opening, vaultPubkey: new Uint8Array(33) })).toThrow(
        '32 bytes',
      );
      const bytes = encodeStateRecord(opening);
      const keyedBorrow = bytes.slice();
      keyedBorrow[6] = 'b'.charCodeAt(0);
      expect(decodeStateRecord(keyedBorrow)).toBeNull();
      const shortKey = bytes.subarray(0, 94);
      expect(decodeStateRecord(shortKey)).toBeNull();
      const versionOneLong = bytes.slice();
      versionOneLong[5] = 1;
      expect(decodeStateRecord(versionOneLong)).toBeNull();
      // A 63-byte record pushed with OP_PUSHDATA1 is not minimal: not a record.
      const nonMinimal = new Uint8Array([0x6a, 0x4c, 63, ...encodeStateRecord(record)]);
      expect(parseStateRecordScript(nonMinimal)).toBeNull();
    });
  });

  describe('a record committing to the price quorum (versions 3 and 4, network mode)', () => {
    const quorumCommitment = hex.decode('ab'.repeat(32));
    const vaultPubkey = hex.decode('11'.repeat(32));
    const opening: StateRecord = { ...record, action: 'o', vaultPubkey };

    it("is version 1's bytes at version 3, then the commitment: 95 bytes in one OP_PUSHDATA1 push", () => {
      const committed = { ...record, quorumCommitment };
      const bytes = encodeStateRecord(committed);
      expect(bytes).toHaveLength(95);
      expect(bytes[5]).toBe(3);
      const plain = encodeStateRecord(record);
      expect(hex.encode(bytes.subarray(6, 63))).toBe(hex.encode(plain.subarray(6)));
      expect(hex.encode(bytes.subarray(63))).toBe('ab'.repeat(32));
      const script = stateRecordScript(committed);
      expect(hex.encode(script.subarray(0, 3))).toBe('6a4c5f');
      expect(script).toHaveLength(98);
      expect(parseStateRecordScript(script)).toEqual(committed);
    });

    it("is an opening's version 2 bytes at version 4, then the commitment: 127 bytes", () => {
      const committed = { ...opening, quorumCommitment };
      const bytes = encodeStateRecord(committed);
      expect(bytes).toHaveLength(127);
      expect(bytes[5]).toBe(4);
      expect(hex.encode(bytes.subarray(6, 95))).toBe(
        hex.encode(encodeStateRecord(opening).subarray(6)),
      );
      expect(hex.encode(bytes.subarray(95))).toBe('ab'.repeat(32));
      const script = stateRecordScript(committed);
      expect(hex.encode(script.subarray(0, 3))).toBe('6a4c7f');
      expect(script).toHaveLength(130);
      expect(parseStateRecordScript(script)).toEqual(committed);
      expect(decodeStateRecord(bytes)).toEqual(committed);
    });

    it('round-trips any committed record of every action', () => {
      fc.assert(
        fc.property(
          fc.constantFrom('o', 'b', 'd', 'r', 'w', 'x') as fc.Arbitrary<StateRecord['action']>,
          fc.uint8Array({ minLength: 32, maxLength: 32 }),
          (action, commitment) => {
            const r: StateRecord = {
              ...record,
              action,
              quorumCommitment: commitment,
              ...(action === 'o' ? { vaultPubkey } : {}),
            };
            expect(parseStateRecordScript(stateRecordScript(r))).toEqual(r);
          },
        ),
      );
    });

    it('leaves the off-mode versions 1 and 2 byte for byte, without a commitment', () => {
      expect(encodeStateRecord(record)[5]).toBe(1);
      expect(encodeStateRecord(opening)[5]).toBe(2);
      expect(parseStateRecordScript(stateRecordScript(record))).not.toHaveProperty(
        'quorumCommitment',
      );
    });

    it('refuses a commitment not 32 bytes, a keyless committed opening, truncated or over-long bytes', () => {
      expect(() => encodeStateRecord({ ...record, quorumCommitment: new Uint8Array(31) })).toThrow(
        '32 bytes',
      );
      expect(() => encodeStateRecord({ ...record, action: 'o', quorumCommitment })).toThrow(
        'vault key too',
      );
      const v3 = encodeStateRecord({ ...record, quorumCommitment });
      const v4 = encodeStateRecord({ ...opening, quorumCommitment });
      expect(decodeStateRecord(v3.subarray(0, 94))).toBeNull();
      expect(decodeStateRecord(new Uint8Array([...v3, 0]))).toBeNull();
      expect(decodeStateRecord(v4.subarray(0, 126))).toBeNull();
      expect(decodeStateRecord(new Uint8Array([...v4, 0]))).toBeNull();
      // The version byte must match the length and the action.
      const v3AsOpening = v3.slice();
      v3AsOpening[6] = 'o'.charCodeAt(0);
      expect(decodeStateRecord(v3AsOpening)).toBeNull();
      const v4AsBorrow = v4.slice();
      v4AsBorrow[6] = 'b'.charCodeAt(0);
      expect(decodeStateRecord(v4AsBorrow)).toBeNull();
      const v4AtVersion3 = v4.slice();
      v4AtVersion3[5] = 3;
      expect(decodeStateRecord(v4AtVersion3)).toBeNull();
      // The script's push length must be the record's: one byte short or long is no record.
      const script = stateRecordScript({ ...opening, quorumCommitment });
      expect(parseStateRecordScript(script.subarray(0, 129))).toBeNull();
      expect(parseStateRecordScript(new Uint8Array([...script, 0]))).toBeNull();
    });
  });

  it('finds nothing in a transaction without a record', () => {
    expect(findStateRecord([{ script: p2wpkh(userKey.compressed).script }])).toBeNull();
  });
});

describe('state record of a vault with a term (versions 5 to 8)', () => {
  const term = { settleHeight: 1_040, exitHeight: 1_060, exitBranch: new Uint8Array(32).fill(7) };
  const commitment = new Uint8Array(32).fill(9);
  const shapes: Array<[number, number, Partial<StateRecord>]> = [
    [5, 103, { term }],
    [6, 135, { action: 'o', vaultPubkey: userKey.xOnly, term }],
    [7, 135, { quorumCommitment: commitment, term }],
    [8, 167, { action: 'o', vaultPubkey: userKey.xOnly, quorumCommitment: commitment, term }],
  ];
  it.each(shapes)(
    'version %i is %i bytes, the term last, and reads back',
    (version, length, extra) => {
      const termed = { ...record, ...extra };
      const bytes = encodeStateRecord(termed);
      expect(bytes[5]).toBe(version);
      expect(bytes).toHaveLength(length);
      expect(hex.encode(bytes.subarray(-40))).toBe('00000410' + '00000424' + '07'.repeat(32));
      expect(decodeStateRecord(bytes)).toEqual(termed);
      expect(parseStateRecordScript(stateRecordScript(termed))).toEqual(termed);
    },
  );

  it('reads no term whose exit does not come after its settlement, nor a cut one', () => {
    const bytes = encodeStateRecord({
      ...record,
      term: { ...term, exitHeight: term.settleHeight },
    });
    expect(decodeStateRecord(bytes)).toBeNull();
    expect(decodeStateRecord(encodeStateRecord({ ...record, term }).subarray(0, -1))).toBeNull();
    expect(() =>
      encodeStateRecord({ ...record, term: { ...term, exitBranch: new Uint8Array(31) } }),
    ).toThrow(/exit branch/);
  });
});
