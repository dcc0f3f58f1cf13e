import type { ReactNode } from 'react';
import { FEE_LABELS, centsToUnitString, satsToBtcString } from '@unit/protocol';
import { BeforeAfter } from '../BeforeAfter';
import { useFlows } from '../FlowProvider';
import { RiskyWarning } from '../RiskyWarning';
import type { StepProps } from './step-props';

/** SPEC §4 Create flow, step 3: what the opening will do, before the wallet is asked. */
export function ConfirmStep({ step, flowForm, start }: StepProps) {
  const flows = useFlows();
  const { form, model: m, postage } = flowForm;
  const row = (label: string, value: ReactNode) => (
    <div>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
  return (
    <div className="flow-step">
      <dl className="summary">
        {row('Vault name', form.name)}
        {row('Deposit', `${satsToBtcString(m.sats)} BTC`)}
        {row('Borrow', `${centsToUnitString(m.cents)} UNIT`)}
        {row(
          'Network fee',
          <>
            {FEE_LABELS[form.fee]} · {m.feeRate} sat/vB · about {satsToBtcString(m.networkFee)} BTC
            {m.feeUsd ? ` (${m.feeUsd})` : ''}
          </>,
        )}
        {row(
          'UNIT postage',
          <>
            {postage.sats.toLocaleString('en-US')} sats
            {m.postageUsd ? ` (${m.postageUsd})` : ''}
            {postage.levelTitle ? ` · ${postage.levelTitle}` : ''}
          </>,
        )}
      </dl>
      <BeforeAfter before={m.before} after={m.after} priceUsd={m.priceUsd} />
      {m.riskyAfter && <RiskyWarning ratio={m.riskyAfter} />}
      <footer className="flow-actions">
        <button type="button" className="btn" onClick={() => flows.dispatch({ type: 'back' })}>
          {step.secondary}
        </button>
        <button
          type="button"
          className="btn btn--primary"
          onClick={() => {
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
