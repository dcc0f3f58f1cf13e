import { CONTENT, centsToUnitString, satsToBtcString } from '@unit/protocol';
import { useWallet } from '../../wallet';
import { AmountInput } from '../AmountInput';
import { BeforeAfter } from '../BeforeAfter';
import { targetOf } from '../declarations';
import { FeeSelector } from '../FeeSelector';
import { useFlows } from '../FlowProvider';
import { RepossessReview } from '../RepossessReview';
import { RiskyWarning } from '../RiskyWarning';
import { SpeedUpForm } from '../SpeedUpForm';
import { flowFacts } from '../vault-action';
import { ConnectStep } from './ConnectStep';
import type { StepProps } from './step-props';

const READING = CONTENT.reading;

/**
 * The form of a flow, as its declaration says: a claim's review (repossess), a fee rate
 * (speed-up), or its amount fields with their maxima, the fee, the costs and the vault after.
 */
export function FormStep(props: StepProps) {
  const flows = useFlows();
  const wallet = useWallet();
  const { decl, step, flow, flowForm, start } = props;
  const cancel = () => flows.setDrawerOpen(false);
  const claim = decl.form.kind === 'claim' ? targetOf(flows.target, 'repossess') : null;
  if (claim)
    return <RepossessReview decl={decl} target={claim} onCancel={cancel} onStart={start} />;
  const waiting = decl.form.kind === 'fee' ? targetOf(flows.target, 'speedup') : null;
  if (waiting)
    return (
      <SpeedUpForm
        decl={decl}
        target={waiting}
        pending={flows.pending}
        onCancel={cancel}
        onStart={start}
      />
    );
  if (decl.form.connectsWallet && !wallet.account) return <ConnectStep />;

  const { form, setForm, model: m, constants: c } = flowForm;
  const { btc, unit } = decl.form;
  // A step after the first goes back; a form followed by a confirmation step leads to it.
  const goesBack = flow.step > 0;
  const confirmsNext = decl.steps[flow.step + 1]?.kind === 'confirm';
  const btcHint = btc?.hint
    ? btc.hint(m.maxSats)
    : m.balanceLoading
      ? CONTENT.walletFunds.loading
      : flowForm.incomingSats > 0n && m.maxSats === 0n
        ? `${CONTENT.walletFunds.arriving}…`
        : `Available: ${satsToBtcString(m.maxSats)} BTC`;
  return (
    <div className="flow-step">
      {btc && (
        <AmountInput
          label={btc.label}
          value={m.btcValue}
          onChange={flowForm.changeBtc}
          max={m.maxSats}
          available={m.availableSats}
          priceUsd={m.priceUsd}
          intDigits={c.amountIntDigits}
          dustLimit={BigInt(c.dustLimitSats)}
          {...(flowForm.chooseMax ? { onMax: flowForm.chooseMax, maxBusy: m.refining } : {})}
          error={m.shownBtcError ?? m.priceError}
          hint={btcHint}
        />
      )}
      {unit && (
        <AmountInput
          label={unit.label}
          value={form.unit}
          onChange={(value) => setForm({ ...form, unit: value })}
          max={m.maxCents}
          available={m.maxCents}
          priceUsd={m.priceUsd}
          intDigits={c.amountIntDigits}
          // The price's error is said once, under the first field.
          error={m.unitError ?? m.costError ?? (btc ? null : m.priceError)}
          hint={`Up to ${centsToUnitString(m.maxCents)} UNIT`}
        />
      )}
      <FeeSelector
        options={m.options}
        value={form.fee}
        onChange={(fee) => setForm({ ...form, fee })}
      />
      <div className="flow-costs muted">
        {flowFacts(decl.action).feeFromVault ? (
          <>
            <p data-testid="network-fee">
              {READING.withdraw.feeFromVault(satsToBtcString(m.networkFee), m.feeUsd)}
            </p>
            <p>{READING.withdraw.exactAmount}</p>
          </>
        ) : (
          <p data-testid="network-fee">
            {READING.networkCost(satsToBtcString(m.networkFee), m.feeUsd)}
          </p>
        )}
        {m.postageNote && <p>{m.postageNote}</p>}
      </div>
      {/* A refused amount has no "after": projecting it would show a vault that cannot be. */}
      <BeforeAfter before={m.before} after={m.formValid ? m.after : null} priceUsd={m.priceUsd} />
      {m.riskyAfter && <RiskyWarning ratio={m.riskyAfter} />}
      <footer className="flow-actions">
        <button
          type="button"
          className="btn"
          onClick={() => (goesBack ? flows.dispatch({ type: 'back' }) : cancel())}
        >
          {step.secondary}
        </button>
        <button
          type="button"
          className="btn btn--primary"
          disabled={!m.formValid}
          onClick={() => {
            if (confirmsNext) return flows.dispatch({ type: 'next' });
            const { input, preview } = flowForm.request();
            start(input, preview);
          }}
        >
          {step.primary}
        </button>
      </footer>
    </div>
  );
}
