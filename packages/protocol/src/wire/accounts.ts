// The bodies of the account routes the web app reads and sends: missions, users and referrals,
// sign-in with Bitcoin, Telegram links, community roles and badges (zod, types inferred).
import * as z from 'zod';
import { MISSION_ACTIONS, REFERRAL_LEVEL_IDS } from '../ids';
import { addressSchema } from './http';

const int = z.number().int();
const nullableString = z.string().nullable();

/** GET /api/missions?address= and POST /api/missions/:id/verify — SPEC §3 Mission. */
export const missionSchema = z.object({
  id: z.string(),
  title: z.string(),
  action: z.enum(MISSION_ACTIONS),
  mission_tasks: int,
  completed_tasks: int,
});
export type MissionDto = z.infer<typeof missionSchema>;

/** POST /api/missions/:id/verify body. */
export const verifyMissionBodySchema = z.object({ address: addressSchema });
export type VerifyMissionBody = z.infer<typeof verifyMissionBodySchema>;

/**
 * What anyone may read of a user (GET /api/users/:address, 404 {code:'not_found'} when none; also
 * GET /api/users?address= as a list of zero or one for the web app): what a profile shows — the
 * referral count and level (SPEC §3 Referral levels); roles and badges are its /community.
 * `postage_sats` is the level's (null below the first level: the account's UNIT outputs carry the
 * default, missions.ts).
 */
export const publicUserSchema = z.object({
  address: z.string(),
  referrals: int,
  level: z.enum(REFERRAL_LEVEL_IDS).nullable(),
  level_title: nullableString,
  postage_sats: int.nullable(),
});
export type PublicUserDto = z.infer<typeof publicUserSchema>;

/**
 * The owner's own view (the same reads with the address's session, and POST /api/users): also the
 * linked accounts (SPEC §3 User), the referral code to share and who referred them. Never to anyone
 * else: the ids tie a Bitcoin address to social identities.
 */
export const userSchema = publicUserSchema.extend({
  discord_id: nullableString,
  twitter_id: nullableString,
  telegram_id: nullableString,
  referral_code: z.string(),
  referred_by: nullableString,
});
export type UserDto = z.infer<typeof userSchema>;

/** POST /api/users body (201 UserDto; idempotent). */
export const registerUserBodySchema = z.object({
  address: addressSchema,
  referral_code: z.string().max(20).nullable().optional(),
});
export type RegisterUserBody = z.infer<typeof registerUserBodySchema>;

/** POST /api/auth/challenge answer: the text the wallet signs (BIP-322 simple or BIP-137). */
export const authChallengeSchema = z.object({
  message: z.string(),
  /** unix seconds after which the challenge is refused */
  expires_at: int,
});
export type AuthChallengeDto = z.infer<typeof authChallengeSchema>;

/** POST /api/auth/verify body. */
export const authVerifyBodySchema = z.object({
  address: addressSchema,
  message: z.string().min(1).max(1000),
  /** base64 */
  signature: z.string().min(1).max(500),
});
export type AuthVerifyBody = z.infer<typeof authVerifyBodySchema>;

/** GET /api/auth/session and POST /api/auth/verify answer: whose session the cookie carries. */
export const authSessionSchema = z.object({ address: z.string() });
export type AuthSessionDto = z.infer<typeof authSessionSchema>;

/** POST /api/telegram/link answer: the bot's deep link carrying a one-time code. */
export const telegramLinkSchema = z.object({ url: z.string(), expires_at: int });
export type TelegramLinkDto = z.infer<typeof telegramLinkSchema>;

/** One role or badge of a user's profile: earned or not, and how it is earned. */
export const communityAwardSchema = z.object({
  id: z.string(),
  title: z.string(),
  /** the rule, in the user's words */
  how: z.string(),
  earned: z.boolean(),
});
export type CommunityAwardDto = z.infer<typeof communityAwardSchema>;

/** GET /api/users/:address/community: SPEC §3 Discord roles and badges, computed on the server. */
export const communitySchema = z.object({
  roles: z.array(communityAwardSchema),
  badges: z.array(communityAwardSchema),
});
export type CommunityDto = z.infer<typeof communitySchema>;
