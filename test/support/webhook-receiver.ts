import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** The event body the service sends. */
export interface EventBody {
  type: string;
  timestamp: string;
  data: { change_id: string; object: string; object_id: string; parent_id: string | null; changed: string[]; cursor: string };
}

/** One request the receiver got, as it came. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  event: EventBody;
  /** When it arrived (ms since the epoch). */
  at: number;
  /** Which attempt of this webhook-id it was, from 1. */
  attempt: number;
  /** When its answer was sent or its connection closed (ms since the epoch); absent while in flight. */
  doneAt?: number;
  /** The status answered, when one was. */
  answered?: number;
}

/** How to answer a request: a status after an optional delay (`hang`: never, until the receiver closes). */
export type Answer = { status: number; delayMs?: number; location?: string } | 'hang';

/**
 * An integrator's endpoint: a real HTTP server on 127.0.0.1 that keeps every request and answers
 * as the test says (200 by default). Signatures are checked with the `standardwebhooks` package,
 * not with the service's own code.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  answer: (request: Received) => Answer = () => ({ status: 200 });
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(path = '/hooks'): Promise<WebhookReceiver> {
    const server = createServer();
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    server.on('request', (req, res) => void receiver.handle(req, res));
    return receiver;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const id = String(req.headers['webhook-id']);
    const request: Received = {
      id,
      timestamp: String(req.headers['webhook-timestamp']),
      signature: String(req.headers['webhook-signature']),
      body,
      event: JSON.parse(body) as EventBody,
      at: Date.now(),
      attempt: this.received.filter((r) => r.id === id).length + 1,
    };
    this.received.push(request);
    res.once('close', () => (request.doneAt ??= Date.now()));
    const answer = this.answer(request);
    if (answer === 'hang') {
      this.hanging.add(res);
      return;
    }
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    res.writeHead(answer.status, answer.location ? { location: answer.location } : {});
    request.answered = answer.status;
    res.end('ok', () => (request.doneAt ??= Date.now()));
  }

  /** True when `request` verifies with `secret` (the standardwebhooks package, timestamp tolerance included). */
  static verifies(secret: string, request: Received): boolean {
    try {
      new Webhook(secret).verify(request.body, {
        'webhook-id': request.id,
        'webhook-timestamp': request.timestamp,
        'webhook-signature': request.signature,
      });
      return true;
    } catch {
      return false;
    }
  }

  /** The distinct webhook-ids received, and how many times each came. */
  counts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const r of this.received) counts.set(r.id, (counts.get(r.id) ?? 0) + 1);
    return counts;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
