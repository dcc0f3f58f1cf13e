import { Link } from 'react-router';
import { Compass } from 'lucide-react';

/**
 * An unknown address inside the app shell: header and navigation stay, so the way back is where it
 * always is. Before, an unknown route reached the crash screen, whose Try again reloaded the same
 * unknown route forever.
 */
export function NotFoundPage() {
  return (
    <section className="state-card not-found" aria-labelledby="not-found-title">
      <Compass className="not-found__icon" size={40} strokeWidth={1.5} aria-hidden="true" />
      <h1 id="not-found-title">Page not found</h1>
      <p className="muted">There is nothing at this address. Your vault is one click away.</p>
      <div className="state-card__links">
        <Link to="/" className="btn btn--primary">
          Go to your vault
        </Link>
        <Link to="/liquidations" className="btn btn--secondary">
          Liquidations
        </Link>
      </div>
    </section>
  );
}
