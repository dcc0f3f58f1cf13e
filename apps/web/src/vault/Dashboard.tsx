import { lazy, Suspense, useEffect, useState } from 'react';
import {
  CONTENT,
  DEFAULT_FEE_SPEED,
  buttonState,
  capFeeRate,
  centsToUnitString,
  defaultPaymentInputs,
  feeOptions,
  formatUsd,
  formatUsdCents,
  hasPendingInProgress,
  isKnownPrice,
  liquidationThresholdCents,
  operationCostSats,
  satsToBtcString,
  satsValueUsdCents,
  selectedFeeRate,
  type ButtonContext,
  type DashboardAction,
} from '@unit/protocol';
import { useConfig } from '../api/config';
import { usePosition } from '../api/position';
import { useVaultHistory } from '../api/vault-history';
import { useFlows } from '../flows/FlowProvider';
import { TransactionsTable } from '../transactions/TransactionsTable';
import { formatAmount } from '../ui/format';
import { ReasonButton } from '../ui/ReasonButton';
import { Sheet } from '../ui/Sheet';
import { Skeleton } from '../ui/Skeleton';
import { HealthGauge } from './HealthGauge';
import { useLiquidatedState } from './liquidated';
import { PendingBanner } from './PendingBanner';

// d3 and the chart load after the cards: the chart sits below them (bundle budget).
const RatioChart = lazy(async () => ({
  default: (await import('../chart/RatioChart')).RatioChart,
}));

