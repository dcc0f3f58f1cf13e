import { useEffect, useState } from 'react';
import { useConfig } from '../api/config';
import { usePosition } from '../api/position';
import { Sheet } from '../ui/Sheet';
import { TxLink } from '../ui/TxLink';
import { useWallet, WalletPicker } from '../wallet';
import {
  DEFAULT_FEE_LABEL,
  RETRY_COUNTDOWN_SECONDS,
  VAULT_NAME_MAX,
  applyAction,
  avoidDustChange,
  content,
  feeOptions,
  formatBtc,
  formatHundredths,
  isNoAccountsError,
  maxBorrowCents,
  maxDepositSats,
  maxRepayCents,
  maxWithdrawSats,
  operationCostSats,
  toUserMessage,
  validateBtcAmount,
  validateUnitAmount,
  validateVaultName,
  type FeeLabel,
  type FlowAction,
} from '../protocol-gaps';
import { AmountInput, amountOf, type AmountValue } from './AmountInput';
import { BeforeAfter } from './BeforeAfter';
import { FLOWS, type FlowDecl } from './declarations';
import type { FlowState } from './engine';
import type { FlowInput } from './execute';
import { FeeSelector } from './FeeSelector';
import { useFlows } from './FlowProvider';
import './flows.css';

interface FormState {
  name: string;
  btc: AmountValue;
  unit: AmountValue;
  fee: FeeLabel;
}

