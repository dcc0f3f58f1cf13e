import type { FlowDecl, StepDecl } from '../declarations';
import type { FlowState } from '../engine';
import type { FlowInput } from '../flow-types';
import type { FlowPreview } from '../preview';
import type { FlowForm } from '../use-flow-form';

/** What the drawer hands each step: the flow, its declaration and what its steps share. */
export interface StepProps {
  flow: FlowState;
  decl: FlowDecl;
  step: StepDecl;
  /** what was typed, shared by the name, form and confirmation steps */
  flowForm: FlowForm;
  /** runs the flow with this input; the tracker's Try again sends the same again */
  start(input: FlowInput, preview: FlowPreview): void;
  /** runs the last input again; null before any run */
  retry: (() => void) | null;
}
