// The Kysely view of every table. Money columns are integers (sats, UNIT hundredths) stored as
// 64-bit integers; both drivers hand them back as JS numbers (see store/open.ts), which is exact
// for any real amount (all bitcoin ever is 2.1e15 sats < 2^53).
import type { ColumnType, Generated } from 'kysely';

/** A 64-bit integer column: written as number or bigint, read as number. */
export type Int64 = ColumnType<number, number | bigint, number | bigint>;

export interface SettingsTable {
  key: string;
  value: string;
  updated_at: Int64;
}

export interface PricePointsTable {
  /** unix seconds */
  timestamp: Int64;
  price_cents: Int64;
}

/** The last price of each chart bucket (SPEC §9), kept as ticks arrive. */
export interface PriceClosesTable {
  /** bucket width: 300, 3600, 21600 or 86400 */
  interval_seconds: number;
  /** unix seconds of the bucket start, a multiple of interval_seconds */
  bucket: Int64;
  /** unix seconds of the point that closes the bucket */
  timestamp: Int64;
  price_cents: Int64;
}

/**
 * `settled`: the guardians settled it at its term; it holds nothing since (cosign/effects.ts).
 * `exited`: its owner took it through the exit leaf after the exit height (cosign/exits.ts).
 */
export type VaultStatus = 'active' | 'liquidated' | 'repossessed' | 'settled' | 'exited';

export interface VaultsTable {
  vault_id: string;
  vault_tag: string;
  vault_pubkey: string;
  name: string;
  creation_account: string;
  runes_account: string;
  btc_locked: Int64;
  unit_borrowed: Int64;
  vault_txid: string;
  vault_vout: number;
  threshold_cents: Int64;
  stamp: Int64;
  /** The term its output commits to (layout 2); null for a layout 1 output. */
  settle_height: number | null;
  exit_height: number | null;
  status: VaultStatus;
  created_at: Int64;
  updated_at: Int64;
}

export type ActionCodeColumn = 'o' | 'b' | 'd' | 'r' | 'w' | 'l' | 'x' | 's' | 'e';

/** SPEC §3 Vault history record. */
export interface VaultHistoryTable {
  id: Generated<number>;
  vault_id: string;
  timestamp: Int64;
  action: ActionCodeColumn;
  btc_amt: Int64;
  unit_amt: Int64;
  vault_amount: Int64;
  amount_borrowed: Int64;
  oracle_price: Int64;
  transaction_id: string;
  utxo: string;
  utxo_script: string;
  liquidation_hash: string | null;
  liquidation_threshold: Int64 | null;
  confirmed: ColumnType<number, number | boolean, number | boolean>;
}

export type GuardianRequestState = 'received' | 'validated' | 'cosigned' | 'broadcast' | 'failed';

export interface GuardianRequestsTable {
  nonce: string;
  method: string;
  vault_id: string | null;
  vault_pubkey: string;
  state: GuardianRequestState;
  txid: string | null;
  /** The co-signed transaction, kept before broadcast so a restart can recover it. */
  raw_hex: string | null;
  error: string | null;
  expires_at: Int64;
  created_at: Int64;
  updated_at: Int64;
  /** JSON of what the request changes once broadcast (cosign/effects.ts; guardian migrations). */
  effects: string | null;
  /** The instance handling it (cluster presence); null from a server before instance ids. */
  instance_id: string | null;
}

export type ReservationStatus = 'active' | 'used' | 'released';

export interface ReservationsTable {
  reservation_id: string;
  vault_pubkey: string;
  vault_action: 'open' | 'borrow' | 'repay';
  unit_amount: Int64;
  treasury_txid: string | null;
  treasury_vout: number | null;
  status: ReservationStatus;
  expires_at: Int64;
  created_at: Int64;
  /** The socket and client address that reserved it (guardian migrations). */
  connection_id: string | null;
  client_address: string | null;
}

/** A vault's lease while one request spends it (cosign/locks.ts; guardian migrations). */
export interface GuardianLocksTable {
  lock_key: string;
  owner: string;
  expires_at: Int64;
  /** The instance holding it (cluster presence); null from a server before instance ids. */
  instance_id: string | null;
}

/** A speed-up whose original may still confirm instead (cosign/speedup.ts migrations). */
export interface GuardianReplacementsTable {
  txid: string;
  replaced_txid: string;
  replaced_hex: string;
  nonce: string;
  created_at: Int64;
}

/** A speed-up whose broadcast went unanswered, until the chain settles it (cosign/speedup-settle.ts). */
export interface GuardianUnansweredReplacementsTable {
  txid: string;
  raw_hex: string;
  original_txid: string;
  original_hex: string;
  nonce: string;
  vault_pubkey: string;
  error: string;
  created_at: Int64;
}

export type LiquidationStatus = 'liquidated' | 'repossessed' | 'exited';

export interface LiquidationsTable {
  vault_id: string;
  liquidated_at: Int64;
  liquidation_hash: string;
  threshold_cents: Int64;
  price_cents: Int64;
  btc_locked: Int64;
  unit_borrowed: Int64;
  /** `exited`: its owner took it back through the exit leaf before anyone repossessed it. */
  status: LiquidationStatus;
  /** The claimant's vault; null until repossessed, and for good once its owner exited. */
  claimed_by: string | null;
  /** The transaction that took the liquidated output: the repossession's, or the owner's exit. */
  claim_txid: string | null;
}

export interface TelegramSubscriptionsTable {
  address: string;
  chat_id: string;
  network: string;
  created_at: Int64;
}

export type OutboxStatus = 'pending' | 'sent' | 'failed';

export interface TelegramOutboxTable {
  id: Generated<number>;
  chat_id: string;
  text: string;
  status: OutboxStatus;
  attempts: number;
  max_attempts: number;
  retry_delay_ms: Int64;
  next_attempt_at: Int64;
  last_error: string | null;
  created_at: Int64;
}

export interface UsersTable {
  address: string;
  discord_id: string | null;
  twitter_id: string | null;
  telegram_id: string | null;
  referral_code: string;
  referred_by: string | null;
  created_at: Int64;
}

export interface MissionCompletionsTable {
  address: string;
  mission_id: string;
  completed_at: Int64;
}

/**
 * The signed guardian prices a network-mode state record's commitment hashes (price-quorums.ts):
 * kept so anyone can audit a record's quorum (GET /api/price-quorum/:commitment).
 */
export interface PriceQuorumsTable {
  /** priceQuorumCommitment of the prices, 64 hex */
  commitment: string;
  /** the canonical JSON the commitment hashes: the signed prices in guardian id order */
  prices_json: string;
  created_at: Int64;
}

export interface Database {
  settings: SettingsTable;
  price_points: PricePointsTable;
  price_closes: PriceClosesTable;
  vaults: VaultsTable;
  vault_history: VaultHistoryTable;
  guardian_requests: GuardianRequestsTable;
  reservations: ReservationsTable;
  guardian_locks: GuardianLocksTable;
  guardian_replacements: GuardianReplacementsTable;
  guardian_unanswered_replacements: GuardianUnansweredReplacementsTable;
  price_quorums: PriceQuorumsTable;
  liquidations: LiquidationsTable;
  telegram_subscriptions: TelegramSubscriptionsTable;
  telegram_outbox: TelegramOutboxTable;
  users: UsersTable;
  mission_completions: MissionCompletionsTable;
}
