import type {
  BitcoinPriceDto,
  PendingTransaction,
  ConfigDto,
  LiquidatedVaultDto,
  PriceHistoryDto,
  VaultDto,
  VaultHistoryRecordDto,
} from '@unit/protocol';

/** The clock the fixtures' times are set from: read when a test file starts (freshClock). */
export let NOW_S = Math.floor(Date.now() / 1000);

export const config: ConfigDto = {
  network: 'devnet',
  esploraUrl: '/esplora',
  mempoolUrl: '/mempool',
  ordinalsUrl: '/ordinals',
  runesUrl: '/runes',
  explorerUrl: '/explorer',
  guardianUrl: '/guardian',
  docsUrl: 'https://docs.example.org',
  social: {
    twitter: 'https://x.com/unit',
    discord: 'https://discord.gg/unit',
    telegram: 'https://t.me/unit',
  },
  guardPubkey: 'c'.repeat(64),
  treasuryPubkey: 'd'.repeat(64),
  treasuryAddress: 'tb1pmhwamhwamhwamhwamhwamhwamhwamhwamhwamhwamhwamhwamhwsuh8lnp',
  unitRuneId: '1:0',
  telegramBot: 'unit_bot',
  constants: {
    minBtcSats: 5_000,
    dustLimitSats: 546,
    minVaultBalanceSats: 10_000,
    collateralPercent: 160,
    liquidationThresholdPercent: 135,
    unitPostageSats: 10_000,
    flowTimeoutMs: 65_000,
    speedUpAfterSeconds: 600,
    amountIntDigits: { btc: 8, unit: 12, usd: 12 },
  },
};

export const price: BitcoinPriceDto = { USD: 95_000, time: NOW_S };

/** 1 BTC backing 50,000.00 UNIT at 95,000 USD: ratio 190% (Moderate), liquidation at 67,500.00. */
export const vault: VaultDto = {
  vault_id: 'f'.repeat(64),
  vault_tag: 'tag',
  name: 'Treasure',
  unit_borrowed: 5_000_000,
  btc_locked: 100_000_000,
  creation_account: 'tb1qcreator',
  guard_pubkey: 'c'.repeat(64),
  master_id: 'm',
  vault_pubkey: 'b'.repeat(64),
  vault_txid: 'e'.repeat(64),
  vault_vout: 0,
  threshold_cents: 6_750_000,
  stamp: NOW_S,
  status: 'active',
  created_at: NOW_S - 86_400 * 60,
};

export const record = (
  i: number,
  timestamp: number,
  action: VaultHistoryRecordDto['action'],
  vault_amount: number,
  amount_borrowed: number,
  btc_amt: number,
  unit_amt: number,
): VaultHistoryRecordDto => ({
  timestamp,
  action,
  btc_amt,
  unit_amt,
  vault_amount,
  amount_borrowed,
  oracle_price: 95_000,
  transaction_id: i.toString(16).padStart(64, '0'),
  utxo: `${i}:0`,
  utxo_script: '51',
  liquidation_hash: null,
  liquidation_threshold: null,
  vault_id: vault.vault_id,
  confirmed: true,
});

/** Seven records: three in March 2026, four in April 2026. */
export const history: VaultHistoryRecordDto[] = [
  record(1, Date.UTC(2026, 2, 2) / 1000, 'o', 50_000_000, 2_000_000, 50_000_000, 2_000_000),
  record(2, Date.UTC(2026, 2, 10) / 1000, 'd', 80_000_000, 2_000_000, 30_000_000, 0),
  record(3, Date.UTC(2026, 2, 20) / 1000, 'b', 80_000_000, 4_000_000, 0, 2_000_000),
  record(4, Date.UTC(2026, 3, 1) / 1000, 'r', 80_000_000, 3_000_000, 0, 1_000_000),
  record(5, Date.UTC(2026, 3, 5) / 1000, 'd', 110_000_000, 3_000_000, 30_000_000, 0),
  record(6, Date.UTC(2026, 3, 9) / 1000, 'w', 100_000_000, 3_000_000, 10_000_000, 0),
  record(7, Date.UTC(2026, 3, 12) / 1000, 'b', 100_000_000, 5_000_000, 0, 2_000_000),
];

export const priceHistory = (points: number, stepSeconds: number): PriceHistoryDto => ({
  data: Array.from({ length: points }, (_, i) => ({
    timestamp: NOW_S - (points - i) * stepSeconds,
    price: 90_000 + i * 10,
  })),
  change: 1.2,
  error: null,
});

export const liquidated: LiquidatedVaultDto = {
  vault_id: '9'.repeat(64),
  name: 'Sunk',
  vault_pubkey: '8'.repeat(64),
  vault_txid: '7'.repeat(64),
  vault_vout: 0,
  stamp: NOW_S - 7200,
  btc_locked: 10_000_000,
  unit_borrowed: 700_000,
  threshold_cents: 9_450_000,
  liquidated_at: NOW_S - 3600,
  liquidation_hash: 'a'.repeat(40),
  status: 'liquidated',
  guard_pubkey: '6'.repeat(64),
  oracles: 1,
};

/** A deposit in progress as the app keeps it in localStorage (the fields a test changes given). */
export const pendingDeposit = (over: Partial<PendingTransaction>): PendingTransaction => ({
  ...{ date: 1, type: 'deposit', amount: '1000', amountUnit: 'BTC', status: 'In Progress' },
  ...{ transactionId: '3'.repeat(64), vault_txid: null, btcInVault: '1000', unitInVault: '0' },
  ...{ healthFactorBefore: null, healthFactorAfter: null },
  ...{ healthStatusBefore: null, healthStatusAfter: null, isFullRepay: false },
  ...over,
});

/**
 * Reads the clock again and moves the fixtures' times with it: a file of the project web-app, whose
 * files share one import of this module, starts with times as fresh as a file importing it anew
 * (test/fresh-page.ts).
 */
export function freshClock(): void {
  NOW_S = Math.floor(Date.now() / 1000);
  price.time = NOW_S;
  vault.stamp = NOW_S;
  vault.created_at = NOW_S - 86_400 * 60;
  liquidated.stamp = NOW_S - 7200;
  liquidated.liquidated_at = NOW_S - 3600;
}
