import type { ReactNode } from 'react';

/**
 * A banner said before any click, about the vault or the app as a whole: its mark, a title, the
 * cause (stronger, when there is one) and what to do.
 */
export function NoticeBanner({
  tone,
  testId,
  mark,
  title,
  cause,
  whatToDo,
}: {
  tone: 'warning' | 'info';
  testId: string;
  mark: ReactNode;
  title: string;
  cause: string | null;
  whatToDo: string;
}) {
  return (
    <div className={`banner banner--${tone}`} role="status" data-testid={testId}>
      <span className="banner__mark" aria-hidden="true">
        {mark}
      </span>
      <div className="banner__body">
        <p className="banner__title">
          <strong>{title}</strong>
        </p>
        {cause ? <p className="banner__text banner__text--strong">{cause}</p> : null}
        <p className="banner__text">{whatToDo}</p>
      </div>
    </div>
  );
}
