// The output and transaction views: one transaction as the app reads it (with its prevouts and
// the UNIT it burnt) and as esplora answers it, one output, and who spent it.
import { hex } from '@scure/base';
import { OutScript } from '@scure/btc-signer';
import type { ChainOutput, TxStatus } from '../chain/port';
import type { EsploraOutspend, EsploraPrevout, EsploraTx } from '../chain/esplora-types';
import { innerScriptsAsm, scriptAsm } from '../chain/script-asm';
import { ZERO_HASH } from './block';
import type { BlockStore } from './block-store';
import { isOpReturn, parseStoredTx } from './policy';
import {
  big,
  num,
  type Db,
  type DevnetTx,
  type DevnetTxInput,
  type DevnetTxOutput,
  type OutputRow,
} from './store';

export class TxViews {
  constructor(
    private readonly db: Db,
    private readonly blocks: BlockStore,
  ) {}

  async txHex(txid: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('devnet_txs')
      .select('hex')
      .where('txid', '=', txid)
      .executeTakeFirst();
    return row?.hex ?? null;
  }

  private toTxOutput(row: OutputRow): DevnetTxOutput {
    return {
      vout: row.vout,
      value: num(row.value),
      script_hex: row.script_hex,
      address: row.address,
      unit_amount: num(row.unit_amount),
      spent_txid: row.spent_txid,
    };
  }

  async getTx(txid: string): Promise<DevnetTx | null> {
    const row = await this.db
      .selectFrom('devnet_txs')
      .selectAll()
      .where('txid', '=', txid)
      .executeTakeFirst();
    if (!row) return null;
    const tx = parseStoredTx(row.hex);
    const inputs: DevnetTxInput[] = [];
    let unitIn = 0n;
    for (let i = 0; i < tx.inputsLength; i++) {
      const input = tx.getInput(i);
      const prevTxid = hex.encode(input.txid!);
      const coinbase = input.index === 0xffffffff && prevTxid === ZERO_HASH;
      const prev = coinbase
        ? undefined
        : await this.db
            .selectFrom('devnet_outputs')
            .selectAll()
            .where('txid', '=', prevTxid)
            .where('vout', '=', input.index!)
            .executeTakeFirst();
      if (prev) unitIn += big(prev.unit_amount);
      inputs.push({
        txid: prevTxid,
        vout: input.index!,
        is_coinbase: coinbase,
        prevout: prev ? this.toTxOutput(prev) : null,
      });
    }
    const outputs = (
      await this.db
        .selectFrom('devnet_outputs')
        .selectAll()
        .where('txid', '=', txid)
        .orderBy('vout')
        .execute()
    ).map((o) => this.toTxOutput(o));
    const unitOut = outputs.reduce((sum, o) => sum + BigInt(o.unit_amount), 0n);
    const height = row.block_height === null ? null : num(row.block_height);
    const tip = await this.blocks.tip();
    return {
      txid,
      hex: row.hex,
      fee: num(row.fee),
      vsize: num(row.vsize),
      weight: num(row.weight),
      status: await this.blocks.statusAt(height),
      confirmations: height === null ? 0 : tip.height - height + 1,
      inputs,
      outputs,
      unit_burned: Number(unitIn > unitOut ? unitIn - unitOut : 0n),
    };
  }

  /** The transaction as esplora's GET /tx/:txid answers it. */
  async esploraTx(txid: string): Promise<EsploraTx | null> {
    const dtx = await this.getTx(txid);
    if (!dtx) return null;
    const tx = parseStoredTx(dtx.hex);
    const prevout = (o: DevnetTxOutput): EsploraPrevout => ({
      scriptpubkey: o.script_hex,
      scriptpubkey_asm: scriptAsm(hex.decode(o.script_hex)),
      scriptpubkey_type: scriptType(hex.decode(o.script_hex)),
      ...(o.address !== null ? { scriptpubkey_address: o.address } : {}),
      value: o.value,
    });
    return {
      txid,
      version: tx.version,
      locktime: tx.lockTime,
      vin: dtx.inputs.map((input, i) => {
        const raw = tx.getInput(i);
        const scriptSig = raw.finalScriptSig ?? new Uint8Array();
        const witness = raw.finalScriptWitness ?? [];
        return {
          txid: input.txid,
          vout: input.vout,
          prevout: input.prevout ? prevout(input.prevout) : null,
          scriptsig: hex.encode(scriptSig),
          scriptsig_asm: scriptAsm(scriptSig),
          witness: witness.map((w) => hex.encode(w)),
          is_coinbase: input.is_coinbase,
          sequence: raw.sequence ?? 0xffffffff,
          ...(input.prevout
            ? innerScriptsAsm(hex.decode(input.prevout.script_hex), scriptSig, witness)
            : {}),
        };
      }),
      vout: dtx.outputs.map(prevout),
      size: hex.decode(dtx.hex).length,
      weight: dtx.weight,
      fee: dtx.fee,
      status: dtx.status,
    };
  }

  async output(txid: string, vout: number): Promise<ChainOutput | null> {
    const row = await this.db
      .selectFrom('devnet_outputs')
      .selectAll()
      .where('txid', '=', txid)
      .where('vout', '=', vout)
      .executeTakeFirst();
    if (!row) return null;
    return {
      txid: row.txid,
      vout: row.vout,
      value: num(row.value),
      script_hex: row.script_hex,
      address: row.address,
      unit_amount: num(row.unit_amount),
      spent: row.spent_txid !== null,
      status: (await this.blocks.txStatus(row.txid)) ?? { confirmed: false },
    };
  }

  /** GET /tx/:txid/outspends: the spending status of every output, in order; null when unknown. */
  async outspends(txid: string): Promise<EsploraOutspend[] | null> {
    const rows = await this.db
      .selectFrom('devnet_outputs')
      .select('vout')
      .where('txid', '=', txid)
      .orderBy('vout')
      .execute();
    if (rows.length === 0) return null;
    const all: EsploraOutspend[] = [];
    for (const row of rows) all.push((await this.outspend(txid, row.vout))!);
    return all;
  }

  /** Who spent an output, as esplora's GET /tx/:txid/outspend/:vout answers it. */
  async outspend(
    txid: string,
    vout: number,
  ): Promise<{ spent: boolean; txid?: string; vin?: number; status?: TxStatus } | null> {
    const row = await this.db
      .selectFrom('devnet_outputs')
      .select(['spent_txid', 'spent_vin'])
      .where('txid', '=', txid)
      .where('vout', '=', vout)
      .executeTakeFirst();
    if (!row) return null;
    if (row.spent_txid === null) return { spent: false };
    const status = await this.blocks.txStatus(row.spent_txid);
    return {
      spent: true,
      txid: row.spent_txid,
      vin: row.spent_vin ?? 0,
      status: status ?? { confirmed: false },
    };
  }
}

function scriptType(script: Uint8Array): string {
  if (isOpReturn(script)) return 'op_return';
  try {
    const type = OutScript.decode(script).type;
    const names: Record<string, string> = {
      wpkh: 'v0_p2wpkh',
      wsh: 'v0_p2wsh',
      tr: 'v1_p2tr',
      sh: 'p2sh',
      pkh: 'p2pkh',
      pk: 'p2pk',
    };
    return names[type] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
