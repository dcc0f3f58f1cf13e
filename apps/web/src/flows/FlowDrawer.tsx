import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useConfig } from '../api/config';
import { useAccountPostage } from '../api/missions';
import { useIncomingSats } from '../api/incoming';
import { usePosition } from '../api/position';
import { formatAmount } from '../ui/format';
import { Sheet } from '../ui/Sheet';
import { TxLink } from '../ui/TxLink';
import { useWallet, WalletChoices } from '../wallet';
import { WalletError } from '../wallet/errors';
import {
  CONTENT,
  DEFAULT_FEE_SPEED,
  ERROR_MESSAGES,
  FEE_LABELS,
  RETRY_COUNTDOWN_SECONDS,
  VALIDATION_MESSAGES,
  avoidDustChange,
  canContinueWithVaultName,
  centsToUnitString,
  defaultPaymentInputs,
  isKnownPrice,
  isNoAccountsError,
  maxBorrowCents,
  maxDepositSats,
  maxRepayCents,
  maxWithdrawSats,
  minBigint,
  fundedPostageSats,
  networkFeeSats,
  operationCostSats,
  sats as toSats,
  satsToBtcString,
  selectedFeeRate,
  toUserMessage,
  unitCents as toUnitCents,
  validateBtcAmount,
  validateCreateVault,
  validateOperationCost,
  validateUnitAmount,
  validateVaultName,
  vaultNameCounter,
  type FeeSpeed,
  type PriceInput,
  type Sats,
  type UnitCents,
  cappedFeeOptions,
  collateralRatio,
  formatHealth,
  formatUsdCents,
  isRiskyRatio,
  outputScriptBytes,
  satsValueUsdCents,
} from '@unit/protocol';
import { AmountInput, amountOf, textOf, type AmountValue } from './AmountInput';
import { BeforeAfter } from './BeforeAfter';
import { FLOWS, type FlowAction, type FlowDecl } from './declarations';
import type { FlowState } from './engine';
import type { FlowInput } from './flow-types';
import { FeeSelector } from './FeeSelector';
import { useFlows } from './FlowProvider';
import type { MaxDepositAt, MaxDepositRequest } from './max-deposit';
import { previewAfter, type FlowPreview } from './preview';
import { RepossessReview } from './RepossessReview';
import { SpeedUpForm } from './SpeedUpForm';
import './flows.css';

const READING = CONTENT.reading;

interface FormState {
  name: string;
  btc: AmountValue;
  unit: AmountValue;
  fee: FeeSpeed;
}

/** The wallet's UTXOs behind Max (SPEC §5), fetched when Max is chosen. */
type MaxPlan =
  { status: 'loading' } | { status: 'error' } | { status: 'ready'; maxAt: MaxDepositAt };

// The refinement needs the Bitcoin libraries: loaded on the first Max, never with the dashboard.
const loadMaxDeposit = async (request: MaxDepositRequest) =>
  (await import('./max-deposit')).loadMaxDeposit(request);

const emptyForm = (): FormState => ({
  name: '',
  btc: { text: '', mode: 'BTC' },
  unit: { text: '', mode: 'UNIT' },
  fee: DEFAULT_FEE_SPEED,
});

/** The one drawer of every flow: what it shows comes from the flow's declaration. */
export function FlowDrawer() {
  const flows = useFlows();
  const { flow } = flows;
  if (!flow) return null;
  const decl = FLOWS[flow.action];
  const step = decl.steps[flow.step]!;
  return (
    <Sheet
      open={flows.drawerOpen}
      onOpenChange={flows.setDrawerOpen}
      placement="drawer"
      title={
        step.kind === 'tracker' && flow.status === 'confirmed' ? decl.successTitle : step.title
      }
      description={`Step ${flow.step + 1} of ${decl.steps.length}`}
    >
      <FlowSteps key={`${flow.action}-${flow.formKey}`} flow={flow} decl={decl} />
    </Sheet>
  );
}

/**
 * The postage the action's payment funds, said where the fee is (docs/protocol.md): the bitcoin
 * the UNIT arrives with (the referral level's, README "Accounts and community"), or the UNIT's
 * postage back to the treasury.
 */
