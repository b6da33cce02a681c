import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, ValidationError } from 'class-validator';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-codes';

const PRIMITIVES: unknown[] = [String, Number, Boolean, Object, Array];

/**
 * Validates every `@Query()` DTO. Structure first (a parameter given twice, an empty
 * value, or a name the route does not know: `400 INVALID_REQUEST`), then each value, whose
 * decorator names its error code (INVALID_LIMIT, INVALID_DATETIME, INVALID_FILTER, ...).
 */
@Injectable()
export class QueryValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const dto = metadata.metatype;
    if (metadata.type !== 'query' || !dto || PRIMITIVES.includes(dto)) return value;
    const raw = (value ?? {}) as Record<string, unknown>;
    const known = knownProperties(dto);
    for (const [name, v] of Object.entries(raw)) {
      const shown = JSON.stringify(name.slice(0, 64));
      if (Array.isArray(v) || (v !== null && typeof v === 'object'))
        throw new ApiError('INVALID_REQUEST', `Query parameter ${shown} is given more than once.`);
      if (v === '' || v === undefined) throw new ApiError('INVALID_REQUEST', `Query parameter ${shown} is empty.`);
      if (!known.has(name)) throw new ApiError('INVALID_REQUEST', `Unknown query parameter ${shown}.`);
    }
    const instance = plainToInstance(dto, raw) as object;
    const errors = validateSync(instance, { stopAtFirstError: true, forbidUnknownValues: false });
    if (errors.length > 0) throw toApiError(errors);
    return instance;
  }
}

/** The query names each DTO declares, read from class-validator's metadata once per DTO (not per request). */
const KNOWN = new WeakMap<object, Set<string>>();

function knownProperties(dto: abstract new (...args: never[]) => unknown): Set<string> {
  let known = KNOWN.get(dto);
  if (!known) {
    known = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(dto as never, '', true, false)
        .map((m) => m.propertyName),
    );
    KNOWN.set(dto, known);
  }
  return known;
}

/** The first validation error as the API's error: the code its decorator names (`context: {code}`), else INVALID_REQUEST. */
export function toApiError(errors: ValidationError[]): ApiError {
  const first = errors[0];
  const constraint = Object.keys(first.constraints ?? {})[0];
  const code = (first.contexts?.[constraint]?.code as ErrorCode | undefined) ?? 'INVALID_REQUEST';
  return new ApiError(code, first.constraints?.[constraint] ?? `${first.property} is invalid.`);
}
