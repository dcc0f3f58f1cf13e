import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hex } from '@scure/base';
import { encodeRunestone as libEncode, tryDecodeRunestone } from '@magiceden-oss/runestone-lib';
import { p2wpkh, TEST_NETWORK } from '@scure/btc-signer';
import { testKey } from '../test/testKeys';
import {
  allocateRunes,
  decodeRunestone,
  decodeVarint,
  encodeRunestone,
  encodeVarint,
  parseRuneId,
  parseSpacedRune,
  runeIdToString,
  runeNameToValue,
  runeValueToName,
  spacedRuneName,
  type RuneArtifact,
  type Runestone,
} from './runestone';

const UNIT = { block: 1n, tx: 0 };
const UNIT_KEY = '1:0';
const userScript = p2wpkh(testKey('user').compressed, TEST_NETWORK).script;
const treasuryScript = p2wpkh(testKey('treasury').compressed, TEST_NETWORK).script;
const vaultScript = p2wpkh(testKey('vault').compressed, TEST_NETWORK).script;

function libBytes(spec: Parameters<typeof libEncode>[0]): string {
  return libEncode(spec).encodedRunestone.toString('hex');
}

function libDecode(script: Uint8Array, outputs = 4) {
  const vout = [{ scriptPubKey: { hex: hex.encode(script) } }];
  for (let i = 1; i < outputs; i++) vout.push({ scriptPubKey: { hex: hex.encode(userScript) } });
  return tryDecodeRunestone({ vout });
}

function outputsWith(script: Uint8Array, count = 4): { script: Uint8Array }[] {
  return [{ script }, ...Array.from({ length: count - 1 }, () => ({ script: userScript }))];
}

describe('varints', () => {
  it('round-trips any u128', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), (n) => {
        const bytes = encodeVarint(n);
        expect(decodeVarint(bytes)).toEqual({ value: n, length: bytes.length });
      }),
    );
  });

  it('encodes 300 as ac 02 (LEB128)', () => {
    expect(hex.encode(encodeVarint(300n))).toBe('ac02');
  });

  it('refuses unterminated and over-u128 varints', () => {
    expect(decodeVarint(Uint8Array.of(0x80))).toBeNull();
    expect(decodeVarint(new Uint8Array(19).fill(0xff))).toBeNull();
  });
});

describe('rune names and ids', () => {
  it('maps names to values as ord does', () => {
    expect(runeNameToValue('A')).toBe(0n);
    expect(runeNameToValue('Z')).toBe(25n);
    expect(runeNameToValue('AA')).toBe(26n);
    expect(runeValueToName(27n)).toBe('AB');
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 1n << 100n }), (n) => {
        expect(runeNameToValue(runeValueToName(n))).toBe(n);
      }),
    );
  });

  it('reads and writes spacers', () => {
    const spaced = parseSpacedRune('UNIT•DOLLAR');
    expect(spaced).toEqual({ rune: 'UNITDOLLAR', spacers: 0b1000 });
    expect(spacedRuneName(spaced.rune, spaced.spacers)).toBe('UNIT•DOLLAR');
    expect(() => parseSpacedRune('UNIT•')).toThrow();
  });

  it('writes ids as block:tx', () => {
    expect(runeIdToString({ block: 840000n, tx: 3 })).toBe('840000:3');
    expect(parseRuneId('840000:3')).toEqual({ block: 840000n, tx: 3 });
    expect(() => parseRuneId('840000')).toThrow('invalid rune id');
  });
});

