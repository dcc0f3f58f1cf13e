// ord's JSON API on the devnet (`ord server --index-runes --index-addresses`, asked with
// `Accept: application/json`), so an instance configured with RUNES_API=ord can run against the
// devnet playing the network. Shapes as ordinals/ord src/api.rs serialises them: outpoints as
// `txid:vout`, rune ids as `block:tx`, runes keyed by spaced name, scripts as hex. Like ord, only
// what is in a block is indexed: a mempool output is `indexed: false` with no runes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  decodeRunestone,
  parseSpacedRune,
  spacedRuneName,
  transactionOutputs,
  type Terms,
} from '@unit/bitcoin';
import type { OrdAddressInfo, OrdOutput, OrdRune } from '../chain/ord';
import { UNIT_RUNE_NAME, UNIT_RUNE_SYMBOL, type Devnet } from './devnet';
import { parseStoredTx } from './policy';

const OUTPOINT = /^([0-9a-fA-F]{64}):(\d{1,10})$/;
const UNIT_DIVISIBILITY = 2;

const wantsJson = (req: FastifyRequest): boolean =>
  (req.headers.accept ?? '').toLowerCase().includes('application/json');

const notJson = (reply: FastifyReply) =>
  reply
    .code(406)
    .type('text/plain; charset=utf-8')
    .send('This devnet answers ord routes as JSON only: send Accept: application/json');

/** ord's Decimal display: the amount at its divisibility, trailing zeros dropped. */
function decimalText(amount: number, divisibility: number): string {
  const unit = 10 ** divisibility;
  const whole = Math.floor(amount / unit);
  const fraction = amount % unit;
  if (fraction === 0) return String(whole);
  return `${whole}.${String(fraction).padStart(divisibility, '0').replace(/0+$/, '')}`;
}

const num = (value: bigint | undefined) => (value === undefined ? null : Number(value));

/** ord's `Terms`: amount, cap, and the height and offset windows as [start, end] pairs. */
function ordTerms(terms: Terms) {
  return {
    amount: num(terms.amount),
    cap: num(terms.cap),
    height: [num(terms.height?.start), num(terms.height?.end)],
    offset: [num(terms.offset?.start), num(terms.offset?.end)],
  };
}

