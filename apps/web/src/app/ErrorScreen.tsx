import { Component, useEffect, useLayoutEffect, type ErrorInfo, type ReactNode } from 'react';
import { useNavigate, useLocation, useRouteError } from 'react-router';
import { useQueryErrorResetBoundary } from '@tanstack/react-query';
import { CONTENT } from '@unit/protocol';
import { reportClientError } from '../api/client-errors';
import { removePrerenderedShell } from './prerendered-shell';
import './error-screen.css';

/**
 * SPEC §2 Other: the error screen with its two ways out. Its 'Our team has been notified' is true:
 * the boundary that shows it has sent the error to POST /api/client-errors (api/client-errors.ts).
 */
export function ErrorScreen({ onTryAgain }: { onTryAgain: () => void }) {
  const copy = CONTENT.errorScreen;
  // A crash before the app took over must not leave the prerendered shell above this screen.
  useLayoutEffect(removePrerenderedShell, []);
  return (
    <main className="error-screen" role="alert">
      <h1>{copy.title}</h1>
      <p>{copy.body}</p>
      <div className="error-screen__actions">
        <button type="button" className="btn btn--primary" onClick={onTryAgain}>
          {copy.tryAgain}
        </button>
        <button
          type="button"
          className="btn btn--secondary"
          onClick={() => window.location.reload()}
        >
          {copy.reload}
        </button>
      </div>
    </main>
  );
}

/** errorElement of the router: Try again re-renders the route by navigating to where we are. */
export function RouteErrorScreen() {
  const navigate = useNavigate();
  const location = useLocation();
  const error = useRouteError();
  const { reset } = useQueryErrorResetBoundary();
  useEffect(() => reportClientError('screen', error), [error]);
  return (
    <ErrorScreen
      onTryAgain={() => {
        reset();
        void navigate(`${location.pathname}${location.search}`, { replace: true });
      }}
    />
  );
}

interface BoundaryState {
  error: Error | null;
}

/** Catches what happens outside the router (config loading, providers). */
export class AppErrorBoundary extends Component<{ children: ReactNode }, BoundaryState> {
  override state: BoundaryState = { error: null };

  static getDerivedStateFromError(error: Error): BoundaryState {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    // The console keeps the trace for developers; the server's log gets the report.
    console.error(error, info.componentStack);
    reportClientError('screen', error, info.componentStack);
  }

  override render() {
    if (this.state.error) return <ErrorScreen onTryAgain={() => this.setState({ error: null })} />;
    return this.props.children;
  }
}
