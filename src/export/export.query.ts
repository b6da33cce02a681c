import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, ValidateBy } from 'class-validator';
import { IdKind, parseId } from '../common/ids/public-id';
import { IncludeParam, ListFilter } from '../common/validation/query-params';

/** The collections an export streams, in the order it streams them. */
export const EXPORT_TYPES = ['meeting', 'call', 'email', 'chat'] as const;
export type ExportType = (typeof EXPORT_TYPES)[number];

/** Every part an export can embed; each applies to the collections that have it. */
export const EXPORT_PARTS = ['evaluation', 'answers', 'transcript', 'messages'] as const;
export type ExportPart = (typeof EXPORT_PARTS)[number];

/**
 * Each exported collection: the kind of its ids, and its part that holds what was said (asking for
 * it needs the collection's content scope).
 */
export const EXPORT_COLLECTIONS: Record<ExportType, { idKind: IdKind; contentPart: ExportPart }> = {
  meeting: { idKind: 'meeting', contentPart: 'transcript' },
  call: { idKind: 'call', contentPart: 'transcript' },
  email: { idKind: 'emailConversation', contentPart: 'messages' },
  chat: { idKind: 'chatConversation', contentPart: 'messages' },
};

/** The collection an exported id belongs to, or null when it is no id of one. */
export function exportTypeOf(id: string): ExportType | null {
  return EXPORT_TYPES.find((type) => parseId(EXPORT_COLLECTIONS[type].idKind, id) !== null) ?? null;
}

/** `after`: an id of one of the exported collections. */
function ExportAfter() {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'string',
      description:
        'Resume strictly after this id (the last record a cut stream delivered): an id of one of the exported collections; it need not exist any more. A stream with `after` names no feed cursor: follow the feed from the first stream\'s `Feed-Cursor`.',
    }),
    IsOptional(),
    ValidateBy(
      {
        name: 'exportAfter',
        validator: {
          validate: (v: unknown) => typeof v === 'string' && exportTypeOf(v) !== null,
          defaultMessage: () => 'after must be an id of a meeting, call, email conversation or chat conversation.',
        },
      },
      { context: { code: 'INVALID_FILTER' } },
    ),
  );
}

/** Query of `GET /v1/export`. */
export class ExportQuery {
  @ListFilter(EXPORT_TYPES, 'The collections to export (default: every one the token can read).')
  types?: ExportType[];

  @IncludeParam(
    EXPORT_PARTS,
    'Parts to embed in each record under `included`, as the lists do: `evaluation`, `answers`, `transcript` on meetings and calls, `messages` on emails and chats.',
  )
  include?: ExportPart[];

  @ExportAfter()
  after?: string;
}