export function registerOrdRoutes(scope: FastifyInstance, devnet: Devnet, prefix: string): void {
  const runeKey = (amount: number): NonNullable<OrdOutput['runes']> =>
    amount > 0
      ? { [UNIT_RUNE_NAME]: { amount, divisibility: UNIT_DIVISIBILITY, symbol: UNIT_RUNE_SYMBOL } }
      : {};

  scope.get<{ Params: { address: string } }>(`${prefix}/address/:address`, async (req, reply) => {
    if (!wantsJson(req)) return notJson(reply);
    const { address } = req.params;
    if (devnet.scriptOf(address) === null)
      return reply.code(400).type('text/plain').send('invalid address');
    // ord's address index: outputs of mined transactions not spent in a mined one.
    const rows = (await devnet.addressRows(address)).filter(
      (r) => r.output.status.confirmed && !r.spender?.confirmed,
    );
    const outputs = rows.map((r) => `${r.output.txid}:${r.output.vout}`).sort();
    const unit = rows.reduce((sum, r) => sum + r.output.unit_amount, 0);
    const info: OrdAddressInfo = {
      outputs,
      inscriptions: [],
      sat_balance: rows.reduce((sum, r) => sum + r.output.value, 0),
      runes_balances:
        unit > 0 ? [[UNIT_RUNE_NAME, decimalText(unit, UNIT_DIVISIBILITY), UNIT_RUNE_SYMBOL]] : [],
    };
    return info;
  });

  scope.get<{ Params: { outpoint: string } }>(`${prefix}/output/:outpoint`, async (req, reply) => {
    if (!wantsJson(req)) return notJson(reply);
    const match = OUTPOINT.exec(req.params.outpoint);
    if (!match) return reply.code(400).type('text/plain').send('invalid outpoint');
    const txid = match[1]!.toLowerCase();
    const vout = Number(match[2]);
    const output = await devnet.output(txid, vout);
    if (!output) return reply.code(404).type('text/plain').send(`output ${txid}:${vout} not found`);
    const tip = await devnet.tip();
    const spender = await devnet.outspend(txid, vout);
    const indexed = output.status.confirmed;
    // ord drops an output's rune balance once a block spends it.
    const spentInBlock = spender?.status?.confirmed === true;
    const answer: OrdOutput = {
      address: output.address,
      confirmations: output.status.confirmed
        ? tip.height - (output.status.block_height ?? tip.height) + 1
        : 0,
      indexed,
      inscriptions: [],
      outpoint: `${txid}:${vout}`,
      runes: indexed && !spentInBlock ? runeKey(output.unit_amount) : {},
      sat_ranges: null,
      script_pubkey: output.script_hex,
      spent: output.spent,
      transaction: txid,
      value: output.value,
    };
    return answer;
  });

  /** Every etching in the devnet's blocks, by plain name: read once per block, as ord indexes. */
  const etchings = new Map<string, { block: number; tx: number; txid: string }>();
  let indexedHeight = 0;
  const indexEtchings = async () => {
    const tip = await devnet.tip();
    for (let height = indexedHeight + 1; height <= tip.height; height++) {
      const hash = await devnet.blockHashAt(height);
      const txids = hash ? ((await devnet.blockTxids(hash)) ?? []) : [];
      for (const [tx, txid] of txids.entries()) {
        const raw = await devnet.txHex(txid);
        const artifact = raw ? decodeRunestone(transactionOutputs(parseStoredTx(raw))) : null;
        const rune = artifact && 'runestone' in artifact ? artifact.runestone.etching?.rune : null;
        if (rune && !etchings.has(rune)) etchings.set(rune, { block: height, tx, txid });
      }
      indexedHeight = height;
    }
  };

  /** ord's `/rune/<query>`: a spaced or plain name, or an id `block:tx`; null when unknown. */
  const findEtching = async (query: string) => {
    await indexEtchings();
    const id = /^(\d{1,10}):(\d{1,10})$/.exec(query);
    if (id) {
      const [, block, tx] = id.map(Number) as [number, number, number];
      return [...etchings.values()].find((e) => e.block === block && e.tx === tx) ?? null;
    }
    try {
      return etchings.get(parseSpacedRune(query).rune) ?? null;
    } catch {
      return null;
    }
  };

  scope.get<{ Params: { rune: string } }>(`${prefix}/rune/:rune`, async (req, reply) => {
    if (!wantsJson(req)) return notJson(reply);
    const found = await findEtching(req.params.rune);
    if (!found) return reply.code(404).send();
    const raw = await devnet.txHex(found.txid);
    const artifact = raw ? decodeRunestone(transactionOutputs(parseStoredTx(raw))) : null;
    const etching = artifact && 'runestone' in artifact ? artifact.runestone.etching : undefined;
    if (!etching?.rune) return reply.code(404).send();
    const status = await devnet.txStatus(found.txid);
    const runeId = `${found.block}:${found.tx}`;
    const answer: OrdRune = {
      entry: {
        block: found.block,
        burned: 0,
        divisibility: etching.divisibility ?? 0,
        etching: found.txid,
        mints: 0,
        // ord numbers runes in etching order.
        number: [...etchings.keys()].indexOf(etching.rune),
        premine: Number(etching.premine ?? 0n),
        spaced_rune: spacedRuneName(etching.rune, etching.spacers ?? 0),
        symbol: etching.symbol ?? null,
        terms: etching.terms ? ordTerms(etching.terms) : null,
        timestamp: status?.confirmed ? (status.block_time ?? 0) : 0,
        turbo: etching.turbo ?? false,
      },
      id: runeId,
      mintable: false,
      parent: null,
    };
    return answer;
  });
}
