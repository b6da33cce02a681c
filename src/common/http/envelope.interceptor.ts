import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ClsService } from 'nestjs-cls';
import { map, Observable } from 'rxjs';
import { Collection, Page } from '../cursors/keyset-page';
import { JsonText, SerializedBody } from './json-text';

const RAW_RESPONSE = 'raw-response';

/** Marks a controller or route whose body is not an API envelope (probes, the token endpoint). */
export const RawResponse = () => SetMetadata(RAW_RESPONSE, true);

/**
 * Wraps what a handler returns in the spec's envelopes: a Page becomes
 * `{data, pagination, request_id}`, a Collection `{data, request_id}`, anything else
 * `{data, request_id}`. Controllers return domain results and never build envelopes.
 * Resources already rendered as JSON text (JsonText) are spliced into the envelope's text
 * as they are: the body is serialized once, here, and never parsed. A whole body already
 * (SerializedBody: captions as WebVTT) is no resource to wrap: it goes out as it is.
 */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly cls: ClsService,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const raw = this.reflector.getAllAndOverride<boolean>(RAW_RESPONSE, [context.getHandler(), context.getClass()]);
    if (raw) return next.handle();
    const request_id = this.cls.getId();
    return next.handle().pipe(
      map((result: unknown) => {
        if (result instanceof SerializedBody) return result;
        const tail = `,"request_id":${JSON.stringify(request_id)}}`;
        if (result instanceof JsonText) return SerializedBody.of('{"data":', [result], '', tail);
        if (result instanceof Page && isRendered(result.data)) {
          return SerializedBody.of('{"data":[', result.data, ',', `],"pagination":${JSON.stringify(result.pagination)}${tail}`);
        }
        if (result instanceof Page) return { data: result.data, pagination: result.pagination, request_id };
        if (result instanceof Collection) return { data: result.data, request_id };
        return { data: result, request_id };
      }),
    );
  }
}

const isRendered = (data: unknown[]): data is JsonText[] => data.length > 0 && data.every((d) => d instanceof JsonText);
