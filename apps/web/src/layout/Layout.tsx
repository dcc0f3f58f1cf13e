import { useRef } from 'react';
import { NavLink, Outlet } from 'react-router';
import { useNewBlocks } from '../api/block-height';
import { useConfig } from '../api/config';
import { FundsArrivingNotice } from './FundsArrivingNotice';
import { PriceBanner } from './PriceBanner';
import { SocialLinks } from '../ui/SocialLinks';
import { WalletButton } from './WalletButton';
import { WrongNetworkNotice } from './WrongNetworkNotice';
import { useHeaderOffset } from './use-header-offset';
import './layout.css';

export function Layout() {
  const config = useConfig();
  useNewBlocks();
  const header = useRef<HTMLElement>(null);
  useHeaderOffset(header);
  return (
    <div className="shell">
      <header className="header" ref={header}>
        <NavLink to="/" className="brand">
          <span className="brand__mark" aria-hidden="true">
            U
          </span>
          UNIT
        </NavLink>
        <nav className="nav" aria-label="Main">
          <NavLink to="/" end>
            Vault
          </NavLink>
          <NavLink to="/liquidations">Liquidations</NavLink>
          <NavLink to="/missions">Missions</NavLink>
          <NavLink to="/network">Network</NavLink>
          <a href={config.docsUrl} target="_blank" rel="noreferrer">
            Docs
          </a>
        </nav>
        <div className="header__end">
          <PriceBanner />
          <SocialLinks />
          <WalletButton />
        </div>
      </header>
      <main className="main">
        <WrongNetworkNotice />
        <FundsArrivingNotice />
        <Outlet />
      </main>
    </div>
  );
}