describe('encodeRunestone', () => {
  it('encodes the UNIT issue runestone byte for byte like runestone-lib', () => {
    const stone: Runestone = {
      edicts: [{ id: { block: 840000n, tx: 7 }, amount: 625_000n, output: 1 }],
      pointer: 2,
    };
    const script = encodeRunestone(stone);
    expect(hex.encode(script)).toBe(
      libBytes({
        edicts: [{ id: { block: 840000n, tx: 7 }, amount: 625_000n, output: 1 }],
        pointer: 2,
      }),
    );
    expect(hex.encode(script.subarray(0, 2))).toBe('6a5d');
  });

  it('encodes an etching with terms like runestone-lib', () => {
    const ours = encodeRunestone({
      edicts: [],
      etching: {
        rune: 'UNITDOLLAR',
        spacers: 0b1000,
        divisibility: 2,
        symbol: '¤',
        premine: 2_100_000_000_000n,
        terms: {
          amount: 1000n,
          cap: 10n,
          height: { start: 5n, end: 900n },
          offset: { start: 1n, end: 99n },
        },
        turbo: true,
      },
    });
    const theirs = libBytes({
      etching: {
        runeName: 'UNIT•DOLLAR',
        divisibility: 2,
        symbol: '¤',
        premine: 2_100_000_000_000n,
        terms: {
          amount: 1000n,
          cap: 10n,
          height: { start: 5n, end: 900n },
          offset: { start: 1n, end: 99n },
        },
        turbo: true,
      },
    });
    expect(hex.encode(ours)).toBe(theirs);
  });

  it('matches runestone-lib for any edicts, pointer and mint', () => {
    const runeId = fc.record({
      block: fc.bigInt({ min: 1n, max: 1n << 40n }),
      tx: fc.integer({ min: 0, max: 5000 }),
    });
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            id: runeId,
            amount: fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }),
            output: fc.integer({ min: 0, max: 4 }),
          }),
          {
            maxLength: 8,
          },
        ),
        fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
        fc.option(runeId, { nil: undefined }),
        (edicts, pointer, mint) => {
          const stone: Runestone = { edicts };
          if (pointer !== undefined) stone.pointer = pointer;
          if (mint !== undefined) stone.mint = mint;
          const script = encodeRunestone(stone);
          expect(hex.encode(script)).toBe(libBytes(stone));
          const decoded = decodeRunestone(outputsWith(script));
          const sorted = [...edicts].sort((a, b) =>
            a.id.block === b.id.block ? a.id.tx - b.id.tx : a.id.block < b.id.block ? -1 : 1,
          );
          expect(decoded).toEqual({ runestone: { ...stone, edicts: sorted } });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('writes a payload over 520 bytes as one push, as ord does', () => {
    const edicts = Array.from({ length: 40 }, (_, i) => ({
      id: { block: 1n << 50n, tx: i },
      amount: 1n << 100n,
      output: 0,
    }));
    const script = encodeRunestone({ edicts });
    const length = script[3]! | (script[4]! << 8);
    expect(length).toBeGreaterThan(520);
    // OP_RETURN OP_13 OP_PUSHDATA2 <length> <payload>: nothing after the one push.
    expect([...script.slice(0, 3)]).toEqual([0x6a, 0x5d, 0x4d]);
    expect(script.length).toBe(5 + length);
    expect(decodeRunestone(outputsWith(script))).toEqual({ runestone: { edicts } });
  });

  it('writes no push for an empty runestone (ord: OP_RETURN OP_13 alone)', () => {
    expect(hex.encode(encodeRunestone({ edicts: [] }))).toBe('6a5d');
  });
});

describe('decodeRunestone (pushes)', () => {
  it('still reads a payload split over several pushes, and any push size ord reads', () => {
    const edicts = Array.from({ length: 40 }, (_, i) => ({
      id: { block: 1n << 50n, tx: i },
      amount: 1n << 100n,
      output: 0,
    }));
    const one = encodeRunestone({ edicts });
    const payload = one.slice(5);
    // runestone-lib's layout: 520-byte pushes, then the rest.
    expect(libBytes({ edicts })).not.toBe(hex.encode(one));
    expect(decodeRunestone(outputsWith(hex.decode(libBytes({ edicts }))))).toEqual({
      runestone: { edicts },
    });
    // OP_PUSHDATA4 and non-minimal pushes: ord's script reader takes any push opcode.
    const n = payload.length;
    const pushdata4 = Uint8Array.of(0x6a, 0x5d, 0x4e, n & 0xff, n >> 8, 0, 0, ...payload);
    expect(decodeRunestone(outputsWith(pushdata4))).toEqual({ runestone: { edicts } });
    const small = encodeRunestone({ edicts: edicts.slice(0, 1) });
    const nonMinimal = Uint8Array.of(0x6a, 0x5d, 0x4c, small[2]!, ...small.slice(3));
    expect(decodeRunestone(outputsWith(nonMinimal))).toEqual({
      runestone: { edicts: edicts.slice(0, 1) },
    });
    // A push running past the end is a cenotaph, as ord reads it.
    expect(decodeRunestone(outputsWith(Uint8Array.of(0x6a, 0x5d, 0x4d, 0xff, 0x00, 1)))).toEqual({
      cenotaph: true,
      flaws: ['invalid_script'],
    });
  });
});

