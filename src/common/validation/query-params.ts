import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { isEmail, IsOptional, ValidateBy, ValidationArguments } from 'class-validator';
import { ErrorCode } from '../errors/error-codes';
import { ID_PREFIX, IdKind, parseId } from '../ids/public-id';
import { Instant } from './instant';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;
const MAX_CURSOR_LENGTH = 1024;

/**
 * Query parameters arrive as strings. Each decorator below documents the parameter,
 * parses it, and on failure reports the error code the spec gives for it (carried in the
 * validation context, read by QueryValidationPipe).
 */
function Check(
  code: ErrorCode,
  name: string,
  test: (value: unknown, args: ValidationArguments) => boolean,
  message: string | ((args: ValidationArguments) => string),
) {
  const text = (args?: ValidationArguments) =>
    (typeof message === 'string' || !args ? String(message) : message(args)).replace('$property', args?.property ?? '');
  return applyDecorators(
    IsOptional(), // an absent parameter is not checked; a present one is never undefined
    ValidateBy({ name, validator: { validate: test, defaultMessage: text } }, { context: { code } }),
  );
}

export function LimitParam(defaultSize = DEFAULT_PAGE_SIZE) {
  return applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: defaultSize, description: 'Page size.' }),
    Transform(({ value }) => (typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : value)),
    Check(
      'INVALID_LIMIT',
      'limit',
      (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_PAGE_SIZE,
      'limit must be an integer from 1 to 100.',
    ),
  );
}

export function CursorParam() {
  return applyDecorators(
    ApiPropertyOptional({ type: 'string', pattern: '^cur_[A-Za-z0-9_-]+$', description: 'The `next_cursor` of the previous page.' }),
    Check(
      'INVALID_CURSOR',
      'cursor',
      (v) => typeof v === 'string' && v.length <= MAX_CURSOR_LENGTH && /^cur_[A-Za-z0-9_-]+$/.test(v),
      'cursor is not valid.',
    ),
  );
}

export function DateTimeParam(description: string) {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'string',
      format: 'date-time',
      description: `${description} RFC 3339 with an explicit offset; exclusive.`,
    }),
    Transform(({ value }) => (typeof value === 'string' ? (Instant.parse(value) ?? value) : value)),
    Check(
      'INVALID_DATETIME',
      'datetime',
      (v) => v instanceof Instant,
      ({ value }) =>
        typeof value === 'string' && Instant.parse(value.replace(PLUS_AS_SPACE, '+$1'))
          ? '$property must be an RFC 3339 date-time with an explicit offset; its "+" arrived as a space: encode "+" as %2B in the query string.'
          : '$property must be an RFC 3339 date-time with an explicit offset.',
    ),
  );
}

/** A positive offset whose `+` a form-encoding reader turned into a space (`…T10:00:00 03:00`). */
const PLUS_AS_SPACE = / (\d{2}:\d{2})$/;

/** `*_before` must be later than the `*_after` it pairs with. */
export function LaterThan(afterProperty: string): PropertyDecorator {
  return Check(
    'INVALID_FILTER',
    'laterThan',
    (v, args) => {
      const after = (args.object as Record<string, unknown>)[afterProperty];
      return !(v instanceof Instant && after instanceof Instant) || v.micros > after.micros;
    },
    `$property must be later than ${afterProperty}.`,
  );
}

export function EnumFilter(values: readonly string[], description: string) {
  return applyDecorators(
    ApiPropertyOptional({ type: 'string', enum: values, description }),
    Check(
      'INVALID_FILTER',
      'enumFilter',
      (v) => typeof v === 'string' && values.includes(v),
      `$property must be one of ${values.join(', ')}.`,
    ),
  );
}

/** A comma-separated subset of `values`, read as the list of distinct values in `values`' order. */
export function ListFilter(values: readonly string[], description: string) {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'string',
      pattern: `^(${values.join('|')})(,(${values.join('|')}))*$`,
      description: `${description} Comma-separated, any of: ${values.join(', ')}.`,
    }),
    Transform(({ value }) => {
      if (typeof value !== 'string') return value;
      const items = value.split(',');
      return items.every((item) => values.includes(item)) ? values.filter((v) => items.includes(v)) : value;
    }),
    Check(
      'INVALID_FILTER',
      'listFilter',
      (v) => Array.isArray(v),
      `$property must list some of ${values.join(', ')}, separated by commas.`,
    ),
  );
}

