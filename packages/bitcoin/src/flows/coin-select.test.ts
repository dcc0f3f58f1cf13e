import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { selectCoins, type PaymentUtxo } from './coin-select';
import { paymentUtxo } from './test-fixtures';
import { changeOutputWeight, feeFor, inputWeight, weightToVsize } from './vsize';

const base = { feeRate: 2, baseWeight: 600, changeScriptType: 'p2wpkh' as const };
const oneInputFee = (withChange: boolean) =>
  feeFor(
    weightToVsize(600 + inputWeight('p2wpkh') + (withChange ? changeOutputWeight('p2wpkh') : 0)),
    2,
  );

describe('selectCoins', () => {
  it('takes the largest UTXO first and returns change above the dust limit', () => {
    const big = paymentUtxo(100_000n);
    const result = selectCoins({ ...base, utxos: [paymentUtxo(5_000n), big], target: 50_000n });
    expect(result).toMatchObject({ ok: true, inputs: [big], retries: 0 });
    if (!result.ok) return;
    expect(result.fee).toBe(oneInputFee(true));
    expect(result.change).toBe(100_000n - 50_000n - result.fee);
  });

  it('retries with a target raised by the dust limit so a further UTXO makes the change spendable', () => {
    const first = paymentUtxo(50_000n + oneInputFee(true) + 100n); // change would be 100 sats
    const second = paymentUtxo(20_000n);
    const result = selectCoins({ ...base, utxos: [first, second], target: 50_000n });
    expect(result).toMatchObject({ ok: true, inputs: [first, second], retries: 1 });
    if (result.ok) expect(result.change).toBeGreaterThanOrEqual(546n);
  });

  it('drops dust change to the fee when no retry can help', () => {
    const only = paymentUtxo(50_000n + oneInputFee(true) + 100n);
    const result = selectCoins({ ...base, utxos: [only], target: 50_000n });
    expect(result).toMatchObject({ ok: true, inputs: [only], change: 0n });
    if (result.ok) expect(result.fee).toBe(only.value - 50_000n);
  });

  it('keeps the first selection without change when the further UTXOs cannot fix the dust', () => {
    // Each extra UTXO is worth less than its own fee, so change never grows past dust.
    const first = paymentUtxo(50_000n + oneInputFee(true) + 100n);
    const crumbs = Array.from({ length: 10 }, () => paymentUtxo(60n));
    const result = selectCoins({ ...base, utxos: [first, ...crumbs], target: 50_000n });
    expect(result).toMatchObject({ ok: true, inputs: [first], change: 0n });
  });

  it('retries no more than the retry limit allows', () => {
    const first = paymentUtxo(50_000n + oneInputFee(true) + 100n);
    const second = paymentUtxo(20_000n);
    const result = selectCoins({
      ...base,
      utxos: [first, second],
      target: 50_000n,
      maxRetries: 0,
    });
    expect(result).toMatchObject({ ok: true, inputs: [first], change: 0n, retries: 0 });
  });

  it('reports insufficient funds with what is needed and available', () => {
    const result = selectCoins({ ...base, utxos: [paymentUtxo(10_000n)], target: 50_000n });
    expect(result).toEqual({
      ok: false,
      error: 'insufficient_funds',
      needed: 50_000n + oneInputFee(false),
      available: 10_000n,
    });
  });

  it("refuses a UTXO whose script is not p2sh, p2wpkh or p2tr with SPEC §8's message", () => {
    const bare: PaymentUtxo = { ...paymentUtxo(10_000n), script: new Uint8Array([0x51]) };
    expect(selectCoins({ ...base, utxos: [bare], target: 1n })).toMatchObject({
      ok: false,
      error: 'unexpected_script_type',
      message: 'Unexpected script type',
    });
  });

  it('needs no input when the fixed inputs already pay for the outputs and fee', () => {
    const result = selectCoins({ ...base, utxos: [paymentUtxo(9_000n)], target: -20_000n });
    expect(result).toMatchObject({ ok: true, inputs: [] });
  });

  it('never spends less than target plus fee and never leaves dust change (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 1n, max: 2_000_000n }), { minLength: 1, maxLength: 12 }),
        fc.bigInt({ min: 1n, max: 3_000_000n }),
        fc.integer({ min: 1, max: 50 }),
        (values, target, feeRate) => {
          const utxos = values.map((v) => paymentUtxo(v));
          const result = selectCoins({ ...base, feeRate, utxos, target });
          if (!result.ok) {
            expect(result.error).toBe('insufficient_funds');
            return;
          }
          const spent = result.inputs.reduce((s, u) => s + u.value, 0n);
          expect(spent).toBe(target + result.fee + result.change);
          expect(result.fee).toBeGreaterThanOrEqual(feeFor(result.vsize, feeRate));
          expect(result.change === 0n || result.change >= 546n).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
