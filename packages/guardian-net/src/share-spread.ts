// How far apart an honest session's shares come, learned by the coordinator from the sessions that
// completed: the time from a session's first share to its last, smoothed as TCP smooths a round
// trip (RFC 6298: a mean and a mean deviation, each moved an eighth and a quarter of the way to a
// new sample). The scheduler waits that long past a session's first share (mean plus four
// deviations, at least 50 ms) before it counts the session late and starts another (roast.ts): on
// a quiet link a silent or late guardian costs a few milliseconds more than one session's round
// trip, while on a loaded machine, where the shares of honest guardians come far apart, the wait
// grows with them and an honest signing stays one session.

/** The least wait past a first share: below it, the spread is the host's scheduling noise. */
export const MIN_PATIENCE_MS = 50;

export class ShareSpread {
  private mean: number | null = null;
  private dev = 0;

  /** A completed session's spread (first share to last), in ms. */
  record(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    if (this.mean === null) {
      this.mean = ms;
      this.dev = ms / 2;
      return;
    }
    // A sample past twice the wait counts as twice the wait: a guardian that is slow on purpose,
    // and answered before its session was given up, moves the wait a step, not to its own pace.
    const x = Math.min(ms, 2 * this.patienceMs()!);
    this.dev = 0.75 * this.dev + 0.25 * Math.abs(x - this.mean);
    this.mean = 0.875 * this.mean + 0.125 * x;
  }

  /** The wait past a first share, or undefined before any session completed. */
  patienceMs(): number | undefined {
    if (this.mean === null) return undefined;
    return Math.max(MIN_PATIENCE_MS, Math.round(this.mean + 4 * this.dev));
  }
}