function postageLine(
  action: FlowDecl['guardianAction'],
  postage: { sats: number; levelTitle: string | null },
  treasuryPostage: number,
  priceUsd: PriceInput,
): string | null {
  // Which postage the action's payment funds is the protocol's rule (fees.ts).
  const funded = fundedPostageSats(action, postage.sats, treasuryPostage);
  if (funded === 0n) return null;
  const usd = satsValueUsdCents(funded, priceUsd);
  const amount = `${funded.toLocaleString('en-US')} sats${usd != null ? ` (${formatUsdCents(usd)})` : ''}`;
  if (action === 'repay') return `UNIT postage: ${amount}, sent with the UNIT to the treasury`;
  const level = postage.levelTitle ? ` (${postage.levelTitle})` : '';
  return `UNIT postage${level}: ${amount}, kept with your UNIT`;
}

function FlowSteps({ flow, decl }: { flow: FlowState; decl: FlowDecl }) {
  const flows = useFlows();
  const config = useConfig();
  const wallet = useWallet();
  const position = usePosition();
  const [form, setForm] = useState<FormState>(emptyForm);
  const [lastRun, setLastRun] = useState<{ input: FlowInput; preview: FlowPreview } | null>(null);
  const [maxPlan, setMaxPlan] = useState<MaxPlan | null>(null);
  // Max chosen: the amount is the refined maximum at whatever fee rate is selected.
  const [atMax, setAtMax] = useState(false);
  // Only the latest Max counts: typing or another Max meanwhile makes an answer stale.
  const maxRun = useRef(0);
  const step = decl.steps[flow.step]!;
  const c = config.constants;

  // A form that spends the wallet's sats reads them afresh: a transaction that confirmed since the
  // balance was fetched has changed it, and the maxima follow it (SPEC §5).
  const queryClient = useQueryClient();
  useEffect(() => {
    void queryClient.invalidateQueries({ queryKey: ['balance'] });
  }, [queryClient]);

  const priceUsd = position.priceUsd;
  // SPEC §9: each option's rate is capped so 1000 vB never cost more than 1000 USD.
  const options = cappedFeeOptions(position.fees, priceUsd);
  const feeRate = selectedFeeRate(options, form.fee);
  const guardianAction = decl.guardianAction;
  const postage = useAccountPostage(config, wallet.account?.satsAddress ?? null);
  const postageSats = postage.sats;
  const postageNote = postageLine(guardianAction, postage, c.unitPostageSats, priceUsd);
  const satsAddress = wallet.account?.satsAddress;
  const costInput = {
    action: guardianAction,
    paymentInputs: defaultPaymentInputs(guardianAction),
    feeRate,
    postageSats,
    treasuryPostageSats: c.unitPostageSats,
    // A withdraw's fee comes out of the vault: priced for the wallet's own address, it is the fee
    // the transaction pays, so the vault after it previewed here is the one it makes (issue 22).
    ...(guardianAction === 'withdraw' && satsAddress
      ? { withdrawalScriptBytes: outputScriptBytes(satsAddress) }
      : {}),
  };
  // Maxima and balance checks keep SPEC §9's vin allowance; what is shown and previewed is the fee
  // the transaction is expected to pay (issue 15: the allowance doubled the figure shown).
  const cost = operationCostSats(costInput);
  const networkFee = networkFeeSats(costInput);
  const walletSats = position.walletSats ?? toSats(0);
  // A balance still loading, or sats still in the mempool (a new devnet wallet's faucet payment),
  // is not 'Available: 0 BTC' nor 'Not Enough Bitcoin' (issue 15): the field says which it is.
  const incoming = useIncomingSats(config, wallet.account?.satsAddress ?? null).data ?? 0n;
  const balanceLoading = position.walletSats == null && wallet.account != null;
  const before = { btcSats: position.sats, unitCents: position.debtCents };

  // Maxima and validation, all from the protocol rules (SPEC §5).
  const forCreate = flow.action === 'create';
  const refinesMax = forCreate || flow.action === 'deposit';
  // SPEC §5: once Max has been refined from the wallet's UTXOs, that is the maximum.
  const refinedMax = maxPlan?.status === 'ready' ? maxPlan.maxAt(feeRate) : null;
  const refinedSats = refinedMax != null ? toSats(refinedMax) : null;
  let maxSats: Sats = toSats(0);
  let availableSats: Sats = toSats(0);
  if (refinesMax) {
    maxSats =
      refinedSats ??
      maxDepositSats({
        walletSats,
        operationCostSats: cost,
        forCreate,
        dustLimitSats: c.dustLimitSats,
      });
    // The UTXOs the refinement found are spendable even before the balance counts them confirmed.
    availableSats = refinedSats != null && refinedSats > walletSats ? refinedSats : walletSats;
  } else if (flow.action === 'withdraw') {
    maxSats = maxWithdrawSats({
      vaultSats: position.sats,
      unitCents: position.debtCents,
      priceUsd,
      operationCostSats: cost,
      minVaultBalanceSats: c.minVaultBalanceSats,
      collateralPercent: c.collateralPercent,
    });
    availableSats = maxSats;
  }
  // At Max the field shows the refined maximum and its exact sats count (no USD rounding).
  const btcValue: AmountValue =
    atMax && refinedSats != null
      ? { mode: form.btc.mode, text: textOf(refinedSats, form.btc.mode, priceUsd) }
      : form.btc;
  const typedSats =
    atMax && refinedSats != null ? refinedSats : toSats(amountOf(form.btc, priceUsd));
  const sats = avoidDustChange(typedSats, maxSats, c.dustLimitSats);
  // Only what the wallet can actually deposit backs the create borrow, not an over-typed amount.
  const createBorrowMax = forCreate
    ? maxBorrowCents(toSats(minBigint(sats, maxSats)), 0, priceUsd, c.collateralPercent)
    : toUnitCents(0);
  const maxCents: UnitCents =
    flow.action === 'borrow'
      ? maxBorrowCents(position.sats, position.debtCents, priceUsd, c.collateralPercent)
      : flow.action === 'repay'
        ? maxRepayCents({
            runeBalanceCents: position.runeCents ?? 0,
            debtCents: position.debtCents,
          })
        : createBorrowMax;
  const cents = toUnitCents(amountOf(form.unit, priceUsd));

  const refining = atMax && maxPlan?.status === 'loading';
  // SPEC §8: the refinement failed (the UTXOs could not be had, or none can pay at this rate).
  const maxError =
    atMax && (maxPlan?.status === 'error' || (maxPlan?.status === 'ready' && refinedSats == null))
      ? ERROR_MESSAGES.maxDepositUtxo
      : null;
  const btcError =
    decl.amount === 'unit'
      ? null
      : (maxError ??
        validateBtcAmount({
          amountSats: typedSats,
          minSats: c.minBtcSats,
          maxSats: availableSats,
          currency: form.btc.mode === 'USD' ? 'USD' : 'BTC',
        }));
  const unitError =
    decl.amount === 'btc' ? null : validateUnitAmount({ amountCents: cents, maxCents });
  const costError =
    flow.action === 'borrow' || flow.action === 'repay'
      ? validateOperationCost({ walletSats, costSats: cost })
      : null;
  const priceError =
    (forCreate || flow.action === 'withdraw' || flow.action === 'borrow') && !isKnownPrice(priceUsd)
      ? VALIDATION_MESSAGES.noPrice
      : null;
  const amountOk = forCreate
    ? validateCreateVault({
        walletConnected: wallet.account != null,
        btcSats: sats,
        unitCents: cents,
        priceUsd,
      }).ok
    : decl.amount === 'btc'
      ? sats > 0n
      : cents > 0n;
  const fundsArriving =
    incoming > 0n &&
    (btcError === VALIDATION_MESSAGES.notEnoughBitcoin ||
      btcError === VALIDATION_MESSAGES.notEnoughUsd);
  const shownBtcError = balanceLoading
    ? null
    : fundsArriving
      ? CONTENT.walletFunds.arrivingReason(formatAmount(incoming, 'BTC'))
      : btcError;
  const formValid =
    amountOk &&
    !balanceLoading &&
    !refining &&
    !btcError &&
    !unitError &&
    !costError &&
    !priceError;

  const after = previewAfter(before, flow.action, { sats, cents, feeSats: networkFee });
  const feeUsdCents = satsValueUsdCents(networkFee, priceUsd);
  const feeUsd = feeUsdCents != null ? formatUsdCents(feeUsdCents) : null;
  const postageUsdCents = satsValueUsdCents(postageSats, priceUsd);
  const postageUsd = postageUsdCents != null ? formatUsdCents(postageUsdCents) : null;
  // Warned before confirming a vault left in the Risky band (issue 22, as Liquity v2 does).
  const ratioAfter =
    formValid && after ? collateralRatio(after.btcSats, after.unitCents, priceUsd) : NaN;
  const riskyAfter = isRiskyRatio(ratioAfter) ? formatHealth(ratioAfter) : null;

  const start = () => {
    const input: FlowInput = { name: form.name.trim(), sats, cents, feeRate };
    const preview: FlowPreview = { before, after, priceUsd };
    setLastRun({ input, preview });
    void flows.run(input, preview);
  };

  const nameError = validateVaultName(form.name);

  /** SPEC §5: Max of a deposit or a vault opening, refined using the wallet's UTXOs. */
  const chooseMax = async () => {
    const account = wallet.account;
    if (!account) return;
    const run = ++maxRun.current;
    setAtMax(true);
    setMaxPlan({ status: 'loading' });
    try {
      const maxAt = await loadMaxDeposit({
        action: forCreate ? 'create' : 'deposit',
        config,
        account,
        vault: position.vault,
        priceUsd,
        postageSats,
      });
      if (run === maxRun.current) setMaxPlan({ status: 'ready', maxAt });
    } catch {
      if (run === maxRun.current) setMaxPlan({ status: 'error' });
    }
  };

  const changeBtc = (btc: AmountValue) => {
    // Switching BTC/USD keeps Max; any other change replaces it (and a Max still being fetched).
    if (atMax && btc.mode !== form.btc.mode) {
      setForm({ ...form, btc });
      return;
    }
    if (atMax) {
      setAtMax(false);
      if (maxPlan?.status !== 'ready') {
        maxRun.current++;
        setMaxPlan(null);
      }
    }
    setForm({ ...form, btc });
  };

  switch (step.kind) {
    case 'name':
      return (
        <form
          className="flow-step"
          onSubmit={(e) => {
            e.preventDefault();
            // SPEC §5: Enter advances when there is no error.
            if (canContinueWithVaultName(form.name)) flows.dispatch({ type: 'next' });
          }}
        >
          <label className="field-label" htmlFor="vault-name">
            Vault name
          </label>
          <input
            id="vault-name"
            className="text-input"
            value={form.name}
            required
            autoFocus
            aria-invalid={nameError != null}
            onChange={(e) => setForm({ ...form, name: e.target.value })}
          />
          <div className="field-meta">
            {nameError ? (
              <p className="field-error" role="alert">
                {nameError}
              </p>
            ) : (
              <span />
            )}
            <span className="counter">{vaultNameCounter(form.name)}</span>
          </div>
          <footer className="flow-actions">
            <button
              type="submit"
              className="btn btn--primary"
              disabled={!canContinueWithVaultName(form.name)}
            >
              {step.primary}
            </button>
          </footer>
        </form>
      );

    case 'form': {
      const begin = (input: FlowInput, preview: FlowPreview) => {
        setLastRun({ input, preview });
        void flows.run(input, preview);
      };
      const cancel = () => flows.setDrawerOpen(false);
      if (decl.amount === 'claim' && flows.target?.kind === 'repossess')
        return (
          <RepossessReview decl={decl} target={flows.target} onCancel={cancel} onStart={begin} />
        );
      if (decl.amount === 'fee' && flows.target?.kind === 'speedup')
        return (
          <SpeedUpForm
            decl={decl}
            target={flows.target}
            pending={flows.pending}
            onCancel={cancel}
            onStart={begin}
          />
        );
      if (forCreate && !wallet.account)
        // Issue 22: the wallets are listed in the step itself, not in a second modal over it.
        return (
          <div className="flow-step flow-step--connect">
            <h3>{CONTENT.createDrawer.connectWalletStep}</h3>
            <p className="muted">{CONTENT.walletPicker.prompt}</p>
            <div className="wallet-choices">
              <WalletChoices />
            </div>
            <footer className="flow-actions">
              <button
                type="button"
                className="btn"
                onClick={() => flows.dispatch({ type: 'back' })}
              >
                Back
              </button>
            </footer>
          </div>
        );
      return (
        <div className="flow-step">
          {decl.amount !== 'unit' && (
            <AmountInput
              label={
                forCreate
                  ? 'Deposit BTC'
                  : flow.action === 'deposit'
                    ? 'Deposit amount'
                    : 'Withdraw amount'
              }
              value={btcValue}
              onChange={changeBtc}
              max={maxSats}
              available={availableSats}
              priceUsd={priceUsd}
              intDigits={c.amountIntDigits}
              dustLimit={BigInt(c.dustLimitSats)}
              {...(refinesMax ? { onMax: () => void chooseMax(), maxBusy: refining } : {})}
              error={shownBtcError ?? priceError}
              hint={
                flow.action === 'withdraw'
                  ? `${READING.withdraw.upTo(satsToBtcString(maxSats))}. ${CONTENT.actionDrawer.withdrawTooltip}`
                  : balanceLoading
                    ? CONTENT.walletFunds.loading
                    : incoming > 0n && maxSats === 0n
                      ? `${CONTENT.walletFunds.arriving}…`
                      : `Available: ${satsToBtcString(maxSats)} BTC`
              }
            />
          )}
          {decl.amount !== 'btc' && (
            <AmountInput
              label={
                forCreate
                  ? 'Borrow UNIT'
                  : flow.action === 'borrow'
                    ? 'Borrow amount'
                    : 'Repay amount'
              }
              value={form.unit}
              onChange={(unit) => setForm({ ...form, unit })}
              max={maxCents}
              available={maxCents}
              priceUsd={priceUsd}
              intDigits={c.amountIntDigits}
              error={unitError ?? costError ?? (forCreate ? null : priceError)}
              hint={`Up to ${centsToUnitString(maxCents)} UNIT`}
            />
          )}
          <FeeSelector
            options={options}
            value={form.fee}
            onChange={(fee) => setForm({ ...form, fee })}
          />
          <div className="flow-costs muted">
            {flow.action === 'withdraw' ? (
              <>
                <p data-testid="network-fee">
                  {READING.withdraw.feeFromVault(satsToBtcString(networkFee), feeUsd)}
                </p>
                <p>{READING.withdraw.exactAmount}</p>
              </>
            ) : (
              <p data-testid="network-fee">
                {READING.networkCost(satsToBtcString(networkFee), feeUsd)}
              </p>
            )}
            {postageNote && <p>{postageNote}</p>}
          </div>
          {/* A refused amount has no "after": projecting it would show a vault that cannot be. */}
          <BeforeAfter before={before} after={formValid ? after : null} priceUsd={priceUsd} />
          {riskyAfter && <RiskyWarning ratio={riskyAfter} />}
          <footer className="flow-actions">
            <button
              type="button"
              className="btn"
              onClick={() =>
                forCreate ? flows.dispatch({ type: 'back' }) : flows.setDrawerOpen(false)
              }
            >
              {step.secondary}
            </button>
            <button
              type="button"
              className="btn btn--primary"
              disabled={!formValid}
              onClick={() => (forCreate ? flows.dispatch({ type: 'next' }) : start())}
            >
              {step.primary}
            </button>
          </footer>
        </div>
      );
    }

    case 'confirm':
      return (
        <div className="flow-step">
          <dl className="summary">
            <div>
              <dt>Vault name</dt>
              <dd>{form.name}</dd>
            </div>
            <div>
              <dt>Deposit</dt>
              <dd>{satsToBtcString(sats)} BTC</dd>
            </div>
            <div>
              <dt>Borrow</dt>
              <dd>{centsToUnitString(cents)} UNIT</dd>
            </div>
            <div>
              <dt>Network fee</dt>
              <dd>
                {FEE_LABELS[form.fee]} · {feeRate} sat/vB · about {satsToBtcString(networkFee)} BTC
                {feeUsd ? ` (${feeUsd})` : ''}
              </dd>
            </div>
            <div>
              <dt>UNIT postage</dt>
              <dd>
                {postageSats.toLocaleString('en-US')} sats
                {postageUsd ? ` (${postageUsd})` : ''}
                {postage.levelTitle ? ` · ${postage.levelTitle}` : ''}
              </dd>
            </div>
          </dl>
          <BeforeAfter before={before} after={after} priceUsd={priceUsd} />
          {riskyAfter && <RiskyWarning ratio={riskyAfter} />}
          <footer className="flow-actions">
            <button type="button" className="btn" onClick={() => flows.dispatch({ type: 'back' })}>
              {step.secondary}
            </button>
            <button type="button" className="btn btn--primary" onClick={start}>
              {step.primary}
            </button>
          </footer>
        </div>
      );

    case 'tracker':
      return (
        <Tracker
          flow={flow}
          decl={decl}
          onRetry={lastRun ? () => void flows.run(lastRun.input, lastRun.preview) : null}
        />
      );

    case 'success':
      return (
        <div className="flow-step flow-step--success">
          <p className="success-mark" aria-hidden="true">
            ✓
          </p>
          <h3>{decl.successTitle}</h3>
          {decl.keepsDrawer && <TrackerSteps flow={flow} decl={decl} />}
          {flow.result && <TxLink txid={flow.result.txid} />}
          <footer className="flow-actions">
            <button
              type="button"
              className="btn btn--primary"
              onClick={() => flows.setDrawerOpen(false)}
            >
              {step.primary}
            </button>
          </footer>
        </div>
      );
  }
}

