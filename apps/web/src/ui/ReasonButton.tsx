import type { ReactNode } from 'react';
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
}) {
  const className = `btn ${props.variant === 'primary' ? 'btn--primary' : ''}`;
  if (props.enabled)
    return (
      <button type="button" className={className} onClick={props.onClick}>
        {props.children}
      </button>
    );
  return (
    <Tooltip.Root>
      <Tooltip.Trigger render={<span className="reason-wrap" tabIndex={0} />}>
        <button type="button" className={className} disabled title={props.reason ?? undefined}>
          {props.children}
        </button>
      </Tooltip.Trigger>
      <Tooltip.Portal>
        <Tooltip.Positioner sideOffset={8}>
          <Tooltip.Popup className="tooltip">{props.reason}</Tooltip.Popup>
        </Tooltip.Positioner>
      </Tooltip.Portal>
    </Tooltip.Root>
  );
}
