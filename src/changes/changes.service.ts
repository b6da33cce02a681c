import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { AuthErrors } from '../auth/auth-errors';
import { CursorBinding, CursorCodec } from '../common/cursors/cursor-codec';
import { Page } from '../common/cursors/keyset-page';
import { ApiError } from '../common/errors/api-error';
import { principalOf, RequestStore } from '../common/http/request-context';
import { ChangeDto } from './change.dto';
import { ChangeObject, readableObjects, SCOPES_OF_OBJECT } from './change.vocabulary';
import { BEGINNING, ChangeRow, ChangesRepository, comparePositions, FeedPosition } from './changes.repository';
import { ListChangesQuery } from './list-changes.query';

/** Route template of the feed: its cursors' route binding. */
export const CHANGES_ROUTE = 'GET /v1/changes';

/** What a feed cursor is bound to: the company and the types followed (in the vocabulary's order). */
export function feedBinding(company: string, types: readonly ChangeObject[]): CursorBinding {
  return { route: CHANGES_ROUTE, company, filters: { types: types.join(',') } };
}

/**
 * The position a feed cursor holds; `400 INVALID_CURSOR` when it is not one of ours for `binding`.
 * Cursors sealed before epochs existed hold `[xid, seq]`: positions of the first epoch.
 */
export function openFeedCursor(codec: CursorCodec, cursor: string, binding: CursorBinding): FeedPosition {
  const sealed = codec.open(cursor, binding).map(String);
  const position = sealed.length === 2 ? ['1', ...sealed] : sealed;
  const [epoch, xid, seq] = position;
  if (position.length !== 3 || !/^\d{1,9}$/.test(epoch) || !/^\d{1,20}$/.test(xid) || !/^\d{1,19}$/.test(seq)) {
    throw new ApiError('INVALID_CURSOR', 'The cursor is not valid for this request.');
  }
  return [epoch, xid, seq];
}

/**
 * The change feed: entries after the client's position, of the types it follows, that no
 * running transaction can still precede. `next_cursor` is always the resume point: after the
 * last entry served, or, when every matching entry below the horizon was served, the horizon
 * itself (nothing left to find below it, and every later entry is above it), so an idle poll
 * stays cheap.
 */
@Injectable()
export class ChangesService {
  constructor(
    private readonly changes: ChangesRepository,
    private readonly codec: CursorCodec,
    private readonly cls: ClsService<RequestStore>,
  ) {}

  async list(query: ListChangesQuery): Promise<Page<ChangeDto>> {
    const principal = principalOf(this.cls);
    const readable = readableObjects(principal.scopes);
    const types = query.types ?? readable;
    const unreadable = types.find((type) => !readable.includes(type));
    if (unreadable) throw AuthErrors.insufficientScope(SCOPES_OF_OBJECT[unreadable]);
    const binding = feedBinding(principal.companyId, types);
    if (query.start === 'now') return this.page([], query.limit, false, await this.changes.head(), binding);
    const after = query.cursor === undefined ? BEGINNING : openFeedCursor(this.codec, query.cursor, binding);
    const { rows, horizon } = await this.changes.page(principal.companyId, types, after, query.limit + 1);
    const hasMore = rows.length > query.limit;
    const served = rows.slice(0, query.limit);
    const last = served.length ? positionOf(served[served.length - 1]) : after;
    const next = hasMore ? last : later(last, horizon);
    return this.page(served, query.limit, hasMore, next, binding);
  }

  private page(rows: ChangeRow[], limit: number, hasMore: boolean, next: FeedPosition, binding: CursorBinding): Page<ChangeDto> {
    return new Page(rows.map(presentChange), { limit, has_more: hasMore, next_cursor: this.codec.seal(binding, next) });
  }
}

const positionOf = (row: ChangeRow): FeedPosition => [row.epoch, row.xid, row.seq];

/** The later of two positions. */
function later(a: FeedPosition, b: FeedPosition): FeedPosition {
  return comparePositions(a, b) >= 0 ? a : b;
}

export function presentChange(row: ChangeRow): ChangeDto {
  return {
    id: row.public_id,
    object: row.object,
    object_id: row.object_id,
    parent_id: row.parent_id,
    action: row.action,
    changed: row.changed,
    committed_at: row.committed_at,
  };
}
