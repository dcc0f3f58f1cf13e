// Response schemas of the hot routes: Fastify serialises with them (fast-json-stringify), several
// times faster than JSON.stringify. They list every field of the DTO in @unit/protocol; a field
// missing here would be dropped from the answer, which the API tests would show.
const int = { type: 'integer' } as const;
const num = { type: 'number' } as const;
const str = { type: 'string' } as const;

/** BitcoinPriceDto */
export const BITCOIN_PRICE_SCHEMA = {
  type: 'object',
  properties: {
    USD: num,
    time: int,
    stale: { type: 'boolean' },
    stale_reason: { type: ['string', 'null'] },
  },
  required: ['USD', 'time'],
} as const;

/** VaultHistoryRecordDto */
const HISTORY_RECORD_SCHEMA = {
  type: 'object',
  properties: {
    timestamp: int,
    action: str,
    btc_amt: int,
    unit_amt: int,
    vault_amount: int,
    amount_borrowed: int,
    oracle_price: int,
    transaction_id: str,
    utxo: str,
    utxo_script: str,
    liquidation_hash: { type: ['string', 'null'] },
    liquidation_threshold: { type: ['integer', 'null'] },
    vault_id: str,
    confirmed: { type: 'boolean' },
  },
} as const;

/** VaultHistoryPageDto */
export const HISTORY_PAGE_SCHEMA = {
  type: 'object',
  properties: {
    records: { type: 'array', items: HISTORY_RECORD_SCHEMA },
    next: { type: ['string', 'null'] },
    state_before: {
      type: ['object', 'null'],
      properties: { vault_amount: int, amount_borrowed: int },
    },
  },
} as const;

/** HistoryPointDto[] */
export const HISTORY_POINTS_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    properties: { timestamp: int, btc_locked: int, unit_borrowed: int, vaults: int },
  },
} as const;
