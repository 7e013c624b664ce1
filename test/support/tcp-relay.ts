/**
 * A TCP relay on 127.0.0.1 in front of a real service (Redis, PostgreSQL), to stage outages: the tests
 * point their clients at the relay, then cut, restore, freeze or thaw it, and the clients see exactly
 * what a lost, returning, hung or slow server looks like, while the service itself keeps running for
 * the other tests.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpTarget {
  host: string;
  port: number;
}

export interface TcpRelay {
  /** Where the relay listens on 127.0.0.1; the same port after a restore, so clients find it again. */
  readonly port: number;
  /** Reset every connection and stop listening: the peer is refused at once. */
  cut(): Promise<void>;
  /** Listen again on the same port: clients configured with the relay's address reconnect on their own. */
  restore(): Promise<void>;
  /** Keep the connections open but pass nothing on: a hung network, where nothing is refused. */
  freeze(): void;
  /** Pass on what was held while frozen, in order, and everything after it. */
  thaw(): void;
  /**
   * Hold every chunk `ms` before passing it on, in each direction, in order: a slow server that still
   * answers (a round trip takes 2 × `ms` more). 0 passes chunks on at once again.
   */
  delay(ms: number): void;
  /** Connections made to the relay so far (reconnections show up here). */
  readonly connections: number;
}

/** A TCP relay to `target` that a test can cut, restore on the same port, freeze and thaw. */
export async function startTcpRelay(target: TcpTarget): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  let frozen = false;
  let delayMs = 0;
  let connections = 0;
  const held: Array<() => void> = [];
  const forward = (from: Socket, to: Socket) => {
    // Chunks of one direction leave in the order they came, even when the delay changes meanwhile.
    let lastDue = 0;
    const pass = (chunk: Buffer): void => {
      if (delayMs === 0 && lastDue <= Date.now()) return void to.write(chunk);
      lastDue = Math.max(lastDue, Date.now() + delayMs);
      setTimeout(() => to.destroyed || to.write(chunk), lastDue - Date.now());
    };
    from.on('data', (chunk: Buffer) => (frozen ? held.push(() => pass(chunk)) : pass(chunk)));
  };
  const makeServer = (): Server =>
    createServer((client) => {
      connections++;
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket)).on('error', () => undefined);
      }
      forward(client, upstream);
      forward(upstream, client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  const listen = (server: Server, port: number): Promise<number> =>
    new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
  let server = makeServer();
  const port = await listen(server, 0);
  return {
    port,
    async cut() {
      for (const socket of sockets) socket.destroy();
      // Whatever a frozen relay was holding belonged to the connections just reset.
      held.length = 0;
      await new Promise((resolve) => server.close(resolve));
    },
    async restore() {
      server = makeServer();
      await listen(server, port);
    },
    freeze: () => void (frozen = true),
    thaw() {
      frozen = false;
      for (const write of held.splice(0)) write();
    },
    delay: (ms: number) => void (delayMs = ms),
    get connections() {
      return connections;
    },
  };
}

export interface ServiceRelay extends TcpRelay {
  /** The service's URL pointed through the relay: credentials, database and options kept. */
  readonly url: string;
}

/** A relay in front of the service `url` names (Redis or PostgreSQL), with `url` pointed through it. */
export async function startRelayFor(url: string): Promise<ServiceRelay> {
  const relay = await startTcpRelay(targetOf(url));
  return Object.defineProperty(relay, 'url', { value: viaRelay(url, relay), enumerable: true }) as ServiceRelay;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'redis:': 6379, 'rediss:': 6379, 'postgres:': 5432, 'postgresql:': 5432 };

/** The host and port `url` points at, with its scheme's default port when it names none. */
function targetOf(url: string): TcpTarget {
  const parsed = new URL(url);
  const port = Number(parsed.port) || DEFAULT_PORTS[parsed.protocol];
  if (!port) throw new Error(`no default port known for ${parsed.protocol} URLs: name the port`);
  // An IPv6 host comes bracketed in a URL, bare in net.connect.
  return { host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

/** `url` with its host and port replaced by the relay's. */
function viaRelay(url: string, relay: TcpRelay): string {
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(relay.port);
  return relayed.toString();
}
