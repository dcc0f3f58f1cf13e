// GET /api/vaults/:id/history.csv against the real app and database: the whole history, one line a
// record, figures that match the records, and the same text whatever the batch size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { appendVaultHistory, insertVault } from '../src/store/vaults';
import { historyCsvLines } from '../src/http/history-csv';
import { startTestApp, type RunningApp } from './support';

const RECORDS = 1_000;
const vaultId = 'c5'.repeat(32);
const BASE = 1_760_000_000;
const PRICE_USD = 95_000;

/** Record i: three records share each second, so ties straddle the 500-row batches. */
const at = (i: number) => BASE + Math.floor(i / 3) * 60;
const btcAfter = (i: number) => 10_000_000 + i * 1_000; // sats
const debtAfter = (i: number) => 100_000 + i * 100; // UNIT hundredths

/** The ratio in whole percent, rounded half up, from integers (not the code under test). */
function ratio(btcSats: number, debtCents: number, usd: number): string {
  const num = 2n * BigInt(btcSats) * BigInt(usd) * 100n;
  const den = 1_000_000n * BigInt(debtCents);
  return String((num + den) / (2n * den));
}

let server: RunningApp;

beforeAll(async () => {
  server = await startTestApp();
  const db = server.store.db;
  await insertVault(db, {
    vault_id: vaultId,
    vault_tag: 'c5c5c5c5',
    vault_pubkey: 'ab'.repeat(32),
    // User input: it must never reach a cell unescaped, should it ever become a column.
    name: '=HYPERLINK("http://x")',
    creation_account: 'tb1qowner000000000000000000000000000000',
    runes_account: 'tb1powner000000000000000000000000000000',
    btc_locked: btcAfter(RECORDS - 1),
    unit_borrowed: debtAfter(RECORDS - 1),
    vault_txid: 'aa'.repeat(32),
    vault_vout: 0,
    threshold_cents: 1,
    stamp: BASE,
    status: 'active',
    created_at: BASE,
  });
  for (let i = 0; i < RECORDS; i++) {
    const txid = i.toString(16).padStart(64, '0');
    await appendVaultHistory(db, {
      vault_id: vaultId,
      timestamp: at(i),
      action: i === 0 ? 'o' : i % 2 === 0 ? 'd' : 'b',
      btc_amt: i === 0 ? btcAfter(0) : 1_000,
      unit_amt: i === 0 ? debtAfter(0) : 100,
      vault_amount: btcAfter(i),
      amount_borrowed: debtAfter(i),
      oracle_price: PRICE_USD + i,
      transaction_id: txid,
      utxo: `${txid}:0`,
      utxo_script: '',
      liquidation_hash: null,
      liquidation_threshold: null,
      confirmed: 1,
    });
  }
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe('GET /api/vaults/:id/history.csv', () => {
  it('downloads the whole history: a header and one line per record, in a CSV parser', async () => {
    const res = await fetch(`${server.url}/api/vaults/${vaultId}/history.csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="vault-c5c5c5c5-history.csv"',
    );
    const text = await res.text();
    expect(text.split('\r\n').filter((line) => line.length > 0)).toHaveLength(RECORDS + 1);

    const rows = parse(text, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(RECORDS);
    expect(rows[0]).toEqual({
      'Date (UTC)': new Date(at(0) * 1000).toISOString().replace('.000Z', 'Z'),
      Action: 'Open Vault',
      'Amount (BTC)': '',
      'Amount (UNIT)': '1000.00',
      'BTC in vault': '0.1',
      'UNIT debt': '1000.00',
      'BTC price (USD)': String(PRICE_USD),
      'Ratio before (%)': '',
      'Ratio after (%)': ratio(btcAfter(0), debtAfter(0), PRICE_USD),
      'Transaction ID': '0'.repeat(64),
      'Explorer URL': `${server.url}/explorer/tx/${'0'.repeat(64)}`,
      'Transaction ID refers to': 'This action',
    });
    // Every record once, oldest first, each "before" the previous record's "after".
    for (const i of [1, 2, 499, 500, 501, 998, 999]) {
      const row = rows[i]!;
      expect(row['Transaction ID']).toBe(i.toString(16).padStart(64, '0'));
      expect(row.Action).toBe(i % 2 === 0 ? 'Deposit BTC' : 'Borrow UNIT');
      // a number per unit's column, so a spreadsheet sums each
      expect([row['Amount (BTC)'], row['Amount (UNIT)']]).toEqual(
        i % 2 === 0 ? ['0.00001', ''] : ['', '1.00'],
      );
      expect(row['UNIT debt']).toBe((debtAfter(i) / 100).toFixed(2));
      expect(row['BTC price (USD)']).toBe(String(PRICE_USD + i));
      expect(row['Ratio before (%)']).toBe(ratio(btcAfter(i - 1), debtAfter(i - 1), PRICE_USD + i));
      expect(row['Ratio after (%)']).toBe(ratio(btcAfter(i), debtAfter(i), PRICE_USD + i));
    }
    expect(new Set(rows.map((r) => r['Transaction ID'])).size).toBe(RECORDS);
    expect(text).not.toContain('HYPERLINK');
  });

  it('writes the same text whatever the batch size (the keyset cursor skips and repeats nothing)', async () => {
    const read = async (batch: number) => {
      let text = '';
      for await (const chunk of historyCsvLines(
        server.store.db,
        vaultId,
        (txid) => txid,
        null,
        batch,
      ))
        text += chunk;
      return text;
    };
    const whole = await read(RECORDS + 1);
    expect(await read(7)).toBe(whole);
    expect(await read(500)).toBe(whole);
  });

  it('answers 404 for an unknown vault', async () => {
    const res = await fetch(`${server.url}/api/vaults/nope/history.csv`);
    expect(res.status).toBe(404);
  });
});
