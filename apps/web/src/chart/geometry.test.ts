import { describe, expect, it } from 'vitest';
import type { RatioLinePoint } from '@unit/protocol';
import { stepArea, stepLine } from './geometry';

const point = (timestamp: number, ratio: number): RatioLinePoint =>
  ({ timestamp, ratio, plotted: ratio, priceUsd: 1 }) as RatioLinePoint;
const x = (t: number) => t * 10;
const y = (r: number) => 500 - r;

describe('the ratio step line', () => {
  it('holds each ratio until the next point, then moves', () => {
    expect(stepLine([point(0, 200), point(1, 180), point(3, 250)], x, y)).toBe(
      'M0,300L10,300L10,320L30,320L30,250',
    );
  });

  it('breaks where a point has no ratio, and is empty without one', () => {
    const points = [point(0, 200), point(1, Infinity), point(2, 150), point(4, 160)];
    expect(stepLine(points, x, y)).toBe('M0,300M20,350L40,350L40,340');
    expect(stepLine([point(0, Infinity)], x, y)).toBe('');
  });

  it('shades each run down to the base', () => {
    expect(stepArea([point(0, 200), point(2, 180)], x, y, 480)).toBe(
      'M0,300L20,300L20,320L20,480L0,480Z',
    );
  });

  it('draws straight steps only, no curves', () => {
    expect(stepLine([point(0, 200.123), point(1, 300.456)], x, y)).not.toMatch(/[CQS]/);
  });
});
