// TLS 1.3 on every link between parties, each side checked against the identity keys of the
// published set (tls-identity.ts). A client presents its own certificate and accepts the server
// only when the server's certificate is bound to the identity key it meant to call; a guardian's
// server asks every client for its certificate, and a signed message must come over a connection
// whose certificate is bound to the message's sender (node-http.ts).
import https from 'node:https';
import type { Duplex } from 'node:stream';
import tls, { type TLSSocket } from 'node:tls';
import type { Identity } from './identity';
import {
  makeTlsCredentials,
  peerIdentity,
  TlsPeerError,
  type TlsCredentials,
} from './tls-identity';

export interface LinkTls {
  /** our own certificate; a public reader without an identity presents none */
  credentials?: TlsCredentials;
  /** the identity key the server must be bound to; without it any party's bound certificate */
  expect?: string;
}

const IDLE_MS = 4_000;
const TLS_OPTIONS = { minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' } as const;

/** Credentials of the parties living in this process, by identity key. */
const own = new Map<string, TlsCredentials>();

/** Registers a party's TLS credentials, so its calls present them (transport.ts looks them up). */
export function registerTlsCredentials(credentials: TlsCredentials): void {
  own.set(credentials.identityKey, credentials);
}

export function tlsCredentialsOf(identityKey: string): TlsCredentials | undefined {
  return own.get(identityKey);
}

const making = new Map<string, Promise<TlsCredentials>>();

/**
 * The credentials `identity` presents on its calls: those registered at its start (a guardian's
 * server), or made at its first call over https and kept for the life of the process (the app's
 * coordinator, a command that runs a DKG). A party that only speaks plain HTTP never makes one.
 */
export function linkCredentials(identity: Identity): Promise<TlsCredentials> {
  const known = own.get(identity.publicKey);
  if (known) return Promise.resolve(known);
  let pending = making.get(identity.publicKey);
  if (!pending) {
    pending = makeTlsCredentials(identity).then((credentials) => {
      registerTlsCredentials(credentials);
      return credentials;
    });
    pending.catch(() => making.delete(identity.publicKey));
    making.set(identity.publicKey, pending);
  }
  return pending;
}

/** An https agent that checks the server's certificate before a byte of the request is sent. */
class PinnedAgent extends https.Agent {
  constructor(
    private readonly link: LinkTls,
    keepAlive: boolean,
  ) {
    super({ keepAlive, timeout: IDLE_MS });
  }

  override createConnection(
    options: https.RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): undefined {
    const done = callback ?? (() => undefined);
    const socket = tls.connect({
      ...(options as tls.ConnectionOptions),
      ...TLS_OPTIONS,
      key: this.link.credentials?.key,
      cert: this.link.credentials?.cert,
      // The chain is self-signed by design: what is checked is the identity binding, below.
      rejectUnauthorized: false,
      servername: undefined,
    });
    const fail = (e: Error) => {
      socket.destroy();
      done(e, socket);
    };
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      socket.off('error', fail);
      try {
        const raw = socket.getPeerCertificate(false)?.raw;
        peerIdentity(raw, (k) => this.link.expect === undefined || k === this.link.expect);
        done(null, socket);
      } catch (e) {
        fail(e as Error);
      }
    });
    return undefined;
  }
}

const agents = new Map<string, PinnedAgent>();

/** The agent for calls from `link.credentials` to `link.expect`; kept alive unless `pooled` is false. */
export function pinnedAgent(link: LinkTls, pooled = true): https.Agent {
  if (!pooled) return new PinnedAgent(link, false);
  const key = `${link.credentials?.identityKey ?? '-'}>${link.expect ?? '*'}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new PinnedAgent(link, true);
    agents.set(key, agent);
  }
  return agent;
}

/** What a guardian's https server is made with: its certificate, and every client asked for one. */
export function serverTlsOptions(credentials: TlsCredentials): https.ServerOptions {
  return {
    ...TLS_OPTIONS,
    key: credentials.key,
    cert: credentials.cert,
    requestCert: true,
    // A public reader presents no certificate; a signed message is refused without one (node-http).
    rejectUnauthorized: false,
  };
}

/** The identity a client's connection is bound to, or the reason it is not. */
export function clientIdentity(socket: TLSSocket): string {
  return peerIdentity(socket.getPeerCertificate(false)?.raw, () => true);
}

export { TlsPeerError };
