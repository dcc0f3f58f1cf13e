import { RESEND_COPY } from '@unit/protocol';
import type { FlowState } from './engine';
import { useFlows } from './FlowProvider';
import { useResend } from './useResend';

/**
 * The tracker's offer after a failure the network caused before anything was broadcast:
 * send the same signed request again, without a new signature, until it expires; after that, start
 * over (back to the step that signs). Nothing shows for any other failure.
 */
export function ResendButton({ flow }: { flow: FlowState }) {
  const flows = useFlows();
  // The provider's: the drawer that started the flow closed while it ran.
  const { lastRun } = flows;
  const offer = useResend(flow);
  if (!offer || !lastRun) return null;
  return (
    <section className="flow-resend" aria-label="Send again">
      {offer.open ? (
        <>
          <p>
            {RESEND_COPY.explain} {RESEND_COPY.until(offer.until)}
          </p>
          <button
            type="button"
            className="btn btn--primary"
            onClick={() =>
              void flows.run({ ...lastRun.input, resend: offer.resend }, lastRun.preview)
            }
          >
            {RESEND_COPY.button}
          </button>
        </>
      ) : (
        <>
          <p>{RESEND_COPY.expired}</p>
          <button type="button" className="btn" onClick={() => flows.dispatch({ type: 'back' })}>
            {RESEND_COPY.startOver}
          </button>
        </>
      )}
    </section>
  );
}
