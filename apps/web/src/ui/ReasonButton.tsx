import { useState, type ReactNode } from 'react';
import { Tooltip } from '@base-ui/react/tooltip';

/**
 * A button that, when disabled, tells why (SPEC §4 Button enablement): the reason is a tooltip on
 * hover/focus and the button's accessible description. A disabled <button> gets no pointer
 * events, so the tooltip hangs on a focusable wrapper.
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
 * Hover and keyboard focus open the reason as a tooltip. Phones have neither, so a tap shows it
 * under the button until the wrapper loses focus.
 */
function DisabledWithReason(props: {
  className: string;
  reason: string | null;
  label: ReactNode;
  ariaLabel?: string;
}) {
  const [tapped, setTapped] = useState(false);
  return (
    <span className="reason-anchor">
      <Tooltip.Root>
        <Tooltip.Trigger
          render={<span className="reason-wrap" tabIndex={0} />}
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
        </Tooltip.Trigger>
        <Tooltip.Portal>
          <Tooltip.Positioner sideOffset={8}>
            <Tooltip.Popup className="tooltip">{props.reason}</Tooltip.Popup>
          </Tooltip.Positioner>
        </Tooltip.Portal>
      </Tooltip.Root>
      {tapped && props.reason && (
        <span className="tooltip tooltip--tapped" role="status">
          {props.reason}
        </span>
      )}
    </span>
  );
}
