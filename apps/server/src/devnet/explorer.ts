// The devnet's block explorer: two small server-rendered pages (a transaction, an address) that the
// app links to where a real network would link to mempool.space. Every value is escaped.
import type { AddressStatsDto, UnitOutputDto } from '@unit/protocol';
import type { ChainOutput } from '../chain/port';
import type { DevnetTx, DevnetTxOutput } from './store';
import { escapeHtml } from '../html';

const btc = (sats: number): string => {
  const whole = Math.trunc(sats / 100_000_000);
  const frac = String(sats % 100_000_000).padStart(8, '0');
  return `${whole}.${frac} BTC`;
};
/** UNIT has divisibility 2: amounts are hundredths. */
const unit = (hundredths: number): string =>
  `${Math.trunc(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')} UNIT`;

const txLink = (base: string, txid: string): string =>
  `<a href="${escapeHtml(`${base}/tx/${encodeURIComponent(txid)}`)}">${escapeHtml(txid)}</a>`;
const addressLink = (base: string, address: string | null): string =>
  address === null
    ? '<span class="muted">no address</span>'
    : `<a href="${escapeHtml(`${base}/address/${encodeURIComponent(address)}`)}">${escapeHtml(address)}</a>`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · UNIT devnet explorer</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:64rem;padding:0 1rem;color:#1a1a1a}
table{border-collapse:collapse;width:100%;margin:1rem 0}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;
word-break:break-all;font-size:.9rem}.muted{color:#777}</style></head>
<body><h1>${escapeHtml(title)}</h1>
${body}
</body></html>`;
}

function outputRow(base: string, o: DevnetTxOutput): string {
  const spent = o.spent_txid === null ? 'unspent' : `spent by ${txLink(base, o.spent_txid)}`;
  return `<tr><td>${o.vout}</td><td>${addressLink(base, o.address)}</td><td>${btc(o.value)}</td><td>${
    o.unit_amount > 0 ? unit(o.unit_amount) : ''
  }</td><td>${spent}</td></tr>`;
}

/** A txid that BIP-125 replacement took out of the mempool: where to read the transaction now. */
export function renderReplacedPage(base: string, txid: string, replacedBy: string): string {
  return page(
    'Transaction replaced',
    `<p><code>${escapeHtml(txid)}</code> left the mempool: a transaction paying a higher fee
replaced it (BIP-125) before it was mined.</p><p>Replaced by ${txLink(base, replacedBy)}</p>`,
  );
}

export function renderTxPage(base: string, tx: DevnetTx): string {
  const status = tx.status.confirmed
    ? `Confirmed in block ${tx.status.block_height} (<code>${escapeHtml(tx.status.block_hash ?? '')}</code>), ${
        tx.confirmations
      } confirmation${tx.confirmations === 1 ? '' : 's'}`
    : 'Unconfirmed: waiting in the mempool';
  const inputs = tx.inputs
    .map((input, i) =>
      input.is_coinbase
        ? `<tr><td>${i}</td><td colspan="4">coinbase (new coins)</td></tr>`
        : `<tr><td>${i}</td><td>${txLink(base, input.txid)}:${input.vout}</td><td>${addressLink(
            base,
            input.prevout?.address ?? null,
          )}</td><td>${input.prevout ? btc(input.prevout.value) : ''}</td><td>${
            input.prevout && input.prevout.unit_amount > 0 ? unit(input.prevout.unit_amount) : ''
          }</td></tr>`,
    )
    .join('\n');
  const unitIn = tx.inputs.reduce((sum, i) => sum + (i.prevout?.unit_amount ?? 0), 0);
  const unitOut = tx.outputs.reduce((sum, o) => sum + o.unit_amount, 0);
  const runes =
    unitIn === 0 && unitOut === 0
      ? '<p>Runes moved: none</p>'
      : `<p>Runes moved: ${unit(unitOut)} to the outputs of ${unit(unitIn)} in${
          tx.unit_burned > 0 ? `, ${unit(tx.unit_burned)} burned` : ''
        }</p>`;
  return page(
    'Transaction',
    `<p><code>${escapeHtml(tx.txid)}</code></p>
<p>${status}</p>
<p>Fee ${tx.fee} sats · ${tx.vsize} vB</p>
${runes}
<h2>Inputs</h2><table><tr><th>#</th><th>Previous output</th><th>Address</th><th>Amount</th><th>UNIT</th></tr>
${inputs}</table>
<h2>Outputs</h2><table><tr><th>#</th><th>Address</th><th>Amount</th><th>UNIT</th><th>State</th></tr>
${tx.outputs.map((o) => outputRow(base, o)).join('\n')}</table>`,
  );
}

export function renderAddressPage(
  base: string,
  address: string,
  stats: AddressStatsDto,
  txs: readonly { txid: string; confirmed: boolean; block_height?: number }[],
  utxos: readonly ChainOutput[],
  unitOutputs: readonly UnitOutputDto[],
): string {
  const confirmed = stats.chain_stats.funded_txo_sum - stats.chain_stats.spent_txo_sum;
  const pending = stats.mempool_stats.funded_txo_sum - stats.mempool_stats.spent_txo_sum;
  const unitBalance = unitOutputs
    .filter((o) => !o.spent)
    .reduce((sum, o) => sum + o.unit_amount, 0);
  const txRows = txs
    .map(
      (t) =>
        `<tr><td>${txLink(base, t.txid)}</td><td>${t.confirmed ? `block ${t.block_height}` : 'mempool'}</td></tr>`,
    )
    .join('\n');
  const utxoRows = utxos
    .map(
      (o) =>
        `<tr><td>${txLink(base, o.txid)}:${o.vout}</td><td>${btc(o.value)}</td><td>${
          o.unit_amount > 0 ? unit(o.unit_amount) : ''
        }</td><td>${o.status.confirmed ? `block ${o.status.block_height}` : 'mempool'}</td></tr>`,
    )
    .join('\n');
  return page(
    'Address',
    `<p><code>${escapeHtml(address)}</code></p>
<p>Balance ${btc(confirmed)} confirmed${pending !== 0 ? `, ${pending > 0 ? '+' : '-'}${btc(Math.abs(pending))} pending` : ''}</p>
<p>UNIT ${unit(unitBalance)}</p>
<h2>Transactions</h2><table><tr><th>Transaction</th><th>Where</th></tr>
${txRows}</table>
<h2>Unspent outputs</h2><table><tr><th>Output</th><th>Amount</th><th>UNIT</th><th>Where</th></tr>
${utxoRows}</table>`,
  );
}
