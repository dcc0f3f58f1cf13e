import { lazy, Suspense, useEffect, useState } from 'react';
import {
  CONTENT,
  centsToUnitString,
  formatHealth,
  formatUsd,
  formatUsdCents,
  isKnownPrice,
  liquidatedCards,
  satsToBtcString,
  satsValueUsdCents,
  unitBarReading,
  type DashboardAction,
  type LiquidationDistance,
  unitCents as toUnitCents,
} from '@unit/protocol';
import { usePosition } from '../api/position';
import { CrashDrill } from '../ui/CrashDrill';
import { useVaultHistory } from '../api/vault-history';
import { useFlows } from '../flows/FlowProvider';
import { TransactionsTable } from '../transactions/TransactionsTable';
import { ContainedError } from '../ui/ContainedError';
import { formatAmount } from '../ui/format';
import { ReasonButton } from '../ui/ReasonButton';
import { preloadSheet, Sheet } from '../ui/Sheet';
import { Skeleton } from '../ui/Skeleton';
import { useToasts } from '../ui/toasts';
import { HealthGauge } from './HealthGauge';
import { useActionStates } from './action-states';
import { useVaultLiquidation } from './liquidated';
import { ClosedVaults } from './ClosedVaults';
import { LiquidationOutcome } from './LiquidationOutcome';
import { PendingBanner } from './PendingBanner';
import { PricePausedBanner } from './PricePausedBanner';
import { TermSettledBanner, TermWarningBanner } from './TermWarningBanner';
import { useCardReadings } from '../api/card-readings';
import { RatioSketch } from '../chart/RatioSketch';

// The chart's code loads after the cards (bundle budget); its line is sketched meanwhile.
// Only a vault left by its exit shows it, and it reads the exit's address with the bitcoin
// package: loaded when such a vault is shown, so every other dashboard ships none of that code.
const VaultExitedBanner = lazy(async () => ({
  default: (await import('./VaultExitedBanner')).VaultExitedBanner,
}));
const RatioChart = lazy(async () => ({
  default: (await import('../chart/RatioChart')).RatioChart,
}));

const READING = CONTENT.reading;

const ACTION_LABELS: Record<DashboardAction, string> = {
  deposit: 'Deposit',
  withdraw: 'Withdraw',
  borrow: 'Borrow',
  repay: 'Repay',
};

