import { describe, expect, it } from 'vitest';
import { timeTicks } from './axis';

// Local midnight, so the expectations hold in any time zone.
const MIDNIGHT = new Date(2026, 5, 10).getTime() / 1000;

describe('timeTicks', () => {
  it('spaces a day by hours on a phone and never crowds the labels', () => {
    const ticks = timeTicks(MIDNIGHT, MIDNIGHT + 86_400, 300);
    // 300 px hold 3 labels: a day in 12-hour steps
    expect(ticks.map((t) => t.label)).toEqual(['00:00', '12:00', '00:00']);
    // the phone's 56 px gap: a day's axis of 236 px in 6-hour steps
    const phone = timeTicks(MIDNIGHT + 3600, MIDNIGHT + 86_400 + 3600, 236, 56);
    expect(phone.map((t) => t.label)).toEqual(['06:00', '12:00', '18:00', '00:00']);
  });

  it('reads a vault opened minutes ago in minutes', () => {
    const ticks = timeTicks(MIDNIGHT + 600, MIDNIGHT + 1500, 700);
    expect(ticks.map((t) => t.label)).toEqual(['00:10', '00:15', '00:20', '00:25']);
  });

  it('names months over a year, and the year at January', () => {
    const start = new Date(2025, 11, 15).getTime() / 1000;
    const end = new Date(2026, 11, 15).getTime() / 1000;
    const labels = timeTicks(start, end, 700).map((t) => t.label);
    expect(labels[0]).toBe('Jan 2026');
    expect(labels).toContain('Jul');
    expect(labels.length).toBeLessThanOrEqual(8);
  });
});
