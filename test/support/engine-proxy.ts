import { connect, createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A loopback TCP listener in front of the local Docker socket: every connection is piped to the socket, so
 * `DOCKER_HOST=tcp://127.0.0.1:<port>` reaches the same engine the way a remote one is reached (HTTP over TCP,
 * no shared filesystem assumed by the client). Records the request lines it sees (`POST /v1.41/containers/create`).
 */
export async function startEngineProxy(
  socketPath = '/var/run/docker.sock',
  /** Request lines (`POST /v1.41/containers/<id>/start`) the engine is made to refuse: 500, connection closed. */
  refuse: (requestLine: string) => boolean = () => false,
): Promise<{ host: string; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((client) => {
    const engine = connect(socketPath);
    client.on('data', (chunk: Buffer) => {
      const line = /^(GET|POST|PUT|DELETE|HEAD) (\S+) HTTP\/1\.[01]\r\n/.exec(chunk.subarray(0, 2048).toString('latin1'));
      if (!line) return;
      requests.push(`${line[1]} ${line[2]}`);
      if (refuse(`${line[1]} ${line[2]}`)) {
        client.unpipe(engine);
        engine.destroy();
        const body = '{"message":"refused by the test\'s engine proxy"}';
        client.end(`HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
      }
    });
    client.pipe(engine).pipe(client);
    const end = (): void => {
      client.destroy();
      engine.destroy();
    };
    client.on('error', end);
    engine.on('error', end);
    client.on('close', end);
    engine.on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    host: `tcp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
