import {
  CONTENT,
  DEFAULT_FEE_SPEED,
  ERROR_MESSAGES,
  POSTAGE_COPY,
  VALIDATION_MESSAGES,
  avoidDustChange,
  cappedFeeOptions,
  collateralRatio,
  defaultPaymentInputs,
  formatHealth,
  formatUsdCents,
  fundedPostageSats,
  isKnownPrice,
  isRiskyRatio,
  minBigint,
  networkFeeSats,
  operationCostSats,
  outputScriptBytes,
  sats as toSats,
  satsValueUsdCents,
  selectedFeeRate,
  unitCents as toUnitCents,
  validateBtcAmount,
  validateOperationCost,
  validateUnitAmount,
  type ConfigConstants,
  type FeeSpeed,
  type Sats,
  type UnitCents,
  type VaultState,
  termSizing,
} from '@unit/protocol';
import type { Position } from '../api/position';
import { formatAmount } from '../ui/format';
import { amountOf, textOf, type AmountValue } from './AmountInput';
import type { FlowDecl, MaxContext } from './declarations';
import type { MaxDepositAt } from './max-deposit';
import { previewAfter } from './preview';
import { flowFacts, vaultActionOf } from './vault-action';

// What an amounts form shows and allows, computed from what was typed and the flow's declaration
// (its fields' maxima, its checks): all from the protocol's rules (SPEC §5, §9).

export interface FormState {
  name: string;
  btc: AmountValue;
  unit: AmountValue;
  fee: FeeSpeed;
}

export const emptyForm = (): FormState => ({
  name: '',
  btc: { text: '', mode: 'BTC' },
  unit: { text: '', mode: 'UNIT' },
  fee: DEFAULT_FEE_SPEED,
});

/** The wallet's UTXOs behind Max (SPEC §5), fetched when Max is chosen. */
export type MaxPlan =
  { status: 'loading' } | { status: 'error' } | { status: 'ready'; maxAt: MaxDepositAt };

export interface FormInputs {
  decl: FlowDecl;
  form: FormState;
  position: Position;
  constants: ConfigConstants;
  postage: { sats: number; levelTitle: string | null };
  satsAddress: string | null;
  /** the wallet's sats still in the mempool */
  incomingSats: bigint;
  /** Max chosen: the amount is the refined maximum at whatever fee rate is selected */
  atMax: boolean;
  maxPlan: MaxPlan | null;
}

/**
 * The postage the action's payment funds, said where the fee is (docs/protocol.md): the bitcoin
 * the UNIT arrives with (the referral level's, README "Accounts and community"), or the UNIT's
 * postage back to the treasury.
 */
function postageLine(i: FormInputs): string | null {
  // Which postage the action's payment funds is the protocol's rule (fees.ts).
  const action = vaultActionOf(i.decl.action);
  if (action === null) return null;
  const funded = fundedPostageSats(action, i.postage.sats, i.constants.unitPostageSats);
  if (funded === 0n) return null;
  const usd = satsValueUsdCents(funded, i.position.priceUsd);
  const amount = `${funded.toLocaleString('en-US')} sats${usd != null ? ` (${formatUsdCents(usd)})` : ''}`;
  if (flowFacts(i.decl.action).postageToTreasury) return POSTAGE_COPY.toTreasury(amount);
  return POSTAGE_COPY.toYou(amount, i.postage.levelTitle);
}

/** The fee rate chosen and what the transaction costs at it (SPEC §9). */
export function formCosts(i: FormInputs) {
  const { decl, position, constants } = i;
  // SPEC §9: each option's rate is capped so 1000 vB never cost more than 1000 USD.
  const options = cappedFeeOptions(position.fees, position.priceUsd);
  const feeRate = selectedFeeRate(options, i.form.fee);
  // A speed-up has no action of its own: its fee is SpeedUpForm's, from the transaction it replaces.
  const action = vaultActionOf(decl.action);
  const costInput = action && {
    action,
    paymentInputs: defaultPaymentInputs(action),
    feeRate,
    postageSats: i.postage.sats,
    treasuryPostageSats: constants.unitPostageSats,
    // The guardian network's records commit to the price quorum: 32 bytes more (/api/config).
    quorumCommitment: constants.priceQuorum === true,
    // Layout 2: the record's term and the spent vault's deeper leaf (/api/config's vaultTerm).
    ...termSizing(constants),
    // A fee paid from the vault, priced for the wallet's own address, is the fee the transaction
    // pays, so the vault after it previewed here is the one it makes.
    ...(flowFacts(decl.action).feeFromVault && i.satsAddress
      ? { withdrawalScriptBytes: outputScriptBytes(i.satsAddress) }
      : {}),
  };
  // Maxima and balance checks keep SPEC §9's vin allowance; what is shown and previewed is the fee
  // the transaction is expected to pay (the allowance doubled the figure shown).
  const networkFee = costInput ? networkFeeSats(costInput) : toSats(0);
  const usdOf = (value: bigint) => {
    const cents = satsValueUsdCents(value, position.priceUsd);
    return cents != null ? formatUsdCents(cents) : null;
  };
  return {
    options,
    feeRate,
    cost: costInput ? operationCostSats(costInput) : toSats(0),
    networkFee,
    feeUsd: usdOf(networkFee),
    postageUsd: usdOf(BigInt(i.postage.sats)),
    postageNote: postageLine(i),
  };
}

export type FormCosts = ReturnType<typeof formCosts>;

