import { describe, expect, it } from 'vitest';
import type { VaultHistoryRecordDto } from './api';
import { ACTION_COLOURS, ACTION_LABELS, amountUnitOf, deriveHistoryRows } from './history';
import { sortRows } from './table';

function record(
  partial: Partial<VaultHistoryRecordDto> & Pick<VaultHistoryRecordDto, 'timestamp' | 'action'>,
): VaultHistoryRecordDto {
  return {
    btc_amt: 0,
    unit_amt: 0,
    vault_amount: 0,
    amount_borrowed: 0,
    oracle_price: 0,
    transaction_id: `tx-${partial.timestamp}`,
    utxo: `tx-${partial.timestamp}:0`,
    utxo_script: '',
    liquidation_hash: null,
    liquidation_threshold: null,
    vault_id: 'vault',
    confirmed: true,
    ...partial,
  };
}

describe('action codes', () => {
  it("label every code as the spec does, and the settlement at the term and the owner's exit in plain words", () => {
    expect(ACTION_LABELS).toEqual({
      o: 'Open Vault',
      b: 'Borrow UNIT',
      d: 'Deposit BTC',
      r: 'Repay UNIT',
      w: 'Withdraw BTC',
      l: 'Vault Liquidation',
      x: 'Liquidation Claim',
      s: 'Settled at Term',
      e: 'Exited by Owner',
    });
  });
  it('colour o, r, d, x green and the others red', () => {
    const green = Object.entries(ACTION_COLOURS)
      .filter(([, c]) => c === 'green')
      .map(([code]) => code)
      .sort();
    expect(green).toEqual(['d', 'o', 'r', 'x']);
  });
  it("uses BTC for deposit, withdraw and the owner's exit, UNIT otherwise", () => {
    expect(amountUnitOf('d')).toBe('BTC');
    expect(amountUnitOf('w')).toBe('BTC');
    expect(amountUnitOf('e')).toBe('BTC');
    expect(amountUnitOf('o')).toBe('UNIT');
    expect(amountUnitOf('b')).toBe('UNIT');
    expect(amountUnitOf('s')).toBe('UNIT');
  });
});

describe('deriveHistoryRows', () => {
  // open 1 BTC / 50,000 UNIT, then borrow 10,000 UNIT, then deposit 0.5 BTC (given out of order)
  const records = [
    record({
      timestamp: 300,
      action: 'd',
      btc_amt: 50_000_000,
      vault_amount: 150_000_000,
      amount_borrowed: 6_000_000,
    }),
    record({
      timestamp: 100,
      action: 'o',
      btc_amt: 100_000_000,
      unit_amt: 5_000_000,
      vault_amount: 100_000_000,
      amount_borrowed: 5_000_000,
    }),
    record({
      timestamp: 200,
      action: 'b',
      unit_amt: 1_000_000,
      vault_amount: 100_000_000,
      amount_borrowed: 6_000_000,
      confirmed: false,
    }),
  ];
  const prices: Record<number, number> = { 100: 100_000, 200: 120_000 };

  it('returns rows newest first with health before and after from the running state', () => {
    const rows = deriveHistoryRows(records, (t) => prices[t], 90_000);
    expect(rows.map((r) => r.type)).toEqual(['d', 'b', 'o']);
    const [deposit, borrow, open] = rows;
    expect(open).toMatchObject({
      typeLabel: 'Open Vault',
      amount: 5_000_000n,
      amountUnit: 'UNIT',
      healthFactorBefore: Infinity,
      healthFactorAfter: 200,
      bitcoinPrice: 100_000,
      btcInVault: 100_000_000n,
      unitInVault: 5_000_000n,
    });
    expect(open!.healthStatusBefore).toEqual({ text: 'N/A', colour: 'grey' });
    expect(open!.healthStatusAfter).toEqual({ text: 'Healthy', colour: 'green' });
    // 1 BTC at $120,000: 50,000 UNIT -> 240%, 60,000 UNIT -> 200%
    expect(borrow).toMatchObject({
      healthFactorBefore: 240,
      healthFactorAfter: 200,
      status: 'In Progress',
    });
    // no price at 300: the current price ($90,000) is used; 1 BTC -> 150%, 1.5 BTC -> 225%
    expect(deposit).toMatchObject({
      amount: 50_000_000n,
      amountUnit: 'BTC',
      bitcoinPrice: 90_000,
      healthFactorBefore: 150,
      healthFactorAfter: 225,
      status: 'Completed',
    });
    expect(deposit!.healthStatusBefore).toEqual({ text: 'Risky', colour: 'red' });
  });
  it('sorts BTC and UNIT amounts together by their USD value at each record price', () => {
    // 0.5 BTC at $90,000 is $45,000: more than the 10,000 UNIT borrow, less than the 50,000 UNIT open
    const rows = deriveHistoryRows(records, (t) => prices[t], 90_000);
    expect(rows.map((r) => [r.type, r.amountUsdCents])).toEqual([
      ['d', 4_500_000n],
      ['b', 1_000_000n],
      ['o', 5_000_000n],
    ]);
    expect(sortRows(rows, 'amount', 'desc').map((r) => r.type)).toEqual(['o', 'd', 'b']);
    // In raw units the 50,000,000-sat deposit would have sorted above the 5,000,000-cent open.
    expect(rows[0]!.amount > rows[2]!.amount).toBe(true);
  });
  it('starts a page from the state before it, and orders equal timestamps newest first', () => {
    // The newest page of a longer history: the borrow and the deposit, with the state after the
    // open (the next older record) given; same second for both, listed newest first.
    const page = [
      { ...records[0]!, timestamp: 200 },
      { ...records[2]!, timestamp: 200 },
    ];
    const rows = deriveHistoryRows(page, () => 120_000, 120_000, {
      vault_amount: 100_000_000,
      amount_borrowed: 5_000_000,
    });
    expect(rows.map((r) => r.type)).toEqual(['d', 'b']);
    const [deposit, borrow] = rows;
    expect(borrow).toMatchObject({ healthFactorBefore: 240, healthFactorAfter: 200 });
    expect(deposit).toMatchObject({ healthFactorBefore: 200, healthFactorAfter: 300 });
  });
  it('replaces an invalid historical price by the current price', () => {
    const rows = deriveHistoryRows([records[1]!], () => Number.NaN, 100_000);
    expect(rows[0]!.bitcoinPrice).toBe(100_000);
    expect(rows[0]!.healthFactorAfter).toBe(200);
  });
});

