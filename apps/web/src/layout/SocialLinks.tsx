import { useConfig } from '../api/config';

/** Twitter, Discord, Telegram (SPEC §2), URLs from /api/config. */
export function SocialLinks() {
  const { social } = useConfig();
  const links = [
    // The visible glyph must be part of the accessible name (WCAG 2.5.3), hence 'X (Twitter)'.
    { label: 'X (Twitter)', href: social.twitter, glyph: 'X' },
    { label: 'Discord', href: social.discord, glyph: 'D' },
    { label: 'Telegram', href: social.telegram, glyph: 'T' },
  ];
  return (
    <ul className="social-links" aria-label="Community">
      {links.map((l) => (
        <li key={l.label}>
          <a href={l.href} target="_blank" rel="noreferrer" aria-label={l.label} title={l.label}>
            <span aria-hidden="true">{l.glyph}</span>
          </a>
        </li>
      ))}
    </ul>
  );
}
