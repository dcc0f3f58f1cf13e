// The page's shell, prerendered into index.html at build time (vite.config.ts, prerenderShell) so
// the welcome page paints before the script arrives (first paint waited for ~200 KB of
// JavaScript). Plain links, no state: it works, and reads the same, with no script at all. The app
// removes it as it takes over (removePrerenderedShell).
import { CONTENT } from '@unit/protocol';
import { WelcomeHeadline, WelcomeSteps } from '../vault/WelcomeIntro';

export function Shell() {
  return (
    <div className="shell">
      <header className="header">
        <a href="/" className="brand">
          <span className="brand__mark" aria-hidden="true">
            U
          </span>
          UNIT
        </a>
        <nav className="nav" aria-label="Main">
          <a href="/" aria-current="page" className="active">
            Vault
          </a>
          <a href="/liquidations">Liquidations</a>
          <a href="/missions">Missions</a>
          <a href="/network">Network</a>
        </nav>
        <div className="header__end">
          {/* PriceBanner's markup; the server writes the price in its place when it has one
              (apps/server/src/http/first-page.ts), so a phone shows it with the first paint. */}
          <div className="price-banner">
            <span className="price-banner__label">BTC</span>
            <span
              className="skeleton"
              data-first-price=""
              style={{ width: '7ch', height: '1em' }}
              aria-hidden="true"
            />
            <button type="button" className="price-change price-change--flat" disabled>
              <span className="sr-only">Price change </span>
              <span
                className="skeleton"
                style={{ width: '5ch', height: '1em' }}
                aria-hidden="true"
              />{' '}
              <span className="price-change__period">24h</span>
            </button>
          </div>
          <button type="button" className="btn btn--primary wallet-btn" disabled>
            {CONTENT.walletPicker.connect}
          </button>
        </div>
      </header>
      <main className="main">
        <section className="welcome">
          <div className="welcome__copy">
            <WelcomeHeadline />
            {/* The app opens the create drawer for this link (SPEC §2 Routes), before and after. */}
            <a className="btn btn--primary btn--large" href="/?action=create-vault">
              {CONTENT.vaultPage.createVault}
            </a>
          </div>
          <div className="welcome__scene">
            <div className="scene-placeholder" aria-hidden="true" />
          </div>
          <WelcomeSteps />
        </section>
      </main>
    </div>
  );
}
