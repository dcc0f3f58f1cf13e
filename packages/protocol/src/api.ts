// The wire contract between apps/server and apps/web: JSON shapes of /api, the guardian RPC and the
// chain services. Amounts on the wire are integers (sats, UNIT hundredths) as JSON numbers or, where
// they may exceed 2^53, decimal strings. SPEC §3 field names are kept as the spec spells them.
import type { ConfigConstants } from './constants';
import type { MissionAction, ReferralLevel } from './ids';

export type Network = 'devnet' | 'signet' | 'mutinynet' | 'mainnet';

/** GET /api/config: every URL and configurable constant the web app uses. */
export interface ConfigDto {
  network: Network;
  /** Base URLs, absolute or relative to the app's origin. */
  esploraUrl: string;
  mempoolUrl: string;
  ordinalsUrl: string;
  runesUrl: string;
  explorerUrl: string;
  guardianUrl: string;
  docsUrl: string;
  /** null: not configured on this server, so not shown */
  social: { twitter: string | null; discord: string | null; telegram: string | null };
  guardPubkey: string;
  treasuryPubkey: string;
  unitRuneId: string;
  telegramBot: string | null;
  constants: ConfigConstants;
}

/** GET /api/bitcoin-price (SPEC §7). */
export interface BitcoinPriceDto {
  USD: number;
  /** unix seconds */
  time: number;
  /**
   * true while the oracle's live feeds give no fresh price (fewer than two answered, or they
   * disagree): USD and time are then the last fresh price, and the guardian co-signs nothing.
   */
  stale?: boolean;
}

export type TimePeriod = '24h' | '7d' | '30d' | '1y';

export interface PricePointDto {
  /** unix seconds */
  timestamp: number;
  price: number;
}

/** GET /api/price-history?timePeriod= (SPEC §7). */
export interface PriceHistoryDto {
  data: PricePointDto[];
  /** percent change over the period */
  change: number;
  error: string | null;
}

/** GET /api/oracle/quote?th=&ts= */
export interface OracleQuoteDto {
  price_cents: number;
  /** unix seconds of the price */
  time: number;
  th: number;
  ts: number;
  threshold_hash: string;
  is_expired: boolean;
  secret: string | null;
  oracle_pubkey: string;
  /** Schnorr signature over sha256("unit/quote" || u64be(price_cents) || u32be(time) || u64be(th) || u32be(ts)) */
  signature: string;
}

/**
 * GET /api/vaults/by-pubkey/:pubkey (404 {code:'not_found'} when none) — SPEC §3 Vault; also
 * GET /api/vaults?pubkey= as a list of zero or one, for the web app's polling.
 */
export interface VaultDto {
  vault_id: string;
  vault_tag: string;
  name: string;
  unit_borrowed: number;
  /** sats */
  btc_locked: number;
  creation_account: string;
  guard_pubkey: string;
  master_id: string;
  vault_pubkey: string;
  vault_txid: string;
  vault_vout: number;
  threshold_cents: number;
  stamp: number;
  status: 'active' | 'liquidated' | 'repossessed';
  created_at: number;
}

export type ActionCode = 'o' | 'b' | 'd' | 'r' | 'w' | 'l' | 'x';

/** GET /api/vaults/:vaultId/history — SPEC §3 Vault history record. */
export interface VaultHistoryRecordDto {
  timestamp: number;
  action: ActionCode;
  btc_amt: number;
  unit_amt: number;
  vault_amount: number;
  amount_borrowed: number;
  oracle_price: number;
  transaction_id: string;
  utxo: string;
  utxo_script: string;
  liquidation_hash: string | null;
  liquidation_threshold: number | null;
  vault_id: string;
  confirmed: boolean;
}

/**
 * GET /api/vaults/:vaultId/history?limit=&before= — one page of a vault's history, newest first.
 * `before` is a `next` from an earlier page; without it the page is the newest one.
 */
