import type { ReactNode } from 'react';
import { useConfig } from '../api/config';

// The marks are drawn here (24 px grid, currentColor) rather than fetched: nothing leaves the origin
// (the CSP allows none) and each costs a path, not a font or an image request.
const MARKS: Record<'twitter' | 'discord' | 'telegram', ReactNode> = {
  twitter: (
    <path d="M17.75 3h3.07l-6.7 7.66L22 21h-6.17l-4.83-6.32L5.47 21H2.4l7.17-8.19L2 3h6.33l4.37 5.77zm-1.08 16.18h1.7L7.4 4.72H5.58z" />
  ),
  discord: (
    <path d="M19.3 5.3A16.6 16.6 0 0 0 15.2 4l-.5 1.1a15.4 15.4 0 0 0-5.4 0L8.8 4a16.6 16.6 0 0 0-4.1 1.3C2.1 9.2 1.4 13 1.7 16.8a16.7 16.7 0 0 0 5.1 2.6l1.1-1.8c-.6-.2-1.2-.5-1.7-.8l.4-.3a11.9 11.9 0 0 0 10.8 0l.4.3c-.5.3-1.1.6-1.7.8l1.1 1.8a16.6 16.6 0 0 0 5.1-2.6c.4-4.4-.7-8.2-3-11.5zM8.7 14.5c-1 0-1.8-.9-1.8-2s.8-2 1.8-2 1.8.9 1.8 2-.8 2-1.8 2zm6.6 0c-1 0-1.8-.9-1.8-2s.8-2 1.8-2 1.8.9 1.8 2-.8 2-1.8 2z" />
  ),
  telegram: (
    <path d="M2.9 11.3 19.6 4.9c.8-.3 1.5.2 1.2 1.4l-2.8 13.4c-.2.9-.8 1.2-1.6.7l-4.4-3.2-2.1 2c-.2.2-.4.4-.9.4l.3-4.5 8.1-7.3c.4-.3-.1-.5-.5-.2l-10 6.3-4.3-1.3c-.9-.3-1-.9.2-1.4z" />
  ),
};

/** Twitter, Discord, Telegram (SPEC §2), URLs from /api/config. */
export function SocialLinks() {
  const { social } = useConfig();
  const links = [
    // The accessible name says the network as people know it; the mark itself is decoration.
    { key: 'twitter', label: 'X (Twitter)', href: social.twitter },
    { key: 'discord', label: 'Discord', href: social.discord },
    { key: 'telegram', label: 'Telegram', href: social.telegram },
  ] as const;
  // Only the networks this server configures (no other protocol's accounts by default).
  const shown = links.filter((l) => l.href != null);
  if (shown.length === 0) return null;
  return (
    <ul className="social-links" aria-label="Community">
      {shown.map((l) => (
        <li key={l.key}>
          <a
            href={l.href ?? undefined}
            target="_blank"
            rel="noreferrer"
            aria-label={l.label}
            title={l.label}
            className={`social-links__link social-links__link--${l.key}`}
          >
            <svg viewBox="0 0 24 24" width="18" height="18" fill="currentColor" aria-hidden="true">
              {MARKS[l.key]}
            </svg>
          </a>
        </li>
      ))}
    </ul>
  );
}
