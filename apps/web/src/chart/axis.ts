// The chart's time axis: ticks on local boundaries (d3-time) as far apart as the width allows, for
// any span from minutes (a vault opened just now) to a year, labelled with Intl.
import {
  timeDay,
  timeHour,
  timeMinute,
  timeMonth,
  timeWeek,
  type CountableTimeInterval,
  type TimeInterval,
} from 'd3-time';

const CLOCK = new Intl.DateTimeFormat('en-US', {
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
const DAY = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric' });
const MONTH = new Intl.DateTimeFormat('en-US', { month: 'short' });
const MONTH_YEAR = new Intl.DateTimeFormat('en-US', { month: 'short', year: 'numeric' });

const MINUTE = 60;
const HOUR = 3600;
const DAY_S = 86_400;

const every = (interval: CountableTimeInterval, n: number): TimeInterval =>
  n === 1 ? interval : interval.every(n)!;

/** Candidate steps, finest first: seconds apart, the interval, and how a tick reads. */
const STEPS: { seconds: number; interval: TimeInterval; label: (d: Date) => string }[] = [
  ...[1, 5, 15, 30].map((n) => ({
    seconds: n * MINUTE,
    interval: every(timeMinute, n),
    label: (d: Date) => CLOCK.format(d),
  })),
  ...[1, 3, 6, 12].map((n) => ({
    seconds: n * HOUR,
    interval: every(timeHour, n),
    label: (d: Date) => CLOCK.format(d),
  })),
  ...[1, 2].map((n) => ({
    seconds: n * DAY_S,
    interval: every(timeDay, n),
    label: (d: Date) => DAY.format(d),
  })),
  { seconds: 7 * DAY_S, interval: timeWeek, label: (d: Date) => DAY.format(d) },
  { seconds: 14 * DAY_S, interval: timeWeek.every(2)!, label: (d: Date) => DAY.format(d) },
  ...[1, 2, 3].map((n) => ({
    seconds: 30 * n * DAY_S,
    interval: every(timeMonth, n),
    // January names its year: a YTD axis crosses one
    label: (d: Date) => (d.getMonth() === 0 ? MONTH_YEAR : MONTH).format(d),
  })),
];

export interface TimeTick {
  /** unix seconds */
  at: number;
  label: string;
}

/** Ticks between start and end (unix seconds), at most one per `minGapPx` of `widthPx`. */
export function timeTicks(start: number, end: number, widthPx: number, minGapPx = 84): TimeTick[] {
  const span = Math.max(1, end - start);
  const most = Math.max(2, Math.floor(widthPx / minGapPx));
  const step = STEPS.find((s) => span / s.seconds <= most) ?? STEPS.at(-1)!;
  return step.interval
    .range(new Date(start * 1000), new Date(end * 1000 + 1))
    .map((d) => ({ at: d.getTime() / 1000, label: step.label(d) }));
}

const MOMENT = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** The tooltip's date: day and minute, on a 24-hour clock. */
export const formatMoment = (seconds: number) => MOMENT.format(new Date(seconds * 1000));
