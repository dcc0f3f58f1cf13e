// One JSON POST to another party over node:http(s), with keep-alive sockets: what `fetch` did for
// callParty, at a fraction of its CPU (undici's request and stream objects cost ~0.4 ms a call on
// loopback, node:http ~0.1 ms, and the co-signing rounds make five calls a signing). It fails as
// fetch did, so callers' reasons read the same: a time-out is an error named TimeoutError, an
// unreachable party a TypeError whose `cause` carries the socket's code (ECONNREFUSED, ...).
import http from 'node:http';
import https from 'node:https';

/** Idle sockets are kept (unref'd, so they hold no process open) and closed on the server's hint. */
const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

class TimeoutError extends Error {
  override name = 'TimeoutError';
}

/**
 * The reply's status and text; the whole exchange, reply body included, within `timeoutMs`. A
 * request on a reused keep-alive socket that the other side reset before answering is sent once
 * more on a fresh connection (Node's `reusedSocket` advice): the server closed that idle socket,
 * its keep-alive timer fired first (a process that was stopped fires it late), and never read the
 * request. Were it read, the same signed message sent again is refused as a replay, never run twice.
 */
export function postJson(
  url: string,
  body: string,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const agent = agents[target.protocol as keyof typeof agents];
    if (!agent) {
      reject(new TypeError(`unsupported protocol ${target.protocol}`));
      return;
    }
    const send = target.protocol === 'https:' ? https.request : http.request;
    let settled = false;
    let req: http.ClientRequest;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(error);
    };
    const attempt = (fresh: boolean) => {
      let answered = false;
      req = send(
        target,
        {
          method: 'POST',
          agent: fresh ? false : agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (e) => fail(new TypeError('fetch failed', { cause: e })));
          res.on('end', () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
          });
        },
      );
      const sent = req;
      sent.on('error', (e: NodeJS.ErrnoException) => {
        if (!fresh && !answered && !settled && sent.reusedSocket && e.code === 'ECONNRESET')
          attempt(true);
        else fail(new TypeError('fetch failed', { cause: e }));
      });
      sent.end(body);
    };
    const timer = setTimeout(
      () => fail(new TimeoutError('The operation was aborted due to timeout')),
      timeoutMs,
    );
    attempt(false);
  });
}
