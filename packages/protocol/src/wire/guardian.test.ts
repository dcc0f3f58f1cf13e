// The wire contract's guardian methods: every method's params refuse the hostile shapes the
// guardian must refuse (the cases of the refusals, reserve and socket-limits tests), well-formed
// params and results parse, and a malformed result is refused.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { GUARDIAN_METHODS, type GuardianMethod } from './guardian';

const hex = (bytes: number, byte = 'ab') => byte.repeat(bytes);
const TXID = hex(32, 'cd');
const quote = { price_cents: 9_500_000, time: 1_800_000_000, th: 1, ts: 1_800_000_000 };
const envelope = {
  vault_pubkey: hex(32),
  psbt: 'cHNidP8BAA==',
  nonce: hex(16),
  expires_at: 1_800_000_120,
  quote: { ...quote, signature: hex(64) },
};
const VALID: Record<GuardianMethod, Record<string, unknown>> = {
  'unit.reserve': { unit_amount: 1_000, vault_action: 'open', vault_pubkey: hex(32) },
  'vault.open': {
    ...envelope,
    reservation_id: hex(16),
    payload: {
      borrow_amount: 50_000,
      deposit_amount: 1_000_000,
      vault_label: 'mine',
      tx_feerate: 2,
    },
  },
  'vault.deposit': { ...envelope, payload: { deposit_amount: 100_000, tx_feerate: 2 } },
  'vault.withdraw': { ...envelope, payload: { change_amount: 100_000, tx_feerate: 2 } },
  'vault.borrow': {
    ...envelope,
    reservation_id: hex(16),
    payload: { borrow_amount: 1_000, deposit_amount: 0, tx_feerate: 2 },
  },
  'vault.repay': {
    ...envelope,
    reservation_id: hex(16),
    payload: { repay_amount: 1_000, deposit_amount: 0, tx_feerate: 1.5 },
  },
  'vault.repossess': {
    ...envelope,
    payload: { liquidated_vault_id: hex(32), tx_feerate: 2 },
  },
  'vault.speedup': { original_txid: TXID, vault_pubkey: hex(32), psbt: 'cHNidP8BAA==' },
};
const RESULTS: Record<GuardianMethod, unknown> = {
  'unit.reserve': {
    reservation_id: hex(16),
    expires_at: 1_800_000_300,
    treasury_utxo: {
      txid: TXID,
      vout: 1,
      value: 546,
      script_hex: '5120' + hex(32),
      unit_amount: 9,
    },
    treasury_address: 'bcrt1ptreasury',
    postage_sats: 546,
  },
  'vault.open': { issue_txid: TXID, vault_txid: TXID, vault_id: TXID },
  'vault.deposit': { vault_txid: TXID },
  'vault.withdraw': { vault_txid: TXID },
  'vault.borrow': { issue_txid: TXID, vault_txid: TXID },
  'vault.repay': { repay_txid: TXID, vault_txid: TXID },
  'vault.repossess': { vault_txid: TXID },
  'vault.speedup': { vault_txid: TXID, replaced_txid: hex(32, 'ef') },
};
const METHODS = Object.keys(GUARDIAN_METHODS) as GuardianMethod[];
const VAULT_METHODS = METHODS.filter((m) => m.startsWith('vault.') && m !== 'vault.speedup');

const params = (method: GuardianMethod, value: unknown) =>
  GUARDIAN_METHODS[method].params.safeParse(value).success;
const withPayload = (method: GuardianMethod, change: Record<string, unknown>) => {
  const valid = VALID[method];
  return { ...valid, payload: { ...(valid.payload as object), ...change } };
};