export function Dashboard(props: {
  /** a `?action=` link's drawer, opened once its button's state is known (VaultPage) */
  intent?: DashboardAction | null;
  onIntentHandled?: () => void;
}) {
  const position = usePosition();
  const flows = useFlows();
  const vault = position.vault!;
  const history = useVaultHistory(vault.vault_id);
  const { liquidated, buttons: states } = useActionStates(position);
  const readings = useCardReadings(position);
  const liquidation = useVaultLiquidation(vault, liquidated);
  // SPEC §2: the modal says actions wait until liquidation completes, so it shows only while it
  // is pending; a repossessed vault's page explains the outcome instead.
  const pending = liquidation.stage === 'pending';
  const [liquidationModal, setLiquidationModal] = useState(pending);
  const [shownFor, setShownFor] = useState(pending);
  if (pending !== shownFor) {
    setShownFor(pending);
    setLiquidationModal(pending);
  }

  // The liquidation modal must open in the same render as the badge: its dialog code
  // loads once the dashboard has painted.
  useEffect(() => {
    void preloadSheet();
  }, []);

  // SPEC §4: a pending entry completes once the vault history holds its transaction.
  const { syncPending } = flows;
  useEffect(() => {
    if (history.data) syncPending(history.data);
  }, [history.data, syncPending]);

  // SPEC §6: the four actions appear only with a connected wallet and a loaded price.
  const showActions = isKnownPrice(position.priceUsd) && !position.provisional;

  // A `?action=` link opens its drawer only where the button would, and says why not otherwise.
  const { intent, onIntentHandled } = props;
  const intentState = intent ? states[intent] : null;
  const { openFlow } = flows;
  const { show: showToast } = useToasts();
  useEffect(() => {
    if (!intent || !intentState || !showActions || position.walletSats == null) return;
    onIntentHandled?.();
    if (intentState.enabled) openFlow(intent);
    else
      showToast({
        title: `${ACTION_LABELS[intent]} is not available`,
        description: intentState.reason,
        tone: 'info',
      });
  }, [intent, intentState, showActions, position.walletSats, onIntentHandled, openFlow, showToast]);
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

  // While a transaction waits for its block every card shows the confirmed state, each figure of
  // it; the state after the pending transaction is shown apart and named (card-readings.ts).
  const { confirmed, pending: after } = readings;
  const confirmedSats = confirmed.sats;
  const confirmedDebt = confirmed.debtCents;
  const btcPending = after !== null && after.state.sats !== confirmedSats;
  const debtPending = after !== null && after.state.debtCents !== confirmedDebt;
  const afterLabel = (figure: string) => READING.pending.after(after?.action ?? null, figure);
  const liqText = (cents: bigint | null) => (cents === null ? 'N/A' : formatUsdCents(cents));
  const btcUsd = satsValueUsdCents(confirmedSats, position.priceUsd);
  const walletUnit = position.runeCents ?? toUnitCents(0);
  const bar = unitBarReading(walletUnit, position.debtCents);
  const repossessed = liquidation.stage === 'repossessed';
  // Settled at its term or left by its exit: it holds nothing, so its gauge has no marker either.
  const closed = vault.status === 'settled' || vault.status === 'exited';
  // A liquidated vault's cards say what is true of it: nothing owed, and where the collateral goes.
  const gone =
    liquidation.stage === 'none'
      ? null
      : liquidatedCards(liquidation.stage, liquidation.outcome, position);

  return (
    <div className="dashboard">
      <PendingBanner />
      <PricePausedBanner />
      <TermWarningBanner vault={vault} />
      <TermSettledBanner vault={vault} />
      {vault.status === 'exited' && (
        <Suspense fallback={null}>
          <VaultExitedBanner vault={vault} />
        </Suspense>
      )}
      <header className="dashboard__head">
        <h1>
          {vault.name}
          {pending && (
            <span className="badge badge--red">{CONTENT.dashboard.liquidatingBadge}</span>
          )}
          {liquidation.stage === 'repossessed' && (
            <span className="badge badge--muted">Repossessed</span>
          )}
          {vault.status === 'settled' && (
            <span className="badge badge--muted">Settled at its term</span>
          )}
          {vault.status === 'exited' && (
            <span className="badge badge--muted">Closed by its exit</span>
          )}
        </h1>
        {pending && (
          <p className="notice notice--error" role="status">
            This vault has been liquidated: its collateral ratio fell to 135% or below.
          </p>
        )}
      </header>
      {liquidation.outcome && (
        <LiquidationOutcome
          outcome={liquidation.outcome}
          record={liquidation.record}
          walletUnitCents={position.runeCents}
        />
      )}
      <div className="dashboard__grid">
        <section className="card" aria-labelledby="btc-card">
          <h2 id="btc-card" className="card__title">
            BTC deposited
          </h2>
          <p className="card__value num" data-testid="btc-deposited">
            {satsToBtcString(gone?.collateralSats ?? confirmedSats)} BTC
          </p>
          <p className="muted num">
            {btcUsd != null ? formatUsdCents(btcUsd) : <Skeleton width="8ch" />}
          </p>
          {gone && <p className="card__note">{gone.collateralNote}</p>}
          {btcPending && (
            <PendingFigure text={afterLabel(`${satsToBtcString(after.state.sats)} BTC`)} />
          )}
          <div className="card__actions">
            {action('deposit', ACTION_LABELS.deposit)}
            {action('withdraw', ACTION_LABELS.withdraw)}
          </div>
        </section>
        <section className="card" aria-labelledby="unit-card">
          <h2 id="unit-card" className="card__title">
            UNIT loan balance
          </h2>
          <p className="card__value num" data-testid="unit-debt">
            {centsToUnitString(gone?.owedCents ?? confirmedDebt)} UNIT
          </p>
          {gone && <p className="card__note">{gone.debtNote}</p>}
          {debtPending && (
            <PendingFigure text={afterLabel(`${centsToUnitString(after.state.debtCents)} UNIT`)} />
          )}
          {/* SPEC §2's bar of UNIT in the wallet against the debt, labelled */}
          {!gone && bar.kind !== 'no-debt' && position.runeCents != null && (
            <div className="unit-bar">
              <p className="unit-bar__label" id="unit-bar-label">
                {READING.unitBar.label}
              </p>
              <div className="progress">
                <div
                  className="progress__bar"
                  role="progressbar"
                  aria-labelledby="unit-bar-label"
                  aria-valuemin={0}
                  aria-valuemax={100}
                  aria-valuenow={bar.percent}
                  aria-valuetext={`${bar.percent}%`}
                  style={{ width: `${bar.percent}%` }}
                />
              </div>
              <p className="muted unit-bar__reading" data-testid="unit-bar-reading">
                {bar.kind === 'covered'
                  ? READING.unitBar.covered
                  : READING.unitBar.short(formatAmount(bar.missingCents, 'UNIT'))}
              </p>
            </div>
          )}
          <p className="muted num">
            In wallet: {position.runeCents != null ? formatAmount(walletUnit, 'UNIT') : '—'}
          </p>
          <div className="card__actions">
            {action('borrow', ACTION_LABELS.borrow)}
            {action('repay', ACTION_LABELS.repay)}
          </div>
        </section>
        <HealthGauge
          ratio={confirmed.ratio}
          hasDebt={confirmedDebt > 0n}
          pendingAfter={
            after && formatHealth(after.state.ratio) !== formatHealth(confirmed.ratio)
              ? afterLabel(formatHealth(after.state.ratio))
              : null
          }
          onDeposit={() => flows.openFlow('deposit')}
          deposit={states.deposit}
          // a liquidated vault cannot be saved by a deposit: no shortcut, and once repossessed
          // or closed no marker either (its ratio means nothing any more)
          liquidated={liquidated || liquidation.stage !== 'none'}
          repossessed={repossessed || closed}
        />
        <section className="card" aria-labelledby="liq-card">
          <h2 id="liq-card" className="card__title">
            Liquidation price
          </h2>
          <p className="card__value num" data-testid="liquidation-price">
            {liqText(confirmed.liquidationCents)}
          </p>
          {/* the price now and how far it may fall, as BOLD and Summer.fi show it */}
          <dl className="liq-figures num">
            <div>
              <dt>{READING.liquidationPrice.current}</dt>
              <dd data-testid="btc-price-now">
                {isKnownPrice(position.priceUsd) ? (
                  formatUsd(position.priceUsd)
                ) : (
                  <Skeleton width="8ch" />
                )}
              </dd>
            </div>
            {confirmed.distance && !gone && (
              <div>
                <dt>{READING.liquidationPrice.distance}</dt>
                <dd data-testid="liquidation-distance">{distanceText(confirmed.distance)}</dd>
              </div>
            )}
          </dl>
          {gone && <p className="card__note">{gone.priceNote}</p>}
          {!gone && after && after.state.liquidationCents !== confirmed.liquidationCents && (
            <PendingFigure
              text={afterLabel(
                READING.pending.liquidation(
                  liqText(after.state.liquidationCents),
                  after.state.distance && distanceText(after.state.distance),
                ),
              )}
            />
          )}
        </section>
      </div>
      {/* SPEC §8: a chart error is caught, reported and kept to the chart. */}
      <ContainedError part="chart" message="The chart could not be drawn.">
        <Suspense fallback={<RatioSketch vaultId={vault.vault_id} />}>
          <CrashDrill kind="chart" />
          <RatioChart vaultId={vault.vault_id} />
        </Suspense>
      </ContainedError>
      <TransactionsTable vaultId={vault.vault_id} priceUsd={position.priceUsd} />
      {vault.status === 'active' && <ClosedVaults pubkey={vault.vault_pubkey} />}
      <Sheet
        open={liquidationModal}
        onOpenChange={setLiquidationModal}
        title={CONTENT.dashboard.liquidationModalTitle}
        description={CONTENT.dashboard.liquidationModalBody}
      >
        <div className="liquidation-modal">
          <p>{READING.liquidationModal.disabled}</p>
          <p>{READING.liquidationModal.next}</p>
          <p>{READING.liquidationModal.canDo}</p>
        </div>
      </Sheet>
    </div>
  );
}

/** A card's state after its pending transaction, apart from its confirmed figures and named. */
function PendingFigure({ text }: { text: string }) {
  return (
    <p className="pending-figure num" data-testid="pending-figure">
      <span className="badge badge--pending">{READING.pending.label}</span>
      {text}
    </p>
  );
}

/** '40.7% ($38,713.07) above', or that the price is at or under the liquidation price. */
function distanceText(distance: LiquidationDistance): string {
  return distance.usdCents > 0n
    ? READING.liquidationPrice.above(
        `${distance.percent.toFixed(1)}%`,
        formatUsdCents(distance.usdCents),
      )
    : READING.liquidationPrice.below;
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
