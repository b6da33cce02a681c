import { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import { createServer } from 'node:http';
import { AppConfig } from '../../config/app-config';
import { SerializedBody } from './json-text';

/** Longest request head Node accepts (request line and headers); above it Node answers 431 itself. */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * Express under an HTTP server whose limits are ours, not Node's defaults: a client that
 * dribbles its request head is cut after `headersTimeoutMs`, a whole request after
 * `requestTimeoutMs` (Node answers 408 and closes), an idle keep-alive connection after
 * `keepAliveTimeoutMs` (longer than a load balancer's idle timeout, so the balancer closes
 * first). Node checks those deadlines on a timer, 30 s apart by default: checked every second
 * here, so a slow client is cut close to its deadline. Heads over MAX_HEADER_BYTES get 431.
 * Nest creates its server without options, hence this adapter.
 */
export class HardenedExpressAdapter extends ExpressAdapter {
  constructor(private readonly limits: AppConfig['http']) {
    super();
    // One spelling per route: `/V1/…`, `/oauth/token/` and the like are unknown paths (404), not
    // aliases that every path-based decision (auditing, no-store, error shape) would have to
    // repeat. The adapter's constructor already created Express's router (which reads these
    // settings only then), so its options are set too; every route and middleware added from
    // here on takes them.
    const app = this.getInstance<import('express').Application>();
    app.set('case sensitive routing', true).set('strict routing', true);
    Object.assign(app.router as object, { caseSensitive: true, strict: true });
  }

  /**
   * A body serialized already (SerializedBody) is written as it is, part by part (no string of
   * the whole body is ever built), in its media type, with the headers Express's `send` would
   * give it; anything else as Nest writes it.
   */
  override reply(response: import('express').Response, body: unknown, statusCode?: number): unknown {
    if (!(body instanceof SerializedBody)) return super.reply(response, body, statusCode);
    if (statusCode) response.status(statusCode);
    let length = 0;
    for (const part of body.parts) length += Buffer.byteLength(part);
    response.setHeader('Content-Type', body.contentType);
    response.setHeader('Content-Length', length);
    if (response.req.method === 'HEAD') return response.end();
    // Not corked: the compression middleware pauses its stream until the response drains, which a
    // corked socket never does before `end` (a page hung so). A page is three parts, three writes.
    for (const part of body.parts) response.write(part);
    return response.end();
  }

  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions) return super.initHttpServer(options);
    const server = createServer(
      {
        headersTimeout: this.limits.headersTimeoutMs,
        requestTimeout: this.limits.requestTimeoutMs,
        keepAliveTimeout: this.limits.keepAliveTimeoutMs,
        connectionsCheckingInterval: Math.min(1000, this.limits.headersTimeoutMs),
        maxHeaderSize: MAX_HEADER_BYTES,
      },
      this.getInstance(),
    );
    this.setHttpServer(server);
    if (options?.forceCloseConnections) (this as unknown as { trackOpenConnections(): void }).trackOpenConnections();
  }
}
