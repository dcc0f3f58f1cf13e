import { useId, useState, type ReactNode } from 'react';

/**
 * A button that, when disabled, tells why (SPEC §4 Button enablement): the reason is a tooltip on
 * hover/focus and the button's accessible description. A disabled <button> gets no pointer
 * events, so the reason hangs on a focusable wrapper.
 */
export function ReasonButton(props: {
  children: ReactNode;
  onClick: () => void;
  enabled: boolean;
  reason: string | null;
  variant?: 'primary' | 'secondary';
  size?: 'small';
  /** an accessible name when the visible label alone is ambiguous */
  'aria-label'?: string;
}) {
  const className = [
    'btn',
    props.variant === 'primary' ? 'btn--primary' : '',
    props.size === 'small' ? 'btn--small' : '',
  ]
    .filter(Boolean)
    .join(' ');
  if (props.enabled)
    return (
      <button
        type="button"
        className={className}
        onClick={props.onClick}
        aria-label={props['aria-label']}
      >
        {props.children}
      </button>
    );
  return (
    <DisabledWithReason
      className={className}
      reason={props.reason}
      label={props.children}
      ariaLabel={props['aria-label']}
    />
  );
}

/**
 * Hover and keyboard focus show the reason above the button (CSS, no positioning engine: the
 * dashboard's first load has a budget). Phones have neither, so a tap shows it under the button
 * until the wrapper loses focus.
 */
function DisabledWithReason(props: {
  className: string;
  reason: string | null;
  label: ReactNode;
  ariaLabel?: string;
}) {
  const [tapped, setTapped] = useState(false);
  const id = useId();
  return (
    <span className="reason-anchor">
      <span
        className="reason-wrap"
        tabIndex={0}
        aria-describedby={props.reason ? id : undefined}
        onClick={() => setTapped((shown) => !shown)}
        onBlur={() => setTapped(false)}
      >
        <button
          type="button"
          className={props.className}
          disabled
          aria-label={props.ariaLabel}
          title={props.reason ?? undefined}
        >
          {props.label}
        </button>
      </span>
      {props.reason && (
        <span
          id={id}
          role={tapped ? 'status' : 'tooltip'}
          className={`tooltip ${tapped ? 'tooltip--tapped' : 'tooltip--hover'}`}
        >
          {props.reason}
        </span>
      )}
    </span>
  );
}
