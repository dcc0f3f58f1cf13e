// How an open live stream is held: by its socket alone. Node's HTTP server keeps, for as long as a
// response is open, its request, its response, the connection's parser and their state (about
// 5 KB of heap a stream, two thirds of what one costs). An event stream needs none of them once
// its head is written, as a WebSocket needs none after its upgrade: so its socket is taken from
// the HTTP server the way Node's own upgrade takes it, and everything after the head is written
// to the socket directly, each event's bytes made once and written to every stream.
import { createRequire } from 'node:module';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // nginx and similar proxies buffer responses unless told not to.
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
};

/** The headers of an answer to HEAD, which opens no stream. */
export const STREAM_HEADERS: Readonly<Record<string, string>> = SSE_HEADERS;

/**
 * The head of every stream. The stream ends when its connection does (no parser is left to read
 * another request on it), so its body runs to the close, as HTTP/1.0 and 1.1 both allow.
 */
export const STREAM_HEAD = Buffer.from(
  `HTTP/1.1 200 OK\r\n${Object.entries(SSE_HEADERS)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}connection: close\r\n\r\n`,
  'latin1',
);

interface NodeParser {
  finish(): unknown;
}

/**
 * Node's own release of a connection's parser, the one its upgrade uses: stops it reading the
 * socket, takes it out of the server's list of connections timed for their requests, and returns
 * it to the pool of parsers.
 */
const { freeParser } = createRequire(import.meta.url)('_http_common') as {
  freeParser(parser: NodeParser, req: null, socket: Socket): void;
};

/**
 * The listeners Node's HTTP server puts on each connection's socket, by name; each holds the
 * connection's parser and state. They are taken off as an upgrade takes them off.
 */
const SERVER_LISTENERS = [
  ['data', 'bound socketOnData'],
  ['end', 'bound socketOnEnd'],
  ['close', 'bound socketOnClose'],
  ['drain', 'bound socketOnDrain'],
  ['error', 'socketOnError'],
  ['timeout', 'socketOnTimeout'],
  ['resume', 'onSocketResume'],
  ['pause', 'onSocketPause'],
] as const;

type Listener = (...args: unknown[]) => void;
const serverListener = (socket: Socket, event: string, name: string): Listener | undefined =>
  socket.listeners(event).find((l) => l.name === name) as Listener | undefined;

/** A stream's reader sends nothing after its request: anything more is not an event reader. */
function refuseInput(this: Socket) {
  this.destroy();
}
/** The reader hung up its side: the stream is over. */
function readerEnded(this: Socket) {
  this.destroy();
}

/**
 * Takes `socket` from the HTTP server once the request that opened the stream is parsed (so after
 * the turn that parsed it: the parser is not freed under its own feet). Leaves it with the server
 * when the socket is already closing or this Node keeps its connections otherwise than expected.
 */
function takeFromServer(socket: Socket, res: ServerResponse): void {
  const held = socket as Socket & { parser?: NodeParser | null; _httpMessage?: unknown };
  const parser = held.parser;
  if (socket.destroyed || !parser || held._httpMessage !== res) return;
  const found = SERVER_LISTENERS.map(([event, name]) => serverListener(socket, event, name));
  if (found.some((listener) => listener === undefined)) return;
  res.detachSocket(socket);
  SERVER_LISTENERS.forEach(([event], i) => socket.removeListener(event, found[i]!));
  parser.finish();
  freeParser(parser, null, socket);
  // With the parser gone, Node's wrappers of `on` give way to the socket's own on this call.
  socket.on('data', refuseInput);
  socket.on('end', readerEnded);
  socket.resume();
}

/**
 * Starts the stream on the socket of `res` with `first` (its head, then what the reader is told
 * first), and hands the socket over from the HTTP server. Null when the reader is already gone.
 * `onClose` runs (with the socket as `this`) when the socket closes or fails.
 */
export function holdStream(
  res: ServerResponse,
  first: Buffer,
  onClose: (this: Socket) => void,
): Socket | null {
  const socket = res.socket;
  if (!socket || socket.destroyed) return null;
  // No idle timer per socket: the beat writes to every stream, and a reader that stops taking
  // what is written is dropped by its unsent bytes.
  socket.setTimeout(0);
  // Before Node's error listener goes: an error with no listener would end the process.
  socket.on('error', onClose);
  socket.on('close', onClose);
  socket.write(first);
  setImmediate(takeFromServer, socket, res);
  return socket;
}
