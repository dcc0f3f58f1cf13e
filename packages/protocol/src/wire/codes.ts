// The error codes of every error body of /api and every guardian RPC error's data, as a plain list:
// zod-free, so the browser's JSON-RPC client matches codes without carrying the schemas.
export const ERROR_CODES = [
  'bad_request',
  'not_found',
  'rate_limited',
  'unauthorized',
  'forbidden',
  'not_configured',
  'not_devnet',
  'no_price',
  'quote_expired',
  'below_minimum',
  'dust',
  'fee_too_low',
  'ratio_too_low',
  'insufficient_funds',
  'bad_signature',
  'bad_transaction',
  'replayed',
  'expired',
  'foreign_vault',
  'vault_exists',
  'vault_busy',
  'vault_changed',
  'vault_liquidated',
  'not_liquidated',
  'reservation_missing',
  'broadcast_failed',
  /** The Bitcoin network's services did not answer (down, timed out, 5xx): try again shortly. */
  'chain_unavailable',
  'not_replaceable',
  /** The caller's own time-out: the other side did not answer in time (the JSON-RPC client). */
  'timed_out',
  /** The caller could not reach the other side, or the connection closed before the answer. */
  'unreachable',
  /** Fewer than t guardians of the network approved; the message names each guardian's reason. */
  'guardians_refused',
  'internal',
] as const;