export interface VaultHistoryPageDto {
  records: VaultHistoryRecordDto[];
  /** cursor of the next older page; null when this page reaches the vault's first record */
  next: string | null;
  /** the vault's state before the page's oldest record; null when that record is the first */
  state_before: { vault_amount: number; amount_borrowed: number } | null;
}

/** GET /api/vaults/:vaultId/points — SPEC §3 History point. */
export interface HistoryPointDto {
  timestamp: number;
  btc_locked: number;
  unit_borrowed: number;
  vaults: number;
}

/** GET /api/liquidations */
export interface LiquidatedVaultDto {
  vault_id: string;
  name: string;
  /** What a repossessor needs to spend the vault's liquidation leaf (docs/protocol.md). */
  vault_pubkey: string;
  vault_txid: string;
  vault_vout: number;
  stamp: number;
  btc_locked: number;
  unit_borrowed: number;
  threshold_cents: number;
  liquidated_at: number;
  liquidation_hash: string;
  status: 'liquidated' | 'repossessed';
}

/**
 * GET /api/vaults/:vaultId/liquidation (404 when the vault was never liquidated): what the vault's
 * history does not hold, the claimant of a repossessed vault, with the exact oracle price.
 */
export interface VaultLiquidationDto {
  vault_id: string;
  liquidated_at: number;
  /** the vault's liquidation price, USD cents */
  threshold_cents: number;
  /** the oracle price that liquidated it, USD cents */
  price_cents: number;
  btc_locked: number;
  unit_borrowed: number;
  status: 'liquidated' | 'repossessed';
  /** the vault that repossessed it, once claimed */
  claimant: { vault_id: string; vault_tag: string; name: string } | null;
  claim_txid: string | null;
}

/** GET /api/vaults/by-pubkey/:pubkey/closed: a key's closed (repossessed) vaults, newest first. */
export interface ClosedVaultDto {
  vault_id: string;
  vault_tag: string;
  name: string;
  /** unix seconds */
  created_at: number;
}

/** GET /api/quote?action=&amount=&feeRate= : operation cost of an action. */
export interface OperationQuoteDto {
  action: VaultAction;
  fee_rate: number;
  vsize: number;
  operation_cost_sats: number;
}

/** GET {mempool}/{network}/api/v1/fees/recommended (SPEC §7). */
export interface RecommendedFeesDto {
  fastestFee: number;
  halfHourFee: number;
  hourFee: number;
  economyFee: number;
  minimumFee: number;
}

/** Esplora UTXO (GET {esplora}/address/:address/utxo). */
export interface UtxoDto {
  txid: string;
  vout: number;
  value: number;
  status: { confirmed: boolean; block_height?: number; block_hash?: string; block_time?: number };
}

/** GET {runes}/address/:address/outputs — SPEC §3 UNIT output. */
export interface UnitOutputDto {
  txid: string;
  vout: number;
  script_hex: string;
  btc_amount: number;
  unit_amount: number;
  spent: boolean;
}

/** Esplora address summary (SPEC §7: funded - spent = balance). */
export interface AddressStatsDto {
  address: string;
  chain_stats: {
    funded_txo_count: number;
    funded_txo_sum: number;
    spent_txo_count: number;
    spent_txo_sum: number;
    tx_count: number;
  };
  mempool_stats: {
    funded_txo_count: number;
    funded_txo_sum: number;
    spent_txo_count: number;
    spent_txo_sum: number;
    tx_count: number;
  };
}

/** Every error body of /api and every guardian RPC error's data. */
export interface ApiErrorDto {
  error: string;
  code: ErrorCode;
}