/**
 * `include`: a comma-separated set of the parts `values` names, each at most once, in any order;
 * read as the list of the parts in `values`' order. An unknown part, a repeated one or an empty
 * item: INVALID_FILTER.
 */
export function IncludeParam(values: readonly string[], description: string) {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'string',
      pattern: `^(${values.join('|')})(,(${values.join('|')}))*$`,
      description: `${description} Comma-separated, each at most once, any of: ${values.join(', ')}.`,
    }),
    Transform(({ value }) => {
      if (typeof value !== 'string') return value;
      const items = value.split(',');
      const distinct = new Set(items);
      return distinct.size === items.length && items.every((item) => values.includes(item)) ? values.filter((v) => distinct.has(v)) : value;
    }),
    Check(
      'INVALID_FILTER',
      'includeParam',
      (v) => Array.isArray(v),
      `$property must list parts of ${values.join(', ')}, each at most once, separated by commas.`,
    ),
  );
}

/** Ids one `ids` filter may name. */
export const MAX_IDS = 100;

/**
 * `ids`: 1 to MAX_IDS comma-separated ids of one collection (`kind`), read as the distinct ids in
 * the order given. A malformed one, one of another collection, an empty item, or more than
 * MAX_IDS: INVALID_FILTER.
 */
export function IdsFilter(kind: IdKind, description: string) {
  const prefix = ID_PREFIX[kind];
  return applyDecorators(
    ApiPropertyOptional({
      type: 'string',
      pattern: `^${prefix}[0-9A-Za-z]{22}(,${prefix}[0-9A-Za-z]{22}){0,${MAX_IDS - 1}}$`,
      description: `${description} Comma-separated, 1 to ${MAX_IDS} ids (\`${prefix}…\`); a repeated id is answered once; ids that do not exist or belong to another company are simply absent.`,
    }),
    Transform(({ value }) => {
      if (typeof value !== 'string') return value;
      const items = value.split(',');
      return items.length <= MAX_IDS && items.every((item) => parseId(kind, item) !== null) ? [...new Set(items)] : value;
    }),
    Check(
      'INVALID_FILTER',
      'idsFilter',
      (v) => Array.isArray(v),
      `$property must be 1 to ${MAX_IDS} ids of this collection (${prefix}…), separated by commas.`,
    ),
  );
}

/**
 * An `ids` filter as a cursor binds it: the set, not the order (the answer's order is the list's
 * own, whatever order the ids came in), so a cursor issued for `ids=a,b` continues `ids=b,a`.
 */
export function idSetBinding(ids: readonly string[] | undefined): string | undefined {
  return ids && [...new Set(ids)].sort().join(',');
}

/** A parameter that may only come without `other` (e.g. a starting point, which a cursor replaces). */
export function Without(other: string): PropertyDecorator {
  return Check(
    'INVALID_FILTER',
    'without',
    (_v, args) => (args.object as Record<string, unknown>)[other] === undefined,
    `$property may not be given with ${other}.`,
  );
}

export function BooleanFilter(description: string) {
  return applyDecorators(
    ApiPropertyOptional({ type: 'boolean', description }),
    Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value)),
    Check('INVALID_FILTER', 'booleanFilter', (v) => typeof v === 'boolean', '$property must be true or false.'),
  );
}

export function EmailFilter(description: string) {
  return applyDecorators(
    ApiPropertyOptional({ type: 'string', format: 'email', description }),
    Transform(({ value }) => (typeof value === 'string' && isEmail(value) ? value.toLowerCase() : value)),
    Check(
      'INVALID_FILTER',
      'emailFilter',
      (v) => typeof v === 'string' && isEmail(v) && v.length <= 320,
      '$property must be an email address.',
    ),
  );
}

/** `limit` and `cursor`, shared by every list route. */
export class PageQuery {
  @LimitParam()
  limit: number = DEFAULT_PAGE_SIZE;

  @CursorParam()
  cursor?: string;
}

/** Routes that take no query parameters declare this, so that any parameter is rejected. */
export class NoQuery {}
