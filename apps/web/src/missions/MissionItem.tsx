// One mission of the list: its status, its action and its verify button (SPEC §4 Mission actions).
import { useId } from 'react';
import {
  isMissionComplete,
  missionButtonLabel,
  missionButtonState,
  missionDisabledReason,
  missionProgressShown,
  missionStatus,
  missionTasksText,
  type MissionContext,
  type MissionDto,
} from '@unit/protocol';

export function MissionItem(props: {
  mission: MissionDto;
  ctx: MissionContext;
  settled: boolean;
  /** where the list says the reason all missions share (no user) */
  sharedReasonId: string;
  started: boolean;
  verifying: boolean;
  onStart: () => void;
  onVerify: () => void;
}) {
  const { mission } = props;
  const id = useId();
  // signed out, no progress: no mark, no count of tasks done
  const complete = missionProgressShown(props.ctx) && isMissionComplete(mission);
  const status = missionStatus({ complete, started: props.started, verifying: props.verifying });
  const state = missionButtonState(mission, props.ctx);
  const reason = !state.enabled && props.settled && status !== 'completed' ? state.reason : null;
  // The no-user reason is said once above the list; the button still names it.
  const shared = reason !== null && missionDisabledReason(mission, props.ctx) === 'no-user';
  const describedBy = reason
    ? `${id}-title ${shared ? props.sharedReasonId : `${id}-reason`}`
    : `${id}-title`;
  // aria-disabled keeps a disabled button focusable, so keyboard users reach it and hear why.
  const unavailable = !state.enabled || status === 'verifying';
  return (
    <li className={`mission${complete ? ' mission--done' : ''}`} aria-busy={props.verifying}>
      <div className="mission__body">
        <h2 className="mission__title" id={`${id}-title`}>
          {mission.title}
        </h2>
        <p className="mission__meta muted">{missionTasksText(mission, props.ctx)}</p>
        {reason && !shared && (
          <p className="mission__reason" id={`${id}-reason`}>
            {reason}
          </p>
        )}
      </div>
      {status === 'completed' ? (
        <span className="mission__done">
          <span aria-hidden="true">✓ </span>Completed
        </span>
      ) : (
        <button
          type="button"
          className="btn btn--small mission__button"
          aria-disabled={unavailable || undefined}
          aria-describedby={describedBy}
          onClick={() => {
            if (unavailable) return;
            if (status === 'todo') props.onStart();
            else props.onVerify();
          }}
        >
          {status === 'verifying' && <span className="spinner" aria-hidden="true" />}
          {missionButtonLabel(status)}
        </button>
      )}
    </li>
  );
}
