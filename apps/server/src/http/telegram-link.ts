// POST /api/telegram/link: the signed-in owner of an address gets a one-time deep link
// to the bot; the chat that opens it follows the address. 503 not_configured without a bot.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { requireSession } from '../auth/sessions';
import { DomainError } from '../errors';
import { WRITE_LIMIT } from './security';
import { tableRoute } from './table-route';
import type { Database } from '../store/schema';
import type { TelegramNotifier } from '../notify/telegram';

export function registerTelegramRoutes(
  app: FastifyInstance,
  db: Kysely<Database>,
  notifier: TelegramNotifier,
): void {
  tableRoute(
    app,
    'telegramLink',
    async ({ request }) => {
      const address = await requireSession(db, request);
      const link = await notifier.createLink(address);
      if (!link) {
        throw new DomainError('not_configured', 'Telegram is not configured on this server');
      }
      return link;
    },
    { config: WRITE_LIMIT },
  );
}
