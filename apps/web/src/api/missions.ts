// Missions and users of the missions area (SPEC §3 Mission, User; SPEC §7 mission and user calls):
// GET /api/missions?address=, POST /api/missions/:id/verify, GET /api/users?address= (the list form
// of GET /api/users/:address), POST /api/users.
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  accountPostageSats,
  type CommunityDto,
  type ConfigDto,
  type PublicUserDto,
  type RegisterUserBody,
  type UserDto,
} from '@unit/protocol';
import { callApi, callApiOrNull } from './call';

export const getMissions = (address: string) => callApi('missions', { query: { address } });

export const missionsQueryOptions = (address: string | null) =>
  queryOptions({
    queryKey: ['missions', address],
    queryFn: () => getMissions(address!),
    enabled: address != null,
    staleTime: 30_000,
  });

export const useMissions = (address: string | null) => useQuery(missionsQueryOptions(address));

/** The server checks the vault history and answers the mission with its completion. */
export const verifyMission = (missionId: string, address: string) =>
  callApi('missionVerify', { params: { id: missionId }, body: { address } });

/** Key of the verify mutations of an address: the page reads which missions are being verified. */
export const verifyMissionKey = (address: string | null) => ['verify-mission', address];

export function useVerifyMission(address: string | null) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: verifyMissionKey(address),
    mutationFn: (missionId: string) => verifyMission(missionId, address!),
    onSuccess: (mission) => {
      queryClient.setQueryData(missionsQueryOptions(address).queryKey, (list) =>
        list?.map((m) => (m.id === mission.id ? mission : m)),
      );
      // Verifying registers the address on the server (and may move the user's level).
      void queryClient.invalidateQueries({ queryKey: userQueryOptions(address).queryKey });
    },
  });
}

/**
 * The user of an address, or null when it has not registered (GET /api/users?address=: a list):
 * the owner's view (linked accounts, referral code) with the address's session, the profile
 * otherwise.
 */
export const getUser = async (address: string): Promise<PublicUserDto | UserDto | null> => {
  const [user] = await callApi('users', { query: { address } });
  return user ?? null;
};

/** The query key of every user read: signing in or out refetches them (the view changes). */
export const USER_QUERY_KEY = 'mission-user';

export const userQueryOptions = (address: string | null) =>
  queryOptions({
    queryKey: [USER_QUERY_KEY, address],
    queryFn: () => getUser(address!),
    enabled: address != null,
    staleTime: 30_000,
  });

export const useMissionUser = (address: string | null) => useQuery(userQueryOptions(address));

/**
 * The postage of the account's own UNIT outputs: its referral level's, the default without one
 * (missions.ts accountPostageSats), with the level's title. Estimates use it; the flow reads the
 * user afresh to build.
 */
export function useAccountPostage(
  config: ConfigDto,
  address: string | null,
): { sats: number; levelTitle: string | null } {
  const user = useMissionUser(address);
  return {
    sats: accountPostageSats(user.data?.level ?? null, config.constants.unitPostageSats),
    levelTitle: user.data?.level_title ?? null,
  };
}

/** Registers the address (idempotent on the server); a referral code names who invited it. */
export const registerUser = (body: RegisterUserBody) => callApi('registerUser', { body });

export function useRegisterUser(address: string | null) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['register-user', address],
    mutationFn: (referralCode: string | null) =>
      registerUser({ address: address!, referral_code: referralCode }),
    onSuccess: async (user) => {
      // A read started before registering (signing in refetches the user) must not land after
      // this answer and put the unregistered state back.
      const { queryKey } = userQueryOptions(user.address);
      await queryClient.cancelQueries({ queryKey });
      queryClient.setQueryData(queryKey, user);
    },
  });
}

/** GET /api/users/:address/community: roles and badges, earned or not (null: not registered). */
export const getCommunity = (address: string): Promise<CommunityDto | null> =>
  callApiOrNull('userCommunity', { params: { address } });

export const useCommunity = (address: string | null) =>
  useQuery({
    queryKey: ['community', address],
    queryFn: () => getCommunity(address!),
    enabled: address != null,
    staleTime: 30_000,
  });

export type OAuthProvider = 'discord' | 'twitter';

/** GET /api/oauth/providers: which account links the server has an OAuth app for. */
export const useOAuthProviders = () =>
  useQuery({
    queryKey: ['oauth-providers'],
    queryFn: () => callApi('oauthProviders', {}),
    staleTime: Infinity,
  });

/** POST /api/oauth/:provider/start (signed in): the provider's consent URL to go to. */
export const startAccountLink = (provider: OAuthProvider) =>
  callApi('oauthStart', { params: { provider } });
