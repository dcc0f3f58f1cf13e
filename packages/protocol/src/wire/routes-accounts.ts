// The route table's account routes (routes.ts): sign-in with Bitcoin, account links, missions,
// users and referrals, Telegram links. Each write needs the session of the address it is about.
import * as z from 'zod';
import { keyLookups } from './route-lookups';
import {
  authChallengeSchema,
  authSessionSchema,
  authVerifyBodySchema,
  communitySchema,
  missionSchema,
  registerUserBodySchema,
  telegramLinkSchema,
  userSchema,
  verifyMissionBodySchema,
} from './accounts';
import { addressSchema } from './http';
import type { RouteSchemas } from './route-schema';

const oauthProviderSchema = z.enum(['discord', 'twitter']);
/**
 * A user as a read answers it: the owner's view with their session (every field), the profile
 * otherwise (the owner's fields absent). One object, not a union, so the answer's serialiser
 * writes the fields present and never guesses between two shapes.
 */
const anyUserSchema = userSchema.partial({
  discord_id: true,
  twitter_id: true,
  telegram_id: true,
  referral_code: true,
  referred_by: true,
});

const userOfAddress = keyLookups(
  'The user of an address',
  'it never registered',
  z.object({ address: addressSchema }),
  anyUserSchema,
);

export const ACCOUNT_ROUTES = {
  authChallenge: {
    summary: 'The text a wallet signs to sign in with its address.',
    body: z.object({ address: addressSchema }),
    response: authChallengeSchema,
  },
  authVerify: {
    summary: 'Checks the signed challenge and sets the session cookie.',
    body: authVerifyBodySchema,
    response: authSessionSchema,
  },
  authSession: {
    summary: 'Whose session the cookie carries; null when signed out.',
    response: authSessionSchema.nullable(),
  },
  authLogout: {
    summary: 'Ends the session and clears its cookie.',
    status: 204,
    response: z.null(),
  },
  oauthProviders: {
    summary: 'Which account providers this server can link.',
    response: z.object({ discord: z.boolean(), twitter: z.boolean() }),
  },
  oauthStart: {
    summary: 'The provider’s consent URL for linking the signed-in address’s account.',
    params: z.object({ provider: oauthProviderSchema }),
    response: z.object({ url: z.string() }),
  },
  oauthCallback: {
    summary:
      'Where the provider sends the browser back: links the account, then redirects to the missions page.',
    params: z.object({ provider: oauthProviderSchema }),
    // Checked by the handler: a failed link is a redirect saying so, never a 400.
    query: z.object({ state: z.string().optional(), code: z.string().optional() }).catch({}),
    status: 302,
    response: z.null(),
  },
  missions: {
    summary: 'The missions and an address’s progress in each.',
    query: z.object({ address: addressSchema }),
    response: z.array(missionSchema),
  },
  missionVerify: {
    summary: 'Checks a mission for the signed-in address; 404 when there is no such mission.',
    params: z.object({ id: z.string().max(20) }),
    body: verifyMissionBodySchema,
    response: missionSchema,
  },
  users: userOfAddress.inQuery,
  user: userOfAddress.inPath,
  userCommunity: {
    summary: 'A user’s community roles and badges.',
    params: z.object({ address: addressSchema }),
    response: communitySchema,
  },
  registerUser: {
    summary: 'Registers the signed-in address (idempotent), with the code of who referred it.',
    body: registerUserBodySchema,
    status: 201,
    response: userSchema,
  },
  telegramLink: {
    summary: 'A one-time deep link to the bot for the signed-in address’s Telegram chat.',
    response: telegramLinkSchema,
  },
} as const satisfies Record<string, RouteSchemas>;
