import { useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

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

/** The least room a shown reason keeps from the page's edges. */
const EDGE_PX = 8;

/**
 * How far a reason must move sideways to sit inside a page `pageWidth` wide. Past the right edge
 * it would widen the page, which on a phone scrolls sideways and moves every fixed drawer off the
 * screen (the 360 px create drawer); past the left edge it would be cut off.
 */
export function shiftIntoPage(box: { left: number; right: number }, pageWidth: number): number {
  if (box.right > pageWidth - EDGE_PX)
    return Math.max(pageWidth - EDGE_PX - box.right, EDGE_PX - box.left);
  if (box.left < EDGE_PX) return EDGE_PX - box.left;
  return 0;
}

/**
 * Hover and keyboard focus show the reason above the button; phones have neither, so a tap shows
 * it under the button until the wrapper loses focus. A hidden reason takes no room (it stays the
 * button's description), and a shown one is moved inside the page.
 */
function DisabledWithReason(props: {
  className: string;
  reason: string | null;
  label: ReactNode;
  ariaLabel?: string;
}) {
  const [tapped, setTapped] = useState(false);
  const [pointed, setPointed] = useState(false);
  const tip = useRef<HTMLSpanElement>(null);
  const id = useId();
  const shown = tapped || pointed;
  useLayoutEffect(() => {
    const el = tip.current;
    if (!shown || !el) return;
    el.style.removeProperty('--tooltip-shift');
    const shift = shiftIntoPage(el.getBoundingClientRect(), document.documentElement.clientWidth);
    if (shift !== 0) el.style.setProperty('--tooltip-shift', `${shift}px`);
  }, [shown, tapped, props.reason]);
  return (
    <span className="reason-anchor">
      <span
        className="reason-wrap"
        tabIndex={0}
        aria-describedby={props.reason ? id : undefined}
        onClick={() => setTapped((was) => !was)}
        onPointerEnter={(e) => e.pointerType === 'mouse' && setPointed(true)}
        onPointerLeave={(e) => e.pointerType === 'mouse' && setPointed(false)}
        onFocus={(e) => e.currentTarget.matches(':focus-visible') && setPointed(true)}
        onBlur={() => {
          setTapped(false);
          setPointed(false);
        }}
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
          ref={tip}
          id={id}
          role={tapped ? 'status' : 'tooltip'}
          className={`tooltip ${tapped ? 'tooltip--tapped' : 'tooltip--hover'}`}
          hidden={!shown}
        >
          {props.reason}
        </span>
      )}
    </span>
  );
}
