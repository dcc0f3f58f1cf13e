// The guardian protocol's message table: for each message type, the schema of its body and of its
// answer. A guardian parses a body here when it receives it (node.ts, after the envelope holds and
// before any handler runs), the caller parses the answer here when it reads it (transport.ts
// callParty), so a handler and a coordinator work with typed values, never cast ones. The schemas
// check a body's shape (which fields, of which JSON type); what a field means (a roster that
// follows the set, a share that opens, a signature that verifies) is checked by its handler.
// A new message type is one new entry here.
import * as z from 'zod';
import type { Json } from './canonical';
import type { FrostPublicJson } from './frost';
import { ProtocolError } from './envelope';

/** Any JSON value, present: a set, a roster or a FROST package its own parser reads. */
const json = z.custom<Json>((value) => value !== undefined, 'required');
/** A JSON object: a set, a roster, a signed price. */
const object = z.custom<{ [key: string]: Json }>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  'expected a JSON object',
);
const session = z.string().max(200);
const guardianId = z.number().int().min(1).max(1000);
const hex = z.string().max(100_000);
const signature = z.object({ signature: hex });
/** A signed envelope as it travels (envelope.ts Wire). */
const wire = z.object({
  payload: z.string(),
  sig: z.string().optional(),
  mac: z.string().optional(),
});
/** Evidence naming the party whose part failed; its handler checks what it proves. */
const blame = z.looseObject({ guardian: z.number().int(), why: z.string().optional() });
const nothing = z.looseObject({});
/** A FROST group's public package (frost.ts FrostPublicJson). */
const frostPublic = z.object({
  commitments: z.array(hex),
  verifyingShares: z.record(z.string(), hex),
}) satisfies z.ZodType<FrostPublicJson>;
const withSession = z.looseObject({ session });
const withSet = z.looseObject({ session, set: object });
const abort = z.looseObject({ session, reason: z.unknown().optional() });
/** A helper's sealed repair piece or sum, with its public points (repair-rounds.ts). */
const repairPart = z.looseObject({ session, from: guardianId, points: json, box: json });

const signSession = {
  sessionId: z.string().max(300),
  attempt: z.number().int().nonnegative().optional(),
};
const commitments = json;

