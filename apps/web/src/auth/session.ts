// Sign-in with Bitcoin in the browser: the server's challenge is signed by the connected
// wallet (BIP-322) and exchanged for an HttpOnly session cookie. The session belongs to one
// address: a wallet switched to another address is not signed in until it signs too.
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AuthSessionDto } from '@unit/protocol';
import { callApi } from '../api/call';
import { HttpError } from '../api/http';
import { USER_QUERY_KEY } from '../api/missions';
import { useWallet } from '../wallet';

/** The signed-in address, or null (the server answers null when signed out; an older one, 401). */
export async function getSession(): Promise<AuthSessionDto | null> {
  try {
    return await callApi('authSession', {});
  } catch (error) {
    if (error instanceof HttpError && error.status === 401) return null;
    throw error;
  }
}

export const sessionQueryOptions = queryOptions({
  queryKey: ['auth-session'],
  queryFn: getSession,
  staleTime: 60_000,
});

export interface SessionState {
  /** the session's address when it is the connected wallet's sats address */
  address: string | null;
  signedIn: boolean;
  /** the session is still being read */
  loading: boolean;
}

export function useSession(): SessionState {
  const wallet = useWallet();
  const session = useQuery(sessionQueryOptions);
  const own = wallet.account?.satsAddress ?? null;
  const signedIn = own != null && session.data?.address === own;
  return { address: signedIn ? own : null, signedIn, loading: session.isPending };
}

/** Signs the connected wallet in: challenge, wallet signature, verify. */
export function useSignIn() {
  const wallet = useWallet();
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['sign-in'],
    mutationFn: async (): Promise<AuthSessionDto> => {
      const address = wallet.account?.satsAddress;
      if (!address) throw new Error('Connect a wallet first.');
      const { message } = await callApi('authChallenge', { body: { address } });
      const signature = await wallet.signMessage(message);
      return callApi('authVerify', { body: { address, message, signature } });
    },
    onSuccess: (session) => {
      queryClient.setQueryData(sessionQueryOptions.queryKey, session);
      // The owner's view of their user (linked accounts, referral code) needs the session.
      void queryClient.invalidateQueries({ queryKey: [USER_QUERY_KEY] });
    },
  });
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['sign-out'],
    mutationFn: async () => {
      await callApi('authLogout', {});
    },
    onSuccess: () => {
      queryClient.setQueryData(sessionQueryOptions.queryKey, null);
      void queryClient.invalidateQueries({ queryKey: [USER_QUERY_KEY] });
    },
  });
}
