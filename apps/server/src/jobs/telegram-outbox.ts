// Telegram's outbox is drained (and its bot polled) by the leader.
import type { TelegramNotifier } from '../notify/telegram';
import type { LeaderJob } from './leader-job';

export function telegramOutboxJob(notifier: TelegramNotifier): LeaderJob {
  return {
    name: 'telegram-outbox',
    start: () => notifier.startWorker(),
    stop: () => notifier.stop(),
  };
}
