// Test vectors of the SPEC rules (docs/vectors/spec-rules.json): fixed inputs and the outputs the
// functions of this package give them. `npm run vectors` writes the file from specRuleVectors();
// vectors.test.ts checks the functions against the file, so the two cannot drift apart.
import {
  VAULT_ACTIONS,
  applyAction,
  avoidDustChange,
  capFeeRate,
  collateralRatio,
  estimateVsize,
  formatHealth,
  healthBand,
  healthStatus,
  isLiquidatable,
  liquidationPriceUsd,
  liquidationThresholdCents,
  maxBorrowCents,
  maxDepositSats,
  maxRepayCents,
  maxWithdrawSats,
  networkFeeSats,
  operationCostSats,
  ratioAtLeast,
  repossessionClaim,
  requiredCollateralSats,
  type VaultAction,
} from '../../src/index';

/** JSON holds no bigint or Infinity: exact integers become decimal strings, Infinity "Infinity". */
export function toVectorJson(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (Array.isArray(value)) return value.map(toVectorJson);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toVectorJson(v)]));
  return value;
}

type Rule = (...args: never[]) => unknown;

/** Every rule a vector names, by the name a vector file uses (the function's own). */
export const RULES: Record<string, Rule> = {
  collateralRatio: (btcSats: number, debtCents: number, priceUsd: number | null) =>
    collateralRatio(btcSats, debtCents, priceUsd),
  ratioAtLeast: (btcSats: number, debtCents: number, priceUsd: number | null, pct: number) =>
    ratioAtLeast(btcSats, debtCents, priceUsd, pct),
  healthBand: (ratio: number | string) => healthBand(Number(ratio)),
  healthStatus: (ratio: number | string) => healthStatus(Number(ratio)),
  formatHealth: (ratio: number | string) => formatHealth(Number(ratio)),
  isLiquidatable: (ratio: number) => isLiquidatable(ratio),
  liquidationThresholdCents: (btcSats: number, debtCents: number) =>
    liquidationThresholdCents(btcSats, debtCents),
  liquidationPriceUsd: (btcSats: number, debtCents: number) =>
    liquidationPriceUsd(btcSats, debtCents),
  requiredCollateralSats: (debtCents: number, priceUsd: number | null) =>
    requiredCollateralSats(debtCents, priceUsd),
  maxBorrowCents: (btcSats: number, debtCents: number, priceUsd: number | null) =>
    maxBorrowCents(btcSats, debtCents, priceUsd),
  maxWithdrawSats: (input: Parameters<typeof maxWithdrawSats>[0]) => maxWithdrawSats(input),
  maxDepositSats: (input: Parameters<typeof maxDepositSats>[0]) => maxDepositSats(input),
  maxRepayCents: (input: Parameters<typeof maxRepayCents>[0]) => maxRepayCents(input),
  avoidDustChange: (amount: number, max: number) => avoidDustChange(amount, max),
  capFeeRate: (rate: number, priceUsd: number | null) => capFeeRate(rate, priceUsd),
  estimateVsize: (input: Parameters<typeof estimateVsize>[0]) => estimateVsize(input),
  networkFeeSats: (input: Parameters<typeof networkFeeSats>[0]) => networkFeeSats(input),
  operationCostSats: (input: Parameters<typeof operationCostSats>[0]) => operationCostSats(input),
  repossessionClaim: (liquidatedSats: number) => repossessionClaim(liquidatedSats),
  applyAction: (
    state: { btcSats: number; unitCents: number },
    action: Exclude<VaultAction, 'repossess'>,
    amount: number | { btcSats: number; unitCents: number },
    options?: { feeSats?: number },
  ) => applyAction(state, action, amount, options),
};

interface RuleCase {
  rule: string;
  note: string;
  args: unknown[];
}

const BTC = 100_000_000;
/** CONSTANTS.md's example: $10,000 of BTC backs 6,250 UNIT (160%). */
const SPEC_EXAMPLE = { btcSats: BTC, debtCents: 625_000, priceUsd: 10_000 };