describe('history CSV cells', () => {
  it('keeps a cell that a spreadsheet would run as a formula as text, and quotes per RFC 4180', async () => {
    const { csvCell, csvLine } = await import('./history-csv');
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-1')).toBe("'-1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    expect(csvCell('0.5 BTC')).toBe('0.5 BTC');
    expect(csvLine(['a', 'b,c'])).toBe('a,"b,c"\r\n');
  });
});

describe("a liquidation's transaction id", () => {
  // The withdraw makes the vault's last output; the liquidation has no transaction of its own and
  // its record points at that output, which the claim then spends.
  const withdraw = record({
    timestamp: 100,
    action: 'w',
    btc_amt: 1_000_000,
    vault_amount: 9_000_000,
    amount_borrowed: 500_000,
    transaction_id: 'a'.repeat(64),
  });
  const liquidation = record({
    timestamp: 200,
    action: 'l',
    vault_amount: 9_000_000,
    amount_borrowed: 500_000,
    transaction_id: 'a'.repeat(64),
  });
  const claim = record({ timestamp: 300, action: 'x', transaction_id: 'c'.repeat(64) });

  it('is labelled as the vault output being claimed, in the row and in the CSV', async () => {
    const { historyCsvCells, HISTORY_CSV_HEADER } = await import('./history-csv');
    const rows = deriveHistoryRows([claim, liquidation, withdraw], () => 95_000);
    expect(rows.map((r) => [r.type, r.transactionId, r.txidRole])).toEqual([
      ['x', 'c'.repeat(64), 'action'],
      ['l', 'a'.repeat(64), 'claimed-output'],
      ['w', 'a'.repeat(64), 'action'],
    ]);
    const cells = (i: number) =>
      Object.fromEntries(
        historyCsvCells(rows[i]!, 'https://x/tx').map((cell, c) => [HISTORY_CSV_HEADER[c], cell]),
      );
    expect(cells(1)).toMatchObject({
      Action: 'Vault Liquidation',
      'Transaction ID': 'a'.repeat(64),
      'Transaction ID refers to': 'The vault output being claimed',
    });
    expect(cells(2)['Transaction ID refers to']).toBe('This action');
    expect(cells(0)['Transaction ID refers to']).toBe('This action');
    expect(HISTORY_CSV_HEADER).toHaveLength(historyCsvCells(rows[0]!, '').length);
  });
});
