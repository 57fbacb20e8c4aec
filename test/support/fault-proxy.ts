import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does to one request after forwarding it: answer as the server did, answer 503, or drop the connection. */
export type Fault = 'pass' | '503' | 'drop';

/**
 * An HTTP proxy on 127.0.0.1 in front of a real S3 endpoint that forwards every request unchanged and lets the
 * test decide, per request, whether the client sees the server's answer, a 503, or a dropped connection. The
 * request has reached the server in all three cases: this is the "conditional write applied, outcome unknown"
 * situation a real network produces.
 */
export async function startFaultProxy(target: string, decide: (req: IncomingMessage) => Fault): Promise<{ url: string; server: Server; faults: number }> {
  const up = new URL(target);
  const state = { url: '', server: undefined as unknown as Server, faults: 0 };
  const server = createServer((req, res) => {
    const fault = decide(req);
    const fwd = request(
      { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers }, // Host unchanged: the client signed it
      (upRes) => {
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          if (fault === 'drop') {
            state.faults++;
            req.socket.destroy();
            return;
          }
          if (fault === '503') {
            state.faults++;
            res.writeHead(503, { 'content-type': 'application/xml' }).end('<Error><Code>ServiceUnavailable</Code><Message>injected</Message></Error>');
            return;
          }
          res.writeHead(upRes.statusCode ?? 500, upRes.headers).end(Buffer.concat(chunks));
        });
      },
    );
    fwd.on('error', () => res.destroy());
    req.pipe(fwd);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.server = server;
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