const ratioCases: RuleCase[] = [
  {
    rule: 'collateralRatio',
    note: 'CONSTANTS.md: $10,000 of BTC backs 6,250 UNIT at 160%',
    args: [SPEC_EXAMPLE.btcSats, SPEC_EXAMPLE.debtCents, SPEC_EXAMPLE.priceUsd],
  },
  {
    rule: 'collateralRatio',
    note: 'SPEC §9: rounded to whole percent, half up (134.5 -> 135)',
    args: [13_450_000, 10_000, 1_000],
  },
  { rule: 'collateralRatio', note: '134.49 rounds down', args: [13_449_000, 10_000, 1_000] },
  { rule: 'collateralRatio', note: 'no debt: no ratio', args: [BTC, 0, 10_000] },
  {
    rule: 'collateralRatio',
    note: 'SPEC §9: default 160 when unknown',
    args: [BTC, 625_000, null],
  },
  {
    rule: 'collateralRatio',
    note: 'a price in cents counts exactly',
    args: [25_000_000, 1_234_567, 97_123.45],
  },
  {
    rule: 'ratioAtLeast',
    note: 'SPEC §9: withdraw keeps ratio >= 160% (exact, no rounding)',
    args: [BTC, 625_000, 10_000, 160],
  },
  {
    rule: 'ratioAtLeast',
    note: 'one cent more debt fails 160%',
    args: [BTC, 625_001, 10_000, 160],
  },
  ...[134, 135, 160, 161, 195, 196, 230, 500, 'Infinity'].map((ratio) => ({
    rule: 'healthBand',
    note: 'SPEC §9: Risky 135–160%, Moderate 161–195%, Healthy 196–230%+; below 135: none',
    args: [ratio],
  })),
  ...[1, 'Infinity', 134, 172].map((ratio) => ({
    rule: 'healthStatus',
    note: "SPEC §3 healthStatusBefore/After: 'N/A' with no debt, 'Liquidation' under 135",
    args: [ratio],
  })),
  ...[1, 172, 499, 500, 12_345].map((ratio) => ({
    rule: 'formatHealth',
    note: "SPEC §5: health factor of 1 means N/A; 500 or more displays '500+%'",
    args: [ratio],
  })),
  ...[135, 136].map((ratio) => ({
    rule: 'isLiquidatable',
    note: 'SPEC §4: liquidated at a ratio of 135 or below',
    args: [ratio],
  })),
];

const priceCases: RuleCase[] = [
  {
    rule: 'liquidationThresholdCents',
    note: 'CONSTANTS.md: UNIT debt x 1.35 / BTC in vault, floored to the cent ($8,437.50)',
    args: [SPEC_EXAMPLE.btcSats, SPEC_EXAMPLE.debtCents],
  },
  {
    rule: 'liquidationThresholdCents',
    note: 'floored: 1,000.00 UNIT over 0.03000007 BTC',
    args: [3_000_007, 100_000],
  },
  { rule: 'liquidationThresholdCents', note: 'no debt: 0', args: [BTC, 0] },
  { rule: 'liquidationPriceUsd', note: 'the same in USD', args: [3_000_007, 100_000] },
  { rule: 'liquidationPriceUsd', note: 'no debt: none', args: [BTC, 0] },
];

const maxima: RuleCase[] = [
  {
    rule: 'maxBorrowCents',
    note: 'SPEC §5 + CONSTANTS.md: 1 BTC at $10,000 borrows 6,250 UNIT',
    args: [SPEC_EXAMPLE.btcSats, 0, SPEC_EXAMPLE.priceUsd],
  },
  {
    rule: 'maxBorrowCents',
    note: 'minus the existing UNIT debt',
    args: [SPEC_EXAMPLE.btcSats, 250_000, SPEC_EXAMPLE.priceUsd],
  },
  { rule: 'maxBorrowCents', note: 'never below 0', args: [BTC, 700_000, 10_000] },
  { rule: 'maxBorrowCents', note: 'unknown price: 0', args: [BTC, 0, null] },
  {
    rule: 'requiredCollateralSats',
    note: 'debt x 1.6 / price x 1e8, rounded up',
    args: [100_001, 97_123.45],
  },
  {
    rule: 'maxWithdrawSats',
    note: 'SPEC §5: floor(vault sats - debt x 1.6 / price x 1e8) - cost - minimum vault balance',
    args: [{ vaultSats: BTC, unitCents: 312_500, priceUsd: 10_000, operationCostSats: 2_000 }],
  },
  {
    rule: 'maxWithdrawSats',
    note: 'never below 0',
    args: [{ vaultSats: BTC, unitCents: 625_000, priceUsd: 10_000, operationCostSats: 2_000 }],
  },
  {
    rule: 'maxDepositSats',
    note: 'SPEC §5: wallet sats minus operation cost',
    args: [{ walletSats: 1_000_000, operationCostSats: 4_321, forCreate: false }],
  },
  {
    rule: 'maxDepositSats',
    note: 'SPEC §5: creating a vault also leaves out the dust limit (546)',
    args: [{ walletSats: 1_000_000, operationCostSats: 4_321, forCreate: true }],
  },
  {
    rule: 'maxRepayCents',
    note: 'SPEC §5: smaller of UNIT rune balance and UNIT debt',
    args: [{ runeBalanceCents: 50_000, debtCents: 625_000 }],
  },
  {
    rule: 'avoidDustChange',
    note: 'SPEC §5: an amount within the dust limit below the maximum is reduced',
    args: [99_800, 100_000],
  },
  { rule: 'avoidDustChange', note: 'the maximum itself is kept', args: [100_000, 100_000] },
];