const emptyForm = (): FormState => ({
  name: '',
  btc: { text: '', mode: 'BTC' },
  unit: { text: '', mode: 'UNIT' },
  fee: DEFAULT_FEE_LABEL,
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

function FlowSteps({ flow, decl }: { flow: FlowState; decl: FlowDecl }) {
  const flows = useFlows();
  const config = useConfig();
  const wallet = useWallet();
  const position = usePosition();
  const [form, setForm] = useState<FormState>(emptyForm);
  const [lastInput, setLastInput] = useState<FlowInput | null>(null);
  const [pickerOpen, setPickerOpen] = useState(false);
  const step = decl.steps[flow.step]!;
  const c = config.constants;

  const options = feeOptions(position.fees, position.priceUsd);
  const feeRate = options.find((o) => o.label === form.fee)?.fee ?? 1;
  const guardianAction = decl.guardianAction;
  const cost = operationCostSats(guardianAction, feeRate, c.unitPostageSats);
  const walletSats = position.walletSats ?? 0n;
  const before = { sats: position.sats, debtCents: position.debtCents };

  // Maxima and validation, all from the protocol rules (SPEC §5).
  const forCreate = flow.action === 'create';
  let maxSats = 0n;
  let availableSats = 0n;
  if (flow.action === 'deposit' || forCreate) {
    maxSats = maxDepositSats(walletSats, cost, BigInt(c.dustLimitSats), forCreate);
    availableSats = walletSats;
  } else if (flow.action === 'withdraw' && position.priceCents != null) {
    maxSats = maxWithdrawSats({
      vaultSats: position.sats,
      debtCents: position.debtCents,
      priceCents: position.priceCents,
      collateralPercent: c.collateralPercent,
      costSats: cost,
      minVaultBalanceSats: BigInt(c.minVaultBalanceSats),
    });
    availableSats = maxSats;
  }
  const sats = avoidDustChange(
    amountOf(form.btc, position.priceCents),
    maxSats,
    BigInt(c.dustLimitSats),
  );
  const createBorrowMax =
    forCreate && position.priceCents != null
      ? // Only what the wallet can actually deposit backs the borrow, not an over-typed amount.
        maxBorrowCents(
          sats < maxSats ? sats : maxSats,
          0n,
          position.priceCents,
          c.collateralPercent,
        )
      : 0n;
  const maxCents =
    flow.action === 'borrow' && position.priceCents != null
      ? maxBorrowCents(position.sats, position.debtCents, position.priceCents, c.collateralPercent)
      : flow.action === 'repay'
        ? maxRepayCents(position.runeCents ?? 0n, position.debtCents)
        : createBorrowMax;
  const cents = amountOf(form.unit, position.priceCents);

  const btcError =
    decl.amount === 'unit'
      ? null
      : validateBtcAmount({
          sats: amountOf(form.btc, position.priceCents),
          minSats: BigInt(c.minBtcSats),
          maxSats: availableSats,
          mode: form.btc.mode === 'USD' ? 'USD' : 'BTC',
        });
  const unitError = decl.amount === 'btc' ? null : validateUnitAmount(cents, maxCents);
  const costError =
    (flow.action === 'borrow' || flow.action === 'repay') && walletSats < cost
      ? content.validation.costExceedsWallet(
          `${formatBtc(cost)} BTC`,
          `${formatBtc(walletSats)} BTC`,
        )
      : null;
  const priceError =
    (forCreate || flow.action === 'withdraw' || flow.action === 'borrow') &&
    position.priceCents == null
      ? content.validation.noPrice
      : null;
  const amountOk =
    decl.amount === 'btc'
      ? sats > 0n
      : decl.amount === 'unit'
        ? cents > 0n
        : sats > 0n && cents > 0n;
  const formValid =
    amountOk &&
    !btcError &&
    !unitError &&
    !costError &&
    !priceError &&
    (!forCreate || wallet.account != null);

  const after = applyAction(before, flow.action, decl.amount === 'unit' ? cents : sats, {
    borrowCents: cents,
    costSats: cost,
  });

  const start = () => {
    const input: FlowInput = { name: form.name.trim(), sats, cents, feeRate };
    setLastInput(input);
    void flows.run(input);
  };

  const nameError = validateVaultName(form.name);

  switch (step.kind) {
    case 'name':
      return (
        <form
          className="flow-step"
          onSubmit={(e) => {
            e.preventDefault();
            // SPEC §5: Enter advances when there is no error.
            if (form.name.trim() && !nameError) flows.dispatch({ type: 'next' });
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
            <span className="counter">
              {form.name.length}/{VAULT_NAME_MAX}
            </span>
          </div>
          <footer className="flow-actions">
            <button
              type="submit"
              className="btn btn--primary"
              disabled={!form.name.trim() || nameError != null}
            >
              {step.primary}
            </button>
          </footer>
        </form>
      );

    case 'form': {
      if (forCreate && !wallet.account)
        return (
          <div className="flow-step">
            <h3>{content.wallet.connect}</h3>
            <p className="muted">{content.wallet.prompt}</p>
            <WalletPicker open={pickerOpen} onOpenChange={setPickerOpen} />
            <footer className="flow-actions">
              <button
                type="button"
                className="btn"
                onClick={() => flows.dispatch({ type: 'back' })}
              >
                Back
              </button>
              <button
                type="button"
                className="btn btn--primary"
                onClick={() => setPickerOpen(true)}
              >
                {content.wallet.connect}
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
              value={form.btc}
              onChange={(btc) => setForm({ ...form, btc })}
              max={maxSats}
              available={availableSats}
              priceCents={position.priceCents}
              intDigits={c.amountIntDigits}
              error={btcError ?? priceError}
              hint={
                flow.action === 'withdraw'
                  ? content.vault.withdrawTooltip
                  : `Available: ${formatBtc(maxSats)} BTC`
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
              priceCents={position.priceCents}
              intDigits={c.amountIntDigits}
              error={unitError ?? costError ?? (forCreate ? null : priceError)}
              hint={`Up to ${formatHundredths(maxCents)} UNIT`}
            />
          )}
          <FeeSelector
            options={options}
            value={form.fee}
            onChange={(fee) => setForm({ ...form, fee })}
          />
          <p className="muted">Estimated network cost: {formatBtc(cost)} BTC</p>
          <BeforeAfter before={before} after={after} priceCents={position.priceCents} />
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
              <dd>{formatBtc(sats)} BTC</dd>
            </div>
            <div>
              <dt>Borrow</dt>
              <dd>{formatHundredths(cents)} UNIT</dd>
            </div>
            <div>
              <dt>Network fee</dt>
              <dd>
                {form.fee} · {feeRate} sat/vB
              </dd>
            </div>
          </dl>
          <BeforeAfter before={before} after={after} priceCents={position.priceCents} />
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
          onRetry={lastInput ? () => void flows.run(lastInput) : null}
        />
      );

    case 'success':
      return (
        <div className="flow-step flow-step--success">
          <p className="success-mark" aria-hidden="true">
            ✓
          </p>
          <h3>{decl.successTitle}</h3>
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
  const offerRetry = failed && decl.retryOnNoAccounts && isNoAccountsError(flow.error);
  return (
    <div className="flow-step">
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
      {left > 0 ? `Try again (${left}s)` : content.errorScreen.tryAgain}
    </button>
  );
}

/** Opens the drawer of a flow; exported for the dashboard and the ?action= handler. */
export type OpenFlow = (action: FlowAction) => void;
