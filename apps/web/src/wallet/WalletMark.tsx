import type { ReactNode } from 'react';
import type { WalletId } from './types';

/**
 * Each wallet's mark, drawn here as a simple SVG after its brand (colour and shape), so the picker
 * shows logos without loading anything from another origin. Decoration only: the row names the
 * wallet in text.
 */
export function WalletMark({ id, size = 32 }: { id: WalletId; size?: number }) {
  return (
    <svg
      className="wallet-mark"
      viewBox="0 0 32 32"
      width={size}
      height={size}
      aria-hidden="true"
      focusable="false"
    >
      {MARKS[id]}
    </svg>
  );
}

const MARKS: Record<WalletId, ReactNode> = {
  // Xverse: a white X of two crossing bars on black.
  xverse: (
    <>
      <rect width="32" height="32" rx="8" fill="#0c0c0c" />
      <path d="M9 8h4.2l9.8 16h-4.2z" fill="#fff" />
      <path d="M23 8h-4.2L9 24h4.2z" fill="#fff" opacity="0.85" />
    </>
  ),
  // Unisat: a U in orange to violet on black.
  unisat: (
    <>
      <defs>
        <linearGradient id="wallet-mark-unisat" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#ff8f2b" />
          <stop offset="1" stopColor="#8a3ffc" />
        </linearGradient>
      </defs>
      <rect width="32" height="32" rx="8" fill="#111" />
      <path
        d="M9.5 8v9.2a6.5 6.5 0 0 0 13 0V8h-4v9.2a2.5 2.5 0 0 1-5 0V8z"
        fill="url(#wallet-mark-unisat)"
      />
    </>
  ),
  // Leather: a dark, soft-cornered L on its cream ground.
  leather: (
    <>
      <rect width="32" height="32" rx="8" fill="#f5f1ed" />
      <path d="M10 7.5h4.2v13h8.3V24.5H13a3 3 0 0 1-3-3z" fill="#12100f" />
    </>
  ),
  // MetaMask: the fox's head in three oranges.
  metamask: (
    <>
      <rect width="32" height="32" rx="8" fill="#fff7ef" />
      <path d="M6 6.5 14 12l-1.5 5.5L6.5 15z" fill="#e2761b" />
      <path d="M26 6.5 18 12l1.5 5.5 6-2.5z" fill="#e2761b" />
      <path d="M12.5 17.5 14 12h4l1.5 5.5L16 25z" fill="#f6851b" />
      <path d="M6.5 15l6 2.5L16 25l-6.5-3.5z" fill="#cd6116" />
      <path d="M25.5 15l-6 2.5L16 25l6.5-3.5z" fill="#cd6116" />
    </>
  ),
  // The devnet wallet: a test-tube flask in the app's accent, for a wallet that only plays.
  devnet: (
    <>
      <rect width="32" height="32" rx="8" fill="#1a1f28" />
      <path
        d="M13 7h6v1.5h-1v5.2l5.3 8.7A2 2 0 0 1 21.6 25H10.4a2 2 0 0 1-1.7-2.6L14 13.7V8.5h-1z"
        fill="none"
        stroke="#f7931a"
        strokeWidth="1.6"
        strokeLinejoin="round"
      />
      <path d="M11.5 20h9l1.4 2.6a1 1 0 0 1-.9 1.4H11a1 1 0 0 1-.9-1.4z" fill="#f7931a" />
    </>
  ),
};
