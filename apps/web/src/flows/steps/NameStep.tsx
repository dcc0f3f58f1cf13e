import { canContinueWithVaultName, validateVaultName, vaultNameCounter } from '@unit/protocol';
import { useFlows } from '../FlowProvider';
import type { StepProps } from './step-props';

/** SPEC §4 Create flow, step 1: the vault's name. */
export function NameStep({ step, flowForm }: StepProps) {
  const flows = useFlows();
  const { form, setForm } = flowForm;
  const nameError = validateVaultName(form.name);
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
}