/** The amounts as typed and their maxima (SPEC §5), from the declaration's fields. */
export function formAmounts(i: FormInputs, cost: Sats, feeRate: number) {
  const { decl, position, form } = i;
  const walletSats = position.walletSats ?? toSats(0);
  // SPEC §5: once Max has been refined from the wallet's UTXOs, that is the maximum.
  const refinedMax = i.maxPlan?.status === 'ready' ? i.maxPlan.maxAt(feeRate) : null;
  const refinedSats = refinedMax != null ? toSats(refinedMax) : null;
  const ctx: MaxContext = {
    walletSats,
    vaultSats: position.sats,
    debtCents: position.debtCents,
    runeCents: position.runeCents,
    priceUsd: position.priceUsd,
    costSats: cost,
    refinedSats,
    constants: i.constants,
  };
  const btc = decl.form.btc;
  const maxSats = btc ? btc.max(ctx) : toSats(0);
  // The UTXOs the refinement found are spendable even before the balance counts them confirmed.
  const availableSats: Sats = !btc
    ? toSats(0)
    : !btc.refinesMax
      ? maxSats
      : refinedSats != null && refinedSats > walletSats
        ? refinedSats
        : walletSats;
  // At Max the field shows the refined maximum and its exact sats count (no USD rounding).
  const atRefinedMax = i.atMax && refinedSats != null;
  const btcValue: AmountValue = atRefinedMax
    ? { mode: form.btc.mode, text: textOf(refinedSats, form.btc.mode, position.priceUsd) }
    : form.btc;
  const typedSats = atRefinedMax ? refinedSats : toSats(amountOf(form.btc, position.priceUsd));
  const sats = avoidDustChange(typedSats, maxSats, i.constants.dustLimitSats);
  const depositSats = toSats(minBigint(sats, maxSats));
  const maxCents: UnitCents = decl.form.unit?.max({ ...ctx, depositSats }) ?? toUnitCents(0);
  const cents = toUnitCents(amountOf(form.unit, position.priceUsd));
  return {
    walletSats,
    refinedSats,
    maxSats,
    availableSats,
    btcValue,
    typedSats,
    sats,
    maxCents,
    cents,
  };
}

/** Everything the amounts form and the confirmation step show. */
export function formModel(i: FormInputs) {
  const { decl, position, form } = i;
  const c = i.constants;
  const costs = formCosts(i);
  const a = formAmounts(i, costs.cost, costs.feeRate);
  const priceUsd = position.priceUsd;
  const balanceLoading = position.walletSats == null && i.satsAddress != null;
  const refining = i.atMax && i.maxPlan?.status === 'loading';
  // SPEC §8: the refinement failed (the UTXOs could not be had, or none can pay at this rate).
  const maxError =
    i.atMax &&
    (i.maxPlan?.status === 'error' || (i.maxPlan?.status === 'ready' && a.refinedSats == null))
      ? ERROR_MESSAGES.maxDepositUtxo
      : null;
  const btcError = !decl.form.btc
    ? null
    : (maxError ??
      validateBtcAmount({
        amountSats: a.typedSats,
        minSats: c.minBtcSats,
        maxSats: a.availableSats,
        currency: form.btc.mode === 'USD' ? 'USD' : 'BTC',
      }));
  const unitError = decl.form.unit
    ? validateUnitAmount({ amountCents: a.cents, maxCents: a.maxCents })
    : null;
  const costError = flowFacts(decl.action).checksWalletCost
    ? validateOperationCost({ walletSats: a.walletSats, costSats: costs.cost })
    : null;
  const priceError =
    decl.form.needsPrice && !isKnownPrice(priceUsd) ? VALIDATION_MESSAGES.noPrice : null;
  const amountOk = decl.form.complete
    ? decl.form.complete({ sats: a.sats, cents: a.cents, priceUsd })
    : (!decl.form.btc || a.sats > 0n) && (!decl.form.unit || a.cents > 0n);
  // A balance still loading, or sats still in the mempool (a new devnet wallet's faucet payment),
  // is not 'Available: 0 BTC' nor 'Not Enough Bitcoin': the field says which it is.
  const fundsArriving =
    i.incomingSats > 0n &&
    (btcError === VALIDATION_MESSAGES.notEnoughBitcoin ||
      btcError === VALIDATION_MESSAGES.notEnoughUsd);
  const shownBtcError = balanceLoading
    ? null
    : fundsArriving
      ? CONTENT.walletFunds.arrivingReason(formatAmount(i.incomingSats, 'BTC'))
      : btcError;
  const formValid =
    amountOk &&
    !balanceLoading &&
    !refining &&
    !btcError &&
    !unitError &&
    !costError &&
    !priceError;
  const before: VaultState = { btcSats: position.sats, unitCents: position.debtCents };
  const after = previewAfter(before, decl.action, {
    sats: a.sats,
    cents: a.cents,
    feeSats: costs.networkFee,
  });
  // Warned before confirming a vault left in the Risky band (as Liquity v2 does).
  const ratioAfter =
    formValid && after ? collateralRatio(after.btcSats, after.unitCents, priceUsd) : NaN;
  return {
    ...costs,
    ...a,
    priceUsd,
    balanceLoading,
    refining,
    shownBtcError,
    unitError,
    costError,
    priceError,
    formValid,
    before,
    after,
    riskyAfter: isRiskyRatio(ratioAfter) ? formatHealth(ratioAfter) : null,
  };
}

export type FormModel = ReturnType<typeof formModel>;
