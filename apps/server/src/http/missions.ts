// /api/missions and /api/users (SPEC §3 Mission, User; SPEC §7 mission and user calls). Reads are
// public, a user's only as a profile shows it (the linked accounts to the owner's session alone);
// every write needs the session of the address it is about (auth/sessions.ts).
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import * as z from 'zod';
import { registerUserBodySchema, verifyMissionBodySchema } from '@unit/protocol/wire';
import { requireSession, sessionAddress } from '../auth/sessions';
import { communityOf } from '../missions/community';
import { findUser, listMissions, registerUser, verifyMission } from '../missions/missions';
import type { Database } from '../store/schema';
import { notFound, parseInput } from './errors';
import { WRITE_LIMIT } from './security';

const address = z.string().regex(/^[A-Za-z0-9]{14,90}$/, 'expected a Bitcoin address');

export function registerMissionRoutes(app: FastifyInstance, db: Kysely<Database>): void {
  app.get('/api/missions', async (request) => {
    const query = parseInput(z.object({ address }), request.query);
    return listMissions(db, query.address);
  });

  app.post('/api/missions/:id/verify', { config: WRITE_LIMIT }, async (request) => {
    const { id } = parseInput(z.object({ id: z.string().max(20) }), request.params);
    const body = parseInput(verifyMissionBodySchema, request.body);
    await requireSession(db, request, body.address);
    const mission = await verifyMission(db, id, body.address);
    if (!mission) throw notFound('No such mission');
    return mission;
  });

  // The web app's own lookup: an address that never registered is an ordinary answer ([]), not a
  // 404 the browser logs as an error wherever it reads the user's level (as GET /api/vaults).
  app.get('/api/users', async (request) => {
    const query = parseInput(z.object({ address }), request.query);
    const user = await findUser(db, query.address, await sessionAddress(db, request));
    return user ? [user] : [];
  });

  app.get('/api/users/:address', async (request) => {
    const params = parseInput(z.object({ address }), request.params);
    const user = await findUser(db, params.address, await sessionAddress(db, request));
    if (!user) throw notFound('No such user');
    return user;
  });

  app.get('/api/users/:address/community', async (request) => {
    const params = parseInput(z.object({ address }), request.params);
    const community = await communityOf(db, params.address);
    if (!community) throw notFound('No such user');
    return community;
  });

  app.post('/api/users', { config: WRITE_LIMIT }, async (request, reply) => {
    const body = parseInput(registerUserBodySchema, request.body);
    await requireSession(db, request, body.address);
    return reply.status(201).send(await registerUser(db, body.address, body.referral_code ?? null));
  });
}
