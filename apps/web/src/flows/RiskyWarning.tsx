import { CONTENT } from '@unit/protocol';

/** The Risky band's warning, in its colour, said before the button that confirms the result. */
export function RiskyWarning({ ratio }: { ratio: string }) {
  return (
    <p className="risky-warning" role="status" data-testid="risky-warning">
      <span aria-hidden="true" className="risky-warning__icon">
        !
      </span>
      {CONTENT.reading.riskyWarning(ratio)}
    </p>
  );
}