export function Dashboard() {
  const config = useConfig();
  const position = usePosition();
  const flows = useFlows();
  const vault = position.vault!;
  const history = useVaultHistory(vault.vault_id);
  const hasDebt = position.debtCents > 0n;
  const liquidated =
    useLiquidatedState(vault.vault_id, position.ratio) || vault.status === 'liquidated';
  const [liquidationModal, setLiquidationModal] = useState(liquidated);
  const [shownFor, setShownFor] = useState(liquidated);
  if (liquidated !== shownFor) {
    setShownFor(liquidated);
    setLiquidationModal(liquidated);
  }

  // SPEC §4: a pending entry completes once the vault history holds its transaction.
  const { syncPending } = flows;
  useEffect(() => {
    if (history.data) syncPending(history.data);
  }, [history.data, syncPending]);

  // SPEC §4 Button enablement, each action quoted at the default (Fast, SPEC §9) fee rate.
  const feeRate = selectedFeeRate(
    feeOptions(position.fees).map((o) => ({ ...o, fee: capFeeRate(o.fee, position.priceUsd) })),
    DEFAULT_FEE_SPEED,
  );
  // A flow past its form (signing or submitting) is a pending transaction for every button; an open
  // drawer makes its action the active one, which disables the others.
  const flowRunning =
    flows.flow?.status === 'awaiting-signature' || flows.flow?.status === 'processing';
  const activeAction = flows.drawerOpen ? (flows.flow?.action ?? null) : null;
  const ctx = (action: DashboardAction): ButtonContext => ({
    hasPendingTransaction: flowRunning || hasPendingInProgress(flows.pending),
    isLiquidated: liquidated,
    activeAction,
    walletSats: position.walletSats ?? 0,
    vaultSats: position.sats,
    debtCents: position.debtCents,
    priceUsd: position.priceUsd,
    operationCostSats: operationCostSats({
      action,
      paymentInputs: defaultPaymentInputs(action),
      feeRate,
      postageSats: config.constants.unitPostageSats,
    }),
  });
  const states = {
    deposit: buttonState('deposit', ctx('deposit')),
    withdraw: buttonState('withdraw', ctx('withdraw')),
    borrow: buttonState('borrow', ctx('borrow')),
    repay: buttonState('repay', ctx('repay')),
  };
  // SPEC §6: the four actions appear only with a connected wallet and a loaded price.
  const showActions = isKnownPrice(position.priceUsd);
  const action = (a: DashboardAction, label: string) => {
    const state = states[a];
    return showActions ? (
      <ReasonButton
        enabled={state.enabled}
        reason={state.enabled ? null : state.reason}
        onClick={() => flows.openFlow(a)}
      >
        {label}
      </ReasonButton>
    ) : (
      <Skeleton width="9ch" height="36px" />
    );
  };

  const liq =
    hasDebt && position.sats > 0n
      ? formatUsdCents(liquidationThresholdCents(position.sats, position.debtCents))
      : null;
  const btcUsd = satsValueUsdCents(position.sats, position.priceUsd);
  const walletUnit = position.runeCents ?? 0n;
  const progressMax = walletUnit > position.debtCents ? walletUnit : position.debtCents;

  return (
    <div className="dashboard">
      <PendingBanner />
      <header className="dashboard__head">
        <h1>
          {vault.name}
          {liquidated && (
            <span className="badge badge--red">{CONTENT.dashboard.liquidatingBadge}</span>
          )}
        </h1>
        {liquidated && (
          <p className="notice notice--error" role="status">
            This vault has been liquidated: its collateral ratio fell to 135% or below.
          </p>
        )}
      </header>
      <div className="dashboard__grid">
        <section className="card" aria-labelledby="btc-card">
          <h2 id="btc-card" className="card__title">
            BTC deposited
          </h2>
          <p className="card__value num" data-testid="btc-deposited">
            {satsToBtcString(position.sats)} BTC
          </p>
          <p className="muted num">
            {btcUsd != null ? formatUsdCents(btcUsd) : <Skeleton width="8ch" />}
          </p>
          <div className="card__actions">
            {action('deposit', 'Deposit')}
            {action('withdraw', 'Withdraw')}
          </div>
        </section>
        <section className="card" aria-labelledby="unit-card">
          <h2 id="unit-card" className="card__title">
            UNIT loan balance
          </h2>
          <p className="card__value num" data-testid="unit-debt">
            {centsToUnitString(position.debtCents)} UNIT
          </p>
          <div className="progress">
            <div
              className="progress__bar"
              role="progressbar"
              aria-label="UNIT in wallet versus UNIT debt"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={progressMax > 0n ? Number((walletUnit * 100n) / progressMax) : 0}
              style={{
                width: `${progressMax > 0n ? Number((walletUnit * 100n) / progressMax) : 0}%`,
              }}
            />
          </div>
          <p className="muted num">
            In wallet: {position.runeCents != null ? formatAmount(walletUnit, 'UNIT') : '—'}
          </p>
          <div className="card__actions">
            {action('borrow', 'Borrow')}
            {action('repay', 'Repay')}
          </div>
        </section>
        <HealthGauge
          ratio={position.ratio}
          hasDebt={hasDebt}
          onDeposit={() => flows.openFlow('deposit')}
          depositEnabled={states.deposit.enabled}
        />
        <section className="card" aria-labelledby="liq-card">
          <h2 id="liq-card" className="card__title">
            Liquidation price
          </h2>
          <p className="card__value num" data-testid="liquidation-price">
            {liq ?? 'N/A'}
          </p>
          <p className="muted mobile-only num">
            BTC price:{' '}
            {isKnownPrice(position.priceUsd) ? (
              formatUsd(position.priceUsd)
            ) : (
              <Skeleton width="8ch" />
            )}
          </p>
        </section>
      </div>
      <Suspense
        fallback={
          <section className="card">
            <div className="chart__placeholder skeleton" role="status" aria-label="Loading chart" />
          </section>
        }
      >
        <RatioChart vaultId={vault.vault_id} />
      </Suspense>
      <TransactionsTable
        records={history.data}
        loading={history.isPending}
        error={history.isError}
        pending={flows.pending}
        priceUsd={position.priceUsd}
      />
      <Sheet
        open={liquidationModal}
        onOpenChange={setLiquidationModal}
        title={CONTENT.dashboard.liquidationModalTitle}
        description={CONTENT.dashboard.liquidationModalBody}
      />
    </div>
  );
}

export function DashboardSkeleton() {
  return (
    <div className="dashboard" aria-busy="true">
      <div className="dashboard__grid">
        {[0, 1, 2, 3].map((i) => (
          <section className="card" key={i}>
            <Skeleton width="40%" />
            <Skeleton width="70%" height="2rem" />
            <Skeleton width="50%" />
          </section>
        ))}
      </div>
    </div>
  );
}