export const MESSAGES = {
  // ---- the first DKG and a rotation's (dkg-rounds.ts, first-roster.ts, handover.ts)
  'dkg/roster': {
    body: z.looseObject({ roster: object, session }),
    answer: z.object({ joined: guardianId }),
  },
  'dkg/round1': { body: nothing, answer: z.object({ package: json }) },
  'dkg/round2': {
    body: z.looseObject({ round1: z.array(wire) }),
    answer: z.object({ sent: z.number().int() }),
  },
  'dkg/share': {
    body: z.looseObject({ session, box: json }),
    answer: z.object({ received: z.literal(true) }),
  },
  'dkg/finish': {
    body: nothing,
    answer: z.union([
      z.object({ frost: frostPublic, groupKey: hex, received: z.array(wire) }),
      z.object({ blame }),
    ]),
  },
  'dkg/abort': {
    body: z.looseObject({ session, reason: z.unknown().optional() }),
    answer: z.object({ aborted: z.literal(true) }),
  },
  'set/sign': { body: z.looseObject({ set: object }), answer: signature },
  'set/install': {
    body: z.looseObject({ set: object, previous: object.optional() }),
    answer: z.object({ installed: z.literal(true) }),
  },
  'set/handover': { body: object, answer: signature },
  'rotate/roster': {
    body: z.looseObject({ roster: object }),
    answer: z.object({ joined: z.number().int() }),
  },
  // ---- co-signing (signing-rounds.ts, signing-run.ts)
  'sign/propose': {
    body: z.looseObject({
      ...signSession,
      message: hex,
      context: z.unknown().optional(),
      commitAttempt: z.number().int().nonnegative().optional(),
    }),
    answer: z.object({
      approved: z.boolean(),
      reason: z.string().nullable(),
      commitments: commitments.optional(),
    }),
  },
  'sign/commit': {
    body: z.looseObject(signSession),
    answer: z.object({ commitments }),
  },
  'sign/share': {
    body: z.looseObject({ ...signSession, commitments: z.array(json) }),
    answer: z.object({ share: hex, rx: hex }),
  },
  // ---- one-round co-signing over preprocessed commitments (preprocess.ts, signing-rounds.ts)
  'sign/preprocess': {
    body: z.looseObject({ count: z.number().int().min(1).max(1000) }),
    answer: z.object({ epoch: z.string().max(64), commitments: z.array(commitments).max(1000) }),
  },
  'sign/once': {
    body: z.looseObject({
      sessionId: signSession.sessionId,
      message: hex,
      context: z.unknown().optional(),
      commitments: z.array(json).max(1000),
    }),
    answer: z.object({
      approved: z.boolean(),
      reason: z.string().nullable(),
      share: hex.optional(),
      rx: hex.optional(),
    }),
  },
  // ---- a fresh price (price/quorum.ts)
  'price/fresh': { body: nothing, answer: object },
  // ---- resharing (reshare-node.ts, reshare-rounds.ts, reshare-run.ts)
  'reshare/roster': {
    body: z.looseObject({ session, current: object, next: object, dealers: json }),
    answer: z.object({ joined: z.number().int() }),
  },
  'reshare/send': {
    body: withSession,
    answer: z.object({
      dealt: z.array(guardianId),
      deals: z.record(z.string(), wire),
      unreached: z.array(guardianId),
    }),
  },
  'reshare/deal': {
    body: z.looseObject({ session, dealer: guardianId, commitments: json, box: json }),
    answer: z.object({ received: z.literal(true) }),
  },
  'reshare/finish': {
    body: withSession,
    answer: z.union([z.object({ public: frostPublic }), z.object({ blame })]),
  },
  'reshare/sign': { body: withSet, answer: signature },
  'reshare/handover': { body: withSet, answer: signature },
  'reshare/install': { body: withSet, answer: z.object({ installed: z.literal(true) }) },
  'reshare/abort': { body: abort, answer: z.object({ aborted: z.literal(true) }) },
  'reshare/catch-up': {
    body: z.looseObject({ session, set: object, current: object.optional(), dealers: z.array(guardianId).max(1000), deals: z.array(wire).max(1000) }), // prettier-ignore
    answer: z.object({ installed: z.literal(true) }),
  },
  // ---- repair of a lost share (repair-node.ts, repair-rounds.ts, repair-run.ts)
  'repair/roster': {
    body: z.looseObject({ session, current: object, next: object }),
    answer: z.object({ joined: z.number().int() }),
  },
  'repair/send': { body: withSession, answer: z.object({ sent: z.array(guardianId) }) },
  'repair/piece': { body: repairPart, answer: z.object({ received: z.literal(true) }) },
  'repair/forward': { body: withSession, answer: z.object({ sent: guardianId }) },
  'repair/sum': { body: repairPart, answer: z.object({ received: z.literal(true) }) },
  'repair/finish': {
    body: withSession,
    answer: z.union([z.object({ repaired: json }), z.object({ blame })]),
  },
  'repair/sign': { body: withSet, answer: signature },
  'repair/handover': { body: withSet, answer: signature },
  'repair/install': { body: withSet, answer: z.object({ installed: z.literal(true) }) },
  'repair/abort': { body: abort, answer: z.object({ aborted: z.literal(true) }) },
} as const satisfies Record<string, { body: z.ZodType; answer: z.ZodType }>;

export type MessageType = keyof typeof MESSAGES;
export type MessageBody<T extends MessageType> = z.output<(typeof MESSAGES)[T]['body']>;
export type MessageAnswer<T extends MessageType> = z.output<(typeof MESSAGES)[T]['answer']>;

export const MESSAGE_TYPES = Object.keys(MESSAGES) as MessageType[];

export function isMessageType(type: string): type is MessageType {
  return Object.hasOwn(MESSAGES, type);
}

/** A type the table knows, or a `malformed` refusal naming it. */
export function messageType(type: string): MessageType {
  if (!isMessageType(type))
    throw new ProtocolError('malformed', `unknown message type ${type.slice(0, 40)}`);
  return type;
}

function parsed(schema: z.ZodType, value: unknown, what: string): unknown {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new ProtocolError('malformed', `${what} is malformed: ${z.prettifyError(result.error)}`);
  return result.data;
}

// The one place a parsed value is given its type: the schema indexed by a generic type parameter
// is a union to the compiler, though it is the one for T.

/** A received message's body, by its type's schema; a `malformed` refusal saying what is wrong. */
export function parseMessageBody<T extends MessageType>(type: T, body: unknown): MessageBody<T> {
  return parsed(MESSAGES[type].body, body, `the body of ${type}`) as MessageBody<T>;
}

/** An answer's body, by its type's schema; a `malformed` error saying what is wrong. */
export function parseMessageAnswer<T extends MessageType>(
  type: T,
  body: unknown,
): MessageAnswer<T> {
  return parsed(MESSAGES[type].answer, body, `the answer to ${type}`) as MessageAnswer<T>;
}

/** Handlers by message type, each given its body as the table parsed it. */
export type MessageHandlers = { [T in MessageType]?: (body: MessageBody<T>) => unknown };

/**
 * `type`'s handler in `handlers`, taking the raw body and parsing it by the table before it runs;
 * null when `handlers` has none for it.
 */
export function messageHandler<T extends MessageType>(
  handlers: MessageHandlers,
  type: T,
): ((body: unknown) => unknown) | null {
  const handler = handlers[type];
  return handler ? (body) => handler(parseMessageBody(type, body)) : null;
}
