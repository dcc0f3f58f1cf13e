import { useRef, type ReactNode } from 'react';
import { Dialog } from '@base-ui/react/dialog';

export type Placement = 'drawer' | 'modal' | 'bottom-sheet';

export interface SheetProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  description?: ReactNode;
  placement?: Placement;
  children?: ReactNode;
}

/**
 * One dialog shell for the three shapes the product uses: the right-hand drawer of the flows,
 * a centred modal, and the bottom sheet (SPEC §2 Other: title and description).
 */
export default function SheetDialog(props: SheetProps) {
  const placement = props.placement ?? 'modal';
  const popup = useRef<HTMLDivElement>(null);
  return (
    <Dialog.Root open={props.open} onOpenChange={(open) => props.onOpenChange(open)}>
      <Dialog.Portal>
        <Dialog.Backdrop className="sheet-backdrop" />
        {/* A dialog with a field opens on it (a drawer opened with Enter focused the
            close button, so typing went nowhere); one without keeps the library's default. */}
        <Dialog.Popup
          ref={popup}
          className={`sheet sheet--${placement}`}
          initialFocus={() => firstField(popup.current) ?? true}
        >
          <header className="sheet__header">
            <Dialog.Title className="sheet__title">{props.title}</Dialog.Title>
            <Dialog.Close className="icon-btn" aria-label="Close">
              ×
            </Dialog.Close>
          </header>
          {props.description != null && (
            <Dialog.Description className="sheet__description">
              {props.description}
            </Dialog.Description>
          )}
          {props.children}
        </Dialog.Popup>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/** The dialog's first enabled text field, where a user opening it means to type. */
export function firstField(root: HTMLElement | null): HTMLElement | null {
  return (
    root?.querySelector<HTMLElement>(
      'input:not([type="hidden"]):not([type="checkbox"]):not([type="radio"]):not(:disabled), textarea:not(:disabled)',
    ) ?? null
  );
}