function Tracker({
  flow,
  decl,
  onRetry,
}: {
  flow: FlowState;
  decl: FlowDecl;
  onRetry: (() => void) | null;
}) {
  const flows = useFlows();
  const [showDetails, setShowDetails] = useState(false);
  const failed = flow.status === 'error';
  // A wallet that shares no account says so in its own words: its error code is what counts.
  const noAccounts =
    isNoAccountsError(flow.error) ||
    (flow.error instanceof WalletError && flow.error.code === 'no_accounts');
  const offerRetry = failed && decl.retryOnNoAccounts && noAccounts;
  return (
    <div className="flow-step">
      <TrackerSteps flow={flow} decl={decl} />
      {failed && (
        <p className="field-error" role="alert">
          {toUserMessage(flow.error)}
        </p>
      )}
      {showDetails && (
        <dl className="summary">
          <div>
            <dt>Status</dt>
            <dd>{flow.status}</dd>
          </div>
          <div>
            <dt>Step</dt>
            <dd>
              {flow.progress} of {decl.progressSteps.length}
            </dd>
          </div>
        </dl>
      )}
      <footer className="flow-actions">
        {offerRetry && onRetry && <RetryCountdown onRetry={onRetry} />}
        {failed ? (
          <button
            type="button"
            className="btn btn--primary"
            onClick={() => flows.dispatch({ type: 'back' })}
          >
            Back
          </button>
        ) : (
          <button type="button" className="btn" onClick={() => setShowDetails((v) => !v)}>
            Details
          </button>
        )}
      </footer>
    </div>
  );
}