describe('the guardian methods of the wire contract', () => {
  it.each(METHODS)('%s: accepts well-formed params and parses its result', (method) => {
    expect(params(method, VALID[method])).toBe(true);
    expect(GUARDIAN_METHODS[method].result.safeParse(RESULTS[method]).success).toBe(true);
  });

  it.each(METHODS)('%s: refuses params that are not an object, or miss a field', (method) => {
    for (const hostile of [null, 'x', 1, [], {}]) expect(params(method, hostile)).toBe(false);
    for (const key of Object.keys(VALID[method])) {
      if (key === 'reservation_id') continue; // optional: its absence is the guardian's refusal
      const { [key]: _dropped, ...rest } = VALID[method];
      expect(params(method, rest), key).toBe(false);
    }
  });

  it.each(METHODS)('%s: refuses a malformed result', (method) => {
    const result = GUARDIAN_METHODS[method].result;
    expect(result.safeParse(null).success).toBe(false);
    expect(result.safeParse({}).success).toBe(false);
    const wrongTxid = Object.fromEntries(
      Object.entries(RESULTS[method] as object).map(([k, v]) => [k, k.endsWith('txid') ? 'zz' : v]),
    );
    if (method !== 'unit.reserve') expect(result.safeParse(wrongTxid).success).toBe(false);
  });

  it.each(VAULT_METHODS)('%s: refuses a hostile envelope', (method) => {
    const valid = VALID[method];
    const hostile: Record<string, unknown>[] = [
      { nonce: 'zz' },
      { nonce: hex(17) },
      { vault_pubkey: hex(31) },
      { vault_pubkey: 'g'.repeat(64) },
      { psbt: '' },
      { psbt: 'not base64!' },
      // A vault PSBT is a few kilobytes; the cap keeps a hostile one from costing parse time.
      { psbt: 'A'.repeat(200_004) },
      { expires_at: 2 ** 32 },
      { expires_at: -1 },
      { expires_at: 1.5 },
      { reservation_id: 'zz' },
      { quote: { ...envelope.quote, signature: hex(63) } },
      { quote: { ...envelope.quote, price_cents: 0 } },
      { quote: { ...envelope.quote, th: -1 } },
      { quote: { ...quote } },
    ];
    for (const change of hostile) expect(params(method, { ...valid, ...change })).toBe(false);
    expect(params(method, { ...valid, psbt: 'A'.repeat(200_000) })).toBe(true);
  });

  it.each(VAULT_METHODS)('%s: refuses hostile amounts and fee rates', (method) => {
    const amountKey = Object.keys(VALID[method].payload as object).find(
      (k) =>
        k !== 'tx_feerate' &&
        k !== 'vault_label' &&
        k !== 'liquidated_vault_id' &&
        k !== 'deposit_amount',
    );
    for (const feeRate of [0, -1, Infinity, Number.NaN, '2', 100_001])
      expect(params(method, withPayload(method, { tx_feerate: feeRate }))).toBe(false);
    if (!amountKey) return;
    for (const amount of [0, 0.5, -1, Number.MAX_SAFE_INTEGER + 2, '1000', null])
      expect(params(method, withPayload(method, { [amountKey]: amount })), `${amount}`).toBe(false);
  });

  it('refuses a deposit of half a sat, a borrow or repay that deposits, a long vault name', () => {
    expect(params('vault.deposit', withPayload('vault.deposit', { deposit_amount: 0.5 }))).toBe(
      false,
    );
    expect(params('vault.borrow', withPayload('vault.borrow', { deposit_amount: 1 }))).toBe(false);
    expect(params('vault.repay', withPayload('vault.repay', { deposit_amount: 1 }))).toBe(false);
    expect(params('vault.open', withPayload('vault.open', { deposit_amount: 0 }))).toBe(false);
    expect(params('vault.open', withPayload('vault.open', { vault_label: '   ' }))).toBe(false);
    expect(params('vault.open', withPayload('vault.open', { vault_label: 'x'.repeat(21) }))).toBe(
      false,
    );
    expect(
      params('vault.repossess', withPayload('vault.repossess', { liquidated_vault_id: 'zz' })),
    ).toBe(false);
  });

  it('reserves whole non-negative amounts for a 32-byte hex key only (unit.reserve)', () => {
    const reserve = (amount: unknown, key = hex(32)) =>
      params('unit.reserve', { unit_amount: amount, vault_action: 'open', vault_pubkey: key });
    fc.assert(fc.property(fc.nat(), (amount) => reserve(amount)));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double().filter((x) => !Number.isInteger(x)),
          fc.integer({ max: -1 }),
        ),
        (amount) => !reserve(amount),
      ),
    );
    fc.assert(
      fc.property(
        fc.string().filter((key) => !/^[0-9a-f]{64}$/i.test(key)),
        (key) => !reserve(1, key),
      ),
    );
    expect(params('unit.reserve', { ...VALID['unit.reserve'], vault_action: 'deposit' })).toBe(
      false,
    );
  });

  it('refuses a speed-up of something that is not a txid, or a PSBT that is not base64', () => {
    const valid = VALID['vault.speedup'];
    expect(params('vault.speedup', { ...valid, original_txid: 'zz' })).toBe(false);
    expect(params('vault.speedup', { ...valid, vault_pubkey: hex(33) })).toBe(false);
    expect(params('vault.speedup', { ...valid, psbt: 'é' })).toBe(false);
    expect(params('vault.speedup', { ...valid, psbt: 'A'.repeat(200_004) })).toBe(false);
  });
});
