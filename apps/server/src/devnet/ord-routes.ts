// ord's JSON API on the devnet (`ord server --index-runes --index-addresses`, asked with
// `Accept: application/json`), so an instance configured with RUNES_API=ord can run against the
// devnet playing the network. Shapes as ordinals/ord src/api.rs serialises them: outpoints as
// `txid:vout`, rune ids as `block:tx`, runes keyed by spaced name, scripts as hex. Like ord, only
// what is in a block is indexed: a mempool output is `indexed: false` with no runes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decodeRunestone, parseRuneId, parseSpacedRune, transactionOutputs } from '@unit/bitcoin';
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

  scope.get<{ Params: { rune: string } }>(`${prefix}/rune/:rune`, async (req, reply) => {
    if (!wantsJson(req)) return notJson(reply);
    const query = req.params.rune;
    const plain = parseSpacedRune(UNIT_RUNE_NAME).rune;
    let known = query === devnet.unitRuneId || query === UNIT_RUNE_NAME || query === plain;
    if (!known) {
      try {
        known = parseSpacedRune(query).rune === plain;
      } catch {
        known = false;
      }
    }
    if (!known) return reply.code(404).send();
    const id = parseRuneId(devnet.unitRuneId);
    const etching = await devnet.txidAt(Number(id.block), id.tx);
    const raw = etching ? await devnet.txHex(etching) : null;
    if (!etching || !raw) return reply.code(404).send();
    const artifact = decodeRunestone(transactionOutputs(parseStoredTx(raw)));
    const premine =
      artifact && 'runestone' in artifact ? (artifact.runestone.etching?.premine ?? 0n) : 0n;
    const status = await devnet.txStatus(etching);
    const answer: OrdRune = {
      entry: {
        block: Number(id.block),
        burned: 0,
        divisibility: UNIT_DIVISIBILITY,
        etching,
        mints: 0,
        number: 0,
        premine: Number(premine),
        spaced_rune: UNIT_RUNE_NAME,
        symbol: UNIT_RUNE_SYMBOL,
        terms: null,
        timestamp: status?.confirmed ? (status.block_time ?? 0) : 0,
        turbo: false,
      },
      id: devnet.unitRuneId,
      mintable: false,
      parent: null,
    };
    return answer;
  });
}