/** The tracker's lines: done, active, failed or to do, from the flow's progress (SPEC §4). */
function TrackerSteps({ flow, decl }: { flow: FlowState; decl: FlowDecl }) {
  const failed = flow.status === 'error';
  return (
    <ol className="tracker" aria-label="Progress">
      {decl.progressSteps.map((label, i) => {
        const n = i + 1;
        const state =
          failed && n === flow.progress
            ? 'error'
            : n < flow.progress || flow.status === 'confirmed'
              ? 'done'
              : n === flow.progress
                ? 'active'
                : 'todo';
        return (
          <li
            key={label}
            className={`tracker__step tracker__step--${state}`}
            aria-current={state === 'active' ? 'step' : undefined}
          >
            <span className="tracker__dot" aria-hidden="true">
              {state === 'done' ? '✓' : n}
            </span>
            {label}
          </li>
        );
      })}
    </ol>
  );
}

/** The Risky band's warning, in its colour, said before the button that confirms the result. */
function RiskyWarning({ ratio }: { ratio: string }) {
  return (
    <p className="risky-warning" role="status" data-testid="risky-warning">
      <span aria-hidden="true" className="risky-warning__icon">
        !
      </span>
      {READING.riskyWarning(ratio)}
    </p>
  );
}

/** SPEC §4: Try again is enabled after a 30 s countdown. */
function RetryCountdown({ onRetry }: { onRetry: () => void }) {
  const [left, setLeft] = useState(RETRY_COUNTDOWN_SECONDS);
  useEffect(() => {
    if (left <= 0) return;
    const t = setTimeout(() => setLeft((n) => n - 1), 1000);
    return () => clearTimeout(t);
  }, [left]);
  return (
    <button type="button" className="btn" disabled={left > 0} onClick={onRetry}>
      {left > 0 ? `Try again (${left}s)` : CONTENT.actionDrawer.tryAgain}
    </button>
  );
}

/** Opens the drawer of a flow; exported for the dashboard and the ?action= handler. */
export type OpenFlow = (action: FlowAction) => void;