describe('decodeRunestone', () => {
  it('finds nothing in a transaction without OP_RETURN OP_13', () => {
    expect(
      decodeRunestone([{ script: userScript }, { script: Uint8Array.of(0x6a, 0x01, 0x02) }]),
    ).toBeNull();
  });

  it('reads the etching back as runestone-lib does', () => {
    const script = encodeRunestone({
      edicts: [{ id: { block: 0n, tx: 0 }, amount: 5n, output: 1 }],
      etching: { rune: 'UNITUNITUNIT', divisibility: 2, symbol: 'U', premine: 10_000_000n },
    });
    const ours = decodeRunestone(outputsWith(script));
    expect(ours).toEqual({
      runestone: {
        edicts: [{ id: { block: 0n, tx: 0 }, amount: 5n, output: 1 }],
        etching: { rune: 'UNITUNITUNIT', divisibility: 2, symbol: 'U', premine: 10_000_000n },
      },
    });
    expect(libDecode(script)).toMatchObject({
      etching: { runeName: 'UNITUNITUNIT', divisibility: 2, premine: 10_000_000n },
    });
  });

  const cenotaphs: [string, string, string][] = [
    ['a non-push opcode', '6a5d010051', 'opcode'],
    ['a truncated push', '6a5d05ff', 'invalid_script'],
    ['an unterminated varint', '6a5d0180', 'varint'],
    ['an unknown even tag', '6a5d021e01', 'unrecognized_even_tag'],
    ['the cenotaph tag', '6a5d027e00', 'unrecognized_even_tag'],
    ['an unknown flag', '6a5d020208', 'unrecognized_flag'],
    ['a tag without a value', '6a5d0116', 'truncated_field'],
    ['trailing edict integers', '6a5d0400010000', 'trailing_integers'],
    ['an edict to a missing output', '6a5d050001010509', 'edict_output'],
    ['an edict rune id of block 0 with tx > 0', '6a5d050000010100', 'edict_rune_id'],
    ['a pointer past the outputs', '6a5d021609', 'unrecognized_even_tag'],
  ];
  for (const [what, scriptHex, flaw] of cenotaphs) {
    it(`makes ${what} a cenotaph (${flaw}), as runestone-lib does`, () => {
      const script = hex.decode(scriptHex);
      const ours = decodeRunestone(outputsWith(script));
      expect(ours).toMatchObject({ cenotaph: true, flaws: [flaw] });
      expect(libDecode(script)).toMatchObject({ flaws: [flaw] });
    });
  }
});