const feeInput = (action: VaultAction) => ({
  action,
  paymentInputs: action === 'withdraw' ? 0 : 1,
});

const fees: RuleCase[] = [
  { rule: 'capFeeRate', note: 'SPEC §9: under the cap, kept', args: [50, 100_000] },
  {
    rule: 'capFeeRate',
    note: 'SPEC §9: 1000 vB at the rate may cost at most 1000 USD: floor(1e10 / price_cents)',
    args: [5_000, 100_000],
  },
  { rule: 'capFeeRate', note: 'never below 1 sat/vB', args: [5, 200_000_000] },
  { rule: 'capFeeRate', note: 'unknown price: the rate as it is', args: [5_000, null] },
  ...VAULT_ACTIONS.map((action) => ({
    rule: 'estimateVsize',
    note: `docs/protocol.md transaction layout of ${action}, off mode`,
    args: [feeInput(action)],
  })),
  ...VAULT_ACTIONS.map((action) => ({
    rule: 'estimateVsize',
    note: `${action} with the guardian network: quorum commitment, 3 oracles`,
    args: [{ ...feeInput(action), quorumCommitment: true, oracles: 3 }],
  })),
  {
    rule: 'networkFeeSats',
    note: 'estimated vsize x fee rate, rounded up',
    args: [{ action: 'borrow', paymentInputs: 2, feeRate: 3.5 }],
  },
  ...(['open', 'borrow', 'deposit', 'repay'] as const).map((action) => ({
    rule: 'operationCostSats',
    note: 'SPEC §9: (vsize + 350 vB) x fee rate, rounded up, plus UNIT postage where UNIT is sent',
    args: [{ action, paymentInputs: 1, feeRate: 12 }],
  })),
  {
    rule: 'repossessionClaim',
    note: 'the claimant takes 85%, the treasury 15% rounded down',
    args: [1_234_567],
  },
];

const actions: RuleCase[] = [
  {
    rule: 'applyAction',
    note: 'open takes both amounts',
    args: [{ btcSats: 0, unitCents: 0 }, 'open', { btcSats: BTC, unitCents: 625_000 }],
  },
  {
    rule: 'applyAction',
    note: 'withdraw: the fee comes out of the vault',
    args: [{ btcSats: BTC, unitCents: 312_500 }, 'withdraw', 1_000_000, { feeSats: 1_234 }],
  },
  {
    rule: 'applyAction',
    note: 'repay',
    args: [{ btcSats: BTC, unitCents: 312_500 }, 'repay', 12_500],
  },
];

export interface SpecRuleVector extends RuleCase {
  result: unknown;
}

export interface SpecRuleVectors {
  about: string;
  units: Record<string, string>;
  vectors: SpecRuleVector[];
}

/** The result of a rule on a vector's arguments, in the file's JSON form. */
export function runRule(rule: string, args: unknown[]): unknown {
  const fn = RULES[rule];
  if (!fn) throw new Error(`no rule named ${rule}`);
  return toVectorJson((fn as (...a: unknown[]) => unknown)(...args));
}

export function specRuleVectors(): SpecRuleVectors {
  return {
    about:
      'The SPEC.md rules as packages/protocol computes them: collateral ratio, health bands, liquidation price, action maxima, fees. Each vector names the function (`rule`), its arguments in order and its result.',
    units: {
      btcSats: 'sats (1 BTC = 100000000)',
      debtCents: 'UNIT hundredths (1 UNIT = 100)',
      priceUsd: 'USD per BTC, at most 2 decimals; null = unknown',
      result: 'exact integers (sats, UNIT hundredths, USD cents) as decimal strings',
    },
    vectors: [...ratioCases, ...priceCases, ...maxima, ...fees, ...actions].map((c) => ({
      ...c,
      result: runRule(c.rule, c.args),
    })),
  };
}