export type ErrorCode =
  | 'bad_request'
  | 'not_found'
  | 'rate_limited'
  | 'unauthorized'
  | 'forbidden'
  | 'not_configured'
  | 'not_devnet'
  | 'no_price'
  | 'quote_expired'
  | 'below_minimum'
  | 'dust'
  | 'fee_too_low'
  | 'ratio_too_low'
  | 'insufficient_funds'
  | 'bad_signature'
  | 'bad_transaction'
  | 'replayed'
  | 'expired'
  | 'foreign_vault'
  | 'vault_exists'
  | 'vault_busy'
  | 'vault_changed'
  | 'vault_liquidated'
  | 'not_liquidated'
  | 'reservation_missing'
  | 'broadcast_failed'
  /** The Bitcoin network's services did not answer (down, timed out, 5xx): try again shortly. */
  | 'chain_unavailable'
  | 'not_replaceable'
  | 'internal';

// ---- Guardian RPC (JSON-RPC 2.0 over WebSocket at /guardian) ----

export type VaultAction = 'open' | 'deposit' | 'withdraw' | 'borrow' | 'repay' | 'repossess';

/** unit.reserve params (SPEC §3 Reserve). */
export interface ReserveParams {
  unit_amount: number;
  vault_action: 'open' | 'borrow' | 'repay';
  vault_pubkey: string;
}

export interface ReserveResult {
  reservation_id: string;
  /** unix seconds */
  expires_at: number;
  /** open and borrow: the treasury UNIT UTXO the transaction must spend */
  treasury_utxo: {
    txid: string;
    vout: number;
    value: number;
    script_hex: string;
    unit_amount: number;
  } | null;
  treasury_address: string;
  postage_sats: number;
}

/** What the guardian needs of an oracle quote to check it: the oracle's signature binds them. */
export type SignedQuote = Pick<OracleQuoteDto, 'price_cents' | 'time' | 'th' | 'ts' | 'signature'>;

/** Common envelope of vault.* requests: the wallet-signed PSBT plus what the guardian needs to check it. */
export interface SignedVaultRequest<P> {
  payload: P;
  vault_pubkey: string;
  /** base64 PSBT with the wallet's signatures */
  psbt: string;
  /** hex, 16 bytes; also inside the state record */
  nonce: string;
  expires_at: number;
  /** the oracle quote the state record was built on, as GET /api/oracle/quote answered it */
  quote: SignedQuote;
  reservation_id?: string;
}

export interface CreateConfigPayload {
  borrow_amount: number;
  deposit_amount: number;
  vault_label: string;
  tx_feerate: number;
}
export interface BorrowPayload {
  borrow_amount: number;
  deposit_amount: 0;
  tx_feerate: number;
}
export interface RepayPayload {
  repay_amount: number;
  deposit_amount: 0;
  tx_feerate: number;
}
export interface DepositPayload {
  deposit_amount: number;
  tx_feerate: number;
}
export interface WithdrawPayload {
  change_amount: number;
  tx_feerate: number;
}
export interface RepossessPayload {
  liquidated_vault_id: string;
  tx_feerate: number;
}

/** SPEC §3 Responses. Open and borrow are one transaction, so issue_txid equals vault_txid. */
export interface OpenResult {
  issue_txid: string;
  vault_txid: string;
  vault_id: string;
}
export interface BorrowResult {
  issue_txid: string;
  vault_txid: string;
}
export interface RepayResult {
  repay_txid: string;
  vault_txid: string;
}
export interface VaultTxResult {
  vault_txid: string;
}

export interface GuardianMethods {
  'unit.reserve': { params: ReserveParams; result: ReserveResult };
  'vault.open': { params: SignedVaultRequest<CreateConfigPayload>; result: OpenResult };
  'vault.deposit': { params: SignedVaultRequest<DepositPayload>; result: VaultTxResult };
  'vault.withdraw': { params: SignedVaultRequest<WithdrawPayload>; result: VaultTxResult };
  'vault.borrow': { params: SignedVaultRequest<BorrowPayload>; result: BorrowResult };
  'vault.repay': { params: SignedVaultRequest<RepayPayload>; result: RepayResult };
  'vault.repossess': { params: SignedVaultRequest<RepossessPayload>; result: VaultTxResult };
  'vault.speedup': { params: SpeedUpRequest; result: SpeedUpResult };
}