describe('allocateRunes', () => {
  const issue = (amount: bigint): RuneArtifact => ({
    runestone: { edicts: [{ id: UNIT, amount, output: 1 }], pointer: 2 },
  });
  const runestoneOut = { script: encodeRunestone({ edicts: [] }) };
  // open/borrow layout: vault, UNIT postage, treasury change, R, S
  const openOutputs = [
    { script: vaultScript },
    { script: userScript },
    { script: treasuryScript },
    runestoneOut,
    { script: Uint8Array.of(0x6a, 0x01, 0x00) },
  ];

  it('transfers the edict amount to the runes address and the rest to the pointer', () => {
    const result = allocateRunes({
      inputBalances: new Map([[UNIT_KEY, 1_000_000n]]),
      runestone: issue(62_500n),
      outputs: openOutputs,
    });
    expect(result.balances.map((m) => m.get(UNIT_KEY) ?? 0n)).toEqual([
      0n,
      62_500n,
      937_500n,
      0n,
      0n,
    ]);
    expect(result.burned.size).toBe(0);
  });

  it('caps an edict at what is left and treats amount 0 as all of it', () => {
    const stone: RuneArtifact = {
      runestone: {
        edicts: [
          { id: UNIT, amount: 700n, output: 1 },
          { id: UNIT, amount: 700n, output: 2 },
          { id: UNIT, amount: 0n, output: 0 },
        ],
      },
    };
    const result = allocateRunes({
      inputBalances: new Map([[UNIT_KEY, 1000n]]),
      runestone: stone,
      outputs: openOutputs,
    });
    expect(result.balances.map((m) => m.get(UNIT_KEY) ?? 0n)).toEqual([0n, 700n, 300n, 0n, 0n]);
  });

  it('splits amount 0 to output == outputs.length evenly among non-OP_RETURN outputs, remainder first', () => {
    const stone: RuneArtifact = {
      runestone: { edicts: [{ id: UNIT, amount: 0n, output: openOutputs.length }] },
    };
    const result = allocateRunes({
      inputBalances: new Map([[UNIT_KEY, 11n]]),
      runestone: stone,
      outputs: openOutputs,
    });
    expect(result.balances.map((m) => m.get(UNIT_KEY) ?? 0n)).toEqual([4n, 4n, 3n, 0n, 0n]);
  });

  it('gives each non-OP_RETURN output the amount while it lasts when splitting a fixed amount', () => {
    const stone: RuneArtifact = {
      runestone: { edicts: [{ id: UNIT, amount: 5n, output: openOutputs.length }] },
    };
    const result = allocateRunes({
      inputBalances: new Map([[UNIT_KEY, 12n]]),
      runestone: stone,
      outputs: openOutputs,
    });
    expect(result.balances.map((m) => m.get(UNIT_KEY) ?? 0n)).toEqual([5n, 5n, 2n, 0n, 0n]);
  });

  it('sends unallocated runes to the first non-OP_RETURN output without a pointer or runestone', () => {
    const outputs = [runestoneOut, { script: userScript }, { script: treasuryScript }];
    const result = allocateRunes({
      inputBalances: new Map([[UNIT_KEY, 50n]]),
      runestone: null,
      outputs,
    });
    expect(result.balances.map((m) => m.get(UNIT_KEY) ?? 0n)).toEqual([0n, 50n, 0n]);
  });

  it('burns runes an edict or the pointer sends to an OP_RETURN output', () => {
    const stone: RuneArtifact = {
      runestone: { edicts: [{ id: UNIT, amount: 10n, output: 3 }], pointer: 4 },
    };
    const result = allocateRunes({
      inputBalances: new Map([[UNIT_KEY, 30n]]),
      runestone: stone,
      outputs: openOutputs,
    });
    expect(result.burned.get(UNIT_KEY)).toBe(30n);
    expect(result.balances.every((m) => m.size === 0)).toBe(true);
  });

  it('burns everything when there is no non-OP_RETURN output', () => {
    const result = allocateRunes({
      inputBalances: new Map([[UNIT_KEY, 30n]]),
      runestone: null,
      outputs: [runestoneOut],
    });
    expect(result.burned.get(UNIT_KEY)).toBe(30n);
  });

  it('burns all input runes of a cenotaph, edicts ignored', () => {
    const cenotaph = decodeRunestone(outputsWith(hex.decode('6a5d021e01')));
    const result = allocateRunes({
      inputBalances: new Map([
        [UNIT_KEY, 30n],
        ['2:1', 4n],
      ]),
      runestone: cenotaph,
      outputs: outputsWith(hex.decode('6a5d021e01')),
    });
    expect(result.burned).toEqual(
      new Map([
        [UNIT_KEY, 30n],
        ['2:1', 4n],
      ]),
    );
    expect(result.balances.every((m) => m.size === 0)).toBe(true);
  });

  it('ignores edicts for runes the inputs do not hold', () => {
    const stone: RuneArtifact = {
      runestone: { edicts: [{ id: { block: 9n, tx: 9 }, amount: 5n, output: 1 }] },
    };
    const result = allocateRunes({
      inputBalances: new Map([[UNIT_KEY, 8n]]),
      runestone: stone,
      outputs: openOutputs,
    });
    expect(result.balances.map((m) => m.get(UNIT_KEY) ?? 0n)).toEqual([8n, 0n, 0n, 0n, 0n]);
    expect(result.balances.some((m) => m.has('9:9'))).toBe(false);
  });

  it('allocates the premine of an etching to its edict 0:0 and the pointer', () => {
    const script = encodeRunestone({
      edicts: [{ id: { block: 0n, tx: 0 }, amount: 1000n, output: 1 }],
      pointer: 2,
      etching: { rune: 'UNITUNITUNIT', divisibility: 2, premine: 1_000_000n },
    });
    const outputs = [{ script }, { script: userScript }, { script: treasuryScript }];
    const result = allocateRunes({
      inputBalances: new Map(),
      runestone: decodeRunestone(outputs),
      outputs,
      etchedId: UNIT,
    });
    expect(result.balances.map((m) => m.get(UNIT_KEY) ?? 0n)).toEqual([0n, 1000n, 999_000n]);
  });

  it('conserves runes: outputs plus burned always equal the inputs', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 1n << 80n }),
        fc.array(
          fc.record({
            amount: fc.bigInt({ min: 0n, max: 1n << 80n }),
            output: fc.integer({ min: 0, max: openOutputs.length }),
          }),
          { maxLength: 6 },
        ),
        fc.option(fc.integer({ min: 0, max: openOutputs.length - 1 }), { nil: undefined }),
        (balance, edicts, pointer) => {
          const stone: Runestone = { edicts: edicts.map((e) => ({ id: UNIT, ...e })) };
          if (pointer !== undefined) stone.pointer = pointer;
          const result = allocateRunes({
            inputBalances: new Map([[UNIT_KEY, balance]]),
            runestone: { runestone: stone },
            outputs: openOutputs,
          });
          const total =
            result.balances.reduce((sum, m) => sum + (m.get(UNIT_KEY) ?? 0n), 0n) +
            (result.burned.get(UNIT_KEY) ?? 0n);
          expect(total).toBe(balance);
        },
      ),
    );
  });
});
