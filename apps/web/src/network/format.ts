// Plain words for the /network page's times: "12 s ago", "3 min ago", "up 2 h 5 min".

/** Seconds as the largest two units, e.g. "45 s", "3 min 20 s", "2 h 5 min", "4 d 1 h". */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const units: Array<[number, string]> = [
    [86_400, 'd'],
    [3_600, 'h'],
    [60, 'min'],
    [1, 's'],
  ];
  const first = units.findIndex(([size]) => s >= size);
  if (first === -1) return '0 s';
  const [bigSize, bigName] = units[first]!;
  const big = Math.floor(s / bigSize);
  const next = units[first + 1];
  const rest = next ? Math.floor((s % bigSize) / next[0]) : 0;
  return next && rest > 0 ? `${big} ${bigName} ${rest} ${next[1]}` : `${big} ${bigName}`;
}

/** A past unix time relative to now (ms), e.g. "just now", "12 s ago", "3 min ago". */
export function formatAgo(unixSeconds: number, nowMs: number): string {
  const seconds = Math.floor(nowMs / 1000) - unixSeconds;
  if (seconds < 5) return 'just now';
  const [first] = formatDuration(seconds).split(/ (?=\d)/);
  return `${first} ago`;
}

/** A long hex key as its first and last 8 characters, e.g. "3f2a9c01…d4e5b6a7". */
export const shortKey = (hex: string) =>
  hex.length > 20 ? `${hex.slice(0, 8)}…${hex.slice(-8)}` : hex;
