// Test vectors of the runestones the protocol writes (docs/vectors/runestones.json): a vault
// action's one edict and pointer, the treasury move's pointer alone, a split's edicts and an
// etching of UNIT, each as its message and as the OP_RETURN output script.
import { hex } from '@scure/base';
import { encodeRunestone, unitRunestoneScript, type Runestone } from '../../src/index';

/** A runestone in JSON: rune ids as "block:tx", amounts as decimal strings. */
export interface RunestoneJson {
  edicts: { id: string; amount: string; output: number }[];
  pointer?: number;
  etching?: {
    rune?: string;
    divisibility?: number;
    spacers?: number;
    symbol?: string;
    premine?: string;
  };
}

const runeId = (text: string) => {
  const [block, tx] = text.split(':');
  return { block: BigInt(block!), tx: Number(tx) };
};

export const runestoneOfJson = (r: RunestoneJson): Runestone => ({
  edicts: r.edicts.map((e) => ({ id: runeId(e.id), amount: BigInt(e.amount), output: e.output })),
  ...(r.pointer === undefined ? {} : { pointer: r.pointer }),
  ...(r.etching
    ? {
        etching: {
          ...r.etching,
          ...(r.etching.premine === undefined ? {} : { premine: BigInt(r.etching.premine) }),
        } as Runestone['etching'],
      }
    : {}),
});

export const jsonOfRunestone = (r: Runestone): RunestoneJson => ({
  edicts: r.edicts.map((e) => ({
    id: `${e.id.block}:${e.id.tx}`,
    amount: e.amount.toString(),
    output: e.output,
  })),
  ...(r.pointer === undefined ? {} : { pointer: r.pointer }),
  ...(r.etching
    ? {
        etching: {
          ...r.etching,
          ...(r.etching.premine === undefined ? {} : { premine: r.etching.premine.toString() }),
        } as RunestoneJson['etching'],
      }
    : {}),
});

const VAULT_ACTIONS: { name: string; runeId: string; amount: string }[] = [
  {
    name: 'open or borrow of 6,250.00 UNIT (mainnet-sized rune id)',
    runeId: '840000:3',
    amount: '625000',
  },
  { name: 'repay of 0.01 UNIT (devnet rune id)', runeId: '1:0', amount: '1' },
  {
    name: 'borrow of the largest amount a u64 debt holds',
    runeId: '2097151:65535',
    amount: '18446744073709551615',
  },
];

const MESSAGES: { name: string; runestone: RunestoneJson }[] = [
  { name: 'treasury move: every rune to output 0', runestone: { edicts: [], pointer: 0 } },
  {
    name: 'treasury split of 1,000,000.01 UNIT over 4 outputs, the runestone fifth (the remainder to output 0, then an even share to each)',
    runestone: {
      edicts: [
        { id: '840000:3', amount: '1', output: 0 },
        { id: '840000:3', amount: '25000000', output: 5 },
      ],
    },
  },
  {
    name: 'etching of UNIT with its premine split over 8 treasury outputs',
    runestone: {
      edicts: [{ id: '0:0', amount: '1250000000000', output: 9 }],
      etching: {
        rune: 'UNITUNITUNIT',
        spacers: 0b10001000,
        divisibility: 2,
        symbol: '¤',
        premine: '10000000000000',
      },
    },
  },
];

export function runestoneVectors() {
  return {
    about:
      'The runestones the protocol writes (docs/protocol.md, Transactions), as packages/bitcoin encodes them (encodeRunestone): each message and its OP_RETURN OP_13 output script, and back (decodeRunestone). Rune ids are "block:tx"; amounts are in rune units (UNIT hundredths) as decimal strings; `0:0` in an etching\'s edicts is the rune the transaction etches.',
    vaultActions: VAULT_ACTIONS.map((v) => ({
      ...v,
      runestone: { edicts: [{ id: v.runeId, amount: v.amount, output: 1 }], pointer: 2 },
      script: hex.encode(unitRunestoneScript(runeId(v.runeId), BigInt(v.amount))),
    })),
    messages: MESSAGES.map((m) => ({
      ...m,
      script: hex.encode(encodeRunestone(runestoneOfJson(m.runestone))),
    })),
  };
}
