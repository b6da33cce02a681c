import { ArgumentMetadata, CallHandler, ExecutionContext, Injectable, NestInterceptor, PipeTransform } from '@nestjs/common';
import { json } from 'body-parser';
import type { Request, Response } from 'express';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import { from, Observable, switchMap } from 'rxjs';
import { ApiError } from '../common/errors/api-error';
import { toApiError } from '../common/validation/query-validation.pipe';

export const JSON_MEDIA_TYPE = 'application/json';
/** The largest body a `/v1` write takes (EXTENSIONS: 16 KiB). */
export const JSON_BODY_LIMIT_BYTES = 16 * 1024;

const parse = json({ limit: JSON_BODY_LIMIT_BYTES, strict: true, type: () => true });

/**
 * Reads a route's JSON body, after the guards (a caller without a token, the scope or quota is
 * refused before its body is read): another media type `415`, more than 16 KiB `413` (a declared
 * length before reading), malformed JSON or anything but an object `400 INVALID_REQUEST`. A route
 * that takes no body (`POST …/test`) leaves it unread; one is refused there only if it is not empty.
 */
@Injectable()
export class JsonBody implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    return from(readJson(req, res)).pipe(switchMap(() => next.handle()));
  }
}

async function readJson(req: Request, res: Response): Promise<void> {
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (mediaType !== JSON_MEDIA_TYPE) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `Send the body as ${JSON_MEDIA_TYPE}.`);
  try {
    await new Promise<void>((resolve, reject) => parse(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
  } catch (error) {
    const { type, status } = (error ?? {}) as { type?: string; status?: number };
    if (type === 'entity.parse.failed') throw new ApiError('INVALID_REQUEST', 'The body is not valid JSON.');
    if (status === 413) throw new ApiError('PAYLOAD_TOO_LARGE', `The body exceeds ${JSON_BODY_LIMIT_BYTES / 1024} KiB.`);
    throw error;
  }
}

/**
 * Validates a `@Body()` DTO without converting anything: the body must be a JSON object; a field
 * the DTO does not declare, or of the wrong type, is `400 INVALID_REQUEST`; a value's decorator may
 * name another code (an unknown object type: INVALID_FILTER). `atLeastOne`: an empty object is refused.
 */
@Injectable()
export class BodyValidationPipe implements PipeTransform {
  constructor(private readonly options: { atLeastOne?: boolean } = {}) {}

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const dto = metadata.metatype;
    if (metadata.type !== 'body' || !dto) return value;
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new ApiError('INVALID_REQUEST', 'The body must be a JSON object.');
    const problem = shapeProblem(value);
    if (problem) throw new ApiError('INVALID_REQUEST', problem);
    const known = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(dto as never, '', true, false)
        .map((m) => m.propertyName),
    );
    const names = Object.keys(value);
    const unknown = names.find((name) => !known.has(name));
    if (unknown !== undefined) throw new ApiError('INVALID_REQUEST', `Unknown field ${JSON.stringify(unknown.slice(0, 64))}.`);
    if (this.options.atLeastOne && !names.length) {
      throw new ApiError('INVALID_REQUEST', `The body must name at least one of ${[...known].join(', ')}.`);
    }
    const instance = plainToInstance(dto, value, { enableImplicitConversion: false }) as object;
    const errors = validateSync(instance, { stopAtFirstError: true, forbidUnknownValues: false });
    if (errors.length) throw toApiError(errors);
    return instance;
  }
}

/** Deepest a body's values nest: the body, a field, an array's items (`types`). */
const MAX_DEPTH = 3;

/**
 * What no body of these routes may hold, found without recursion (a 16 KiB body can nest
 * thousands of arrays, which class-transformer would recurse into until the stack ran out): values
 * nested deeper than MAX_DEPTH, and a NUL character in any string (PostgreSQL's text cannot hold one).
 */
function shapeProblem(body: object): string | null {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: body, depth: 1 }];
  while (stack.length) {
    const { value, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return 'A value contains a NUL character.';
    } else if (value !== null && typeof value === 'object') {
      if (depth > MAX_DEPTH) return 'The body nests values deeper than its fields allow.';
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\u0000')) return 'A field name contains a NUL character.';
        stack.push({ value: item, depth: depth + 1 });
      }
    }
  }
  return null;
}
