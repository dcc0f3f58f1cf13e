import { Component, createContext, useContext, type ErrorInfo, type ReactNode } from 'react';
import { RotateCw, TriangleAlert } from 'lucide-react';
import { reportClientError, type ErrorBoundaryKind } from '../api/client-errors';

/** How many times the user has pressed Try again in the nearest contained part (0 at first). */
const AttemptContext = createContext(0);
export const useContainedAttempt = () => useContext(AttemptContext);

interface Props {
  /** what failed, for the message and the report: 'chart' */
  part: Exclude<ErrorBoundaryKind, 'screen'>;
  /** what the user reads, e.g. 'The chart could not be drawn.' */
  message: string;
  children: ReactNode;
}

/**
 * Keeps one part's render error inside that part (SPEC §8 'Chart errors are caught and reported'):
 * a small message with a retry where the part was, the error sent to POST /api/client-errors, and
 * the rest of the page untouched.
 */
interface State {
  error: Error | null;
  attempt: number;
}

export class ContainedError extends Component<Props, State> {
  override state: State = { error: null, attempt: 0 };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(error, info.componentStack);
    reportClientError(this.props.part, error, info.componentStack);
  }

  override render() {
    if (!this.state.error)
      return (
        <AttemptContext.Provider value={this.state.attempt}>
          {this.props.children}
        </AttemptContext.Provider>
      );
    return (
      <section className="card contained-error" role="alert">
        <p className="contained-error__text">
          <TriangleAlert size={18} aria-hidden="true" />
          {this.props.message} The error has been reported.
        </p>
        <button
          type="button"
          className="btn btn--secondary btn--small"
          onClick={() => this.setState(({ attempt }) => ({ error: null, attempt: attempt + 1 }))}
        >
          <RotateCw size={14} aria-hidden="true" />
          Try again
        </button>
      </section>
    );
  }
}
