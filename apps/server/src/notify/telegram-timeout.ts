// Every Bot API call has a time-out of our own (TELEGRAM_TIMEOUT): grammy's client would wait 500 s
// for an answer, and a Bot API that accepts a connection and never answers would hold the outbox
// (and the start, through getMe) that long. getUpdates is a long poll that Telegram holds open for
// its `timeout` seconds by design, so its limit is that wait plus ours.
import type { Bot, Transformer } from 'grammy';

/** A grammy API transformer that aborts a call not answered within `timeoutMs`. */
export function callTimeout(timeoutMs: number): Transformer {
  return (prev, method, payload, signal) => {
    const longPoll = method === 'getUpdates' ? pollSeconds(payload) * 1000 : 0;
    const limit = AbortSignal.timeout(timeoutMs + longPoll);
    // grammy types its signal with the abort-controller polyfill's class; it only listens for the
    // signal's 'abort' event, which the platform's AbortSignal sends.
    const both = signal ? AbortSignal.any([signal as unknown as AbortSignal, limit]) : limit;
    return prev(method, payload, both as unknown as typeof signal);
  };
}

/** The signal `bot.init` takes (grammy's polyfill type), aborted after `timeoutMs`. */
export const initDeadline = (timeoutMs: number) =>
  AbortSignal.timeout(timeoutMs) as unknown as Parameters<Bot['init']>[0];

function pollSeconds(payload: unknown): number {
  const seconds = (payload as { timeout?: unknown } | undefined)?.timeout;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
}