/**
 * vault.speedup params: a BIP-125 replacement of `original_txid` (a vault transaction the guardian
 * broadcast, still unconfirmed) signed by the wallet; it may change nothing but the fee.
 */
export interface SpeedUpRequest {
  original_txid: string;
  vault_pubkey: string;
  /** base64 PSBT of the replacement, the wallet's inputs signed */
  psbt: string;
}

export interface SpeedUpResult {
  /** the replacement's txid, now in the mempool in place of the original */
  vault_txid: string;
  replaced_txid: string;
}

/**
 * Progress notification `vault.progress` for tracker steps (SPEC §4): 2 request received,
 * 3 validation, 4 network approvals, 5 submitting. `request` is the request's nonce.
 */
export interface ProgressNotification {
  request: string;
  step: 2 | 3 | 4 | 5;
}

/** POST /api/notify (SPEC §3 Telegram notify payload). */
export interface TelegramNotifyDto {
  network: Network;
  address: string;
  tx_id: string;
  tx_action: VaultAction;
  btc_amount: number;
  unit_amount: number;
  vault_id: string;
}

/** 202 answer of POST /api/notify: how many chats the message was queued for. */
export interface TelegramNotifyAcceptedDto {
  queued: number;
  /** false when the server runs without a Telegram bot */
  enabled: boolean;
}

/** GET /api/missions?address= and POST /api/missions/:id/verify — SPEC §3 Mission. */
export interface MissionDto {
  id: string;
  title: string;
  action: MissionAction;
  mission_tasks: number;
  completed_tasks: number;
}

/** POST /api/missions/:id/verify body. */
export interface VerifyMissionBody {
  address: string;
}

/**
 * What anyone may read of a user (GET /api/users/:address, 404 {code:'not_found'} when none; also
 * GET /api/users?address= as a list of zero or one for the web app): what a profile shows — the
 * referral count and level (SPEC §3 Referral levels); roles and badges are its /community.
 * `postage_sats` is the level's (null below the first level: the account's UNIT outputs carry the
 * default, missions.ts).
 */
export interface PublicUserDto {
  address: string;
  referrals: number;
  level: ReferralLevel | null;
  level_title: string | null;
  postage_sats: number | null;
}

/**
 * The owner's own view (the same reads with the address's session, and POST /api/users): also the
 * linked accounts (SPEC §3 User), the referral code to share and who referred them. Never to anyone
 * else: the ids tie a Bitcoin address to social identities.
 */
export interface UserDto extends PublicUserDto {
  discord_id: string | null;
  twitter_id: string | null;
  telegram_id: string | null;
  referral_code: string;
  referred_by: string | null;
}

/** POST /api/users body (201 UserDto; idempotent). */
export interface RegisterUserBody {
  address: string;
  referral_code?: string | null;
}

// ---- Accounts: sign-in with Bitcoin, Telegram links, account links (issue 14) ----

/** POST /api/auth/challenge answer: the text the wallet signs (BIP-322 simple or BIP-137). */
export interface AuthChallengeDto {
  message: string;
  /** unix seconds after which the challenge is refused */
  expires_at: number;
}

/** POST /api/auth/verify body. */
export interface AuthVerifyBody {
  address: string;
  message: string;
  /** base64 */
  signature: string;
}

/** GET /api/auth/session and POST /api/auth/verify answer: whose session the cookie carries. */
export interface AuthSessionDto {
  address: string;
}

/** POST /api/telegram/link answer: the bot's deep link carrying a one-time code. */
export interface TelegramLinkDto {
  url: string;
  expires_at: number;
}

/** One role or badge of a user's profile: earned or not, and how it is earned. */
export interface CommunityAwardDto {
  id: string;
  title: string;
  /** the rule, in the user's words */
  how: string;
  earned: boolean;
}

/** GET /api/users/:address/community: SPEC §3 Discord roles and badges, computed on the server. */
export interface CommunityDto {
  roles: CommunityAwardDto[];
  badges: CommunityAwardDto[];
}
