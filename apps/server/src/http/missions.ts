// /api/missions and /api/users (SPEC §3 Mission, User; SPEC §7 mission and user calls). Reads are
// public, a user's only as a profile shows it (the linked accounts to the owner's session alone);
// every write needs the session of the address it is about (auth/sessions.ts).
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { requireSession, sessionAddress } from '../auth/sessions';
import { communityOf } from '../missions/community';
import { findUser, listMissions, registerUser, verifyMission } from '../missions/missions';
import type { Database } from '../store/schema';
import { notFound } from './errors';
import { WRITE_LIMIT } from './security';
import { tableRoute } from './table-route';

export function registerMissionRoutes(app: FastifyInstance, db: Kysely<Database>): void {
  tableRoute(app, 'missions', ({ query }) => listMissions(db, query.address));

  tableRoute(
    app,
    'missionVerify',
    async ({ params: { id }, body, request }) => {
      await requireSession(db, request, body.address);
      const mission = await verifyMission(db, id, body.address);
      if (!mission) throw notFound('No such mission');
      return mission;
    },
    { config: WRITE_LIMIT },
  );

  // The web app's own lookup: an address that never registered is an ordinary answer ([]), not a
  // 404 the browser logs as an error wherever it reads the user's level (as GET /api/vaults).
  tableRoute(app, 'users', async ({ query, request }) => {
    const user = await findUser(db, query.address, await sessionAddress(db, request));
    return user ? [user] : [];
  });

  tableRoute(app, 'user', async ({ params, request }) => {
    const user = await findUser(db, params.address, await sessionAddress(db, request));
    if (!user) throw notFound('No such user');
    return user;
  });

  tableRoute(app, 'userCommunity', async ({ params }) => {
    const community = await communityOf(db, params.address);
    if (!community) throw notFound('No such user');
    return community;
  });

  tableRoute(
    app,
    'registerUser',
    async ({ body, request }) => {
      await requireSession(db, request, body.address);
      return registerUser(db, body.address, body.referral_code ?? null);
    },
    { config: WRITE_LIMIT },
  );
}
