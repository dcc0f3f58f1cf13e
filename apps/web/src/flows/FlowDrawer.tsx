import { useState, type ComponentType } from 'react';
import { Sheet } from '../ui/Sheet';
import { FLOWS, type FlowDecl, type StepKind } from './declarations';
import type { FlowState } from './engine';
import type { FlowInput } from './flow-types';
import { useFlows } from './FlowProvider';
import type { FlowPreview } from './preview';
import { ConfirmStep } from './steps/ConfirmStep';
import { FormStep } from './steps/FormStep';
import { NameStep } from './steps/NameStep';
import type { StepProps } from './steps/step-props';
import { SuccessStep } from './steps/SuccessStep';
import { TrackerStep } from './steps/TrackerStep';
import { useFlowForm } from './use-flow-form';
import './flows.css';

/** One component per kind of step; which steps a flow has, and what they say, is its declaration. */
const STEPS: Record<StepKind, ComponentType<StepProps>> = {
  name: NameStep,
  form: FormStep,
  confirm: ConfirmStep,
  tracker: TrackerStep,
  success: SuccessStep,
};

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

/** The open step, with what the flow's steps share: the form as typed and the last run. */
function FlowSteps({ flow, decl }: { flow: FlowState; decl: FlowDecl }) {
  const flows = useFlows();
  const flowForm = useFlowForm(decl);
  const [lastRun, setLastRun] = useState<{ input: FlowInput; preview: FlowPreview } | null>(null);
  const step = decl.steps[flow.step]!;
  const Step = STEPS[step.kind];
  return (
    <Step
      flow={flow}
      decl={decl}
      step={step}
      flowForm={flowForm}
      start={(input, preview) => {
        setLastRun({ input, preview });
        void flows.run(input, preview);
      }}
      retry={lastRun ? () => void flows.run(lastRun.input, lastRun.preview) : null}
    />
  );
}
