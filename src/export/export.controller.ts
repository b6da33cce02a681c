import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiProperty, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuditsItself } from '../audit/audit.interceptor';
import { AuthenticatedByAnyOf } from '../auth/auth.decorators';
import { RawResponse } from '../common/http/envelope.interceptor';
import { READ_SCOPES } from '../contract/scopes';
import { OwnTransaction } from '../database/tenant-transaction.interceptor';
import { RateLimitPolicies } from '../rate-limit/rate-limit.decorators';
import { CallDto, MeetingDto } from '../recordings/recording.dto';
import { ChatConversationDto } from '../chat/chat.dto';
import { EmailConversationDto } from '../emails/email.dto';
import { EXPORT_TYPES, ExportQuery } from './export.query';

/** The stream's last line: what it held, and (on a first stream) where to follow the change feed from. */
export class ExportTrailerDto {
  @ApiProperty({ enum: ['export'] }) object: 'export';
  @ApiProperty({
    type: 'object',
    description: 'Records written, by exported collection.',
    properties: Object.fromEntries(EXPORT_TYPES.map((t) => [t, { type: 'integer', minimum: 0 }])),
  })
  records: Record<string, number>;
  @ApiProperty({
    type: 'string',
    nullable: true,
    pattern: '^cur_[A-Za-z0-9_-]+$',
    description:
      'The same cursor as the `Feed-Cursor` header; `null` on a resumed stream (one with `after`), which names no cursor: follow the feed from the first stream\'s.',
  })
  feed_cursor: string | null;
}
import { ExportService } from './export.service';

@ApiTags('Export')
@Controller('v1/export')
export class ExportController {
  constructor(private readonly exports: ExportService) {}

  @Get()
  @AuthenticatedByAnyOf(...READ_SCOPES)
  @RateLimitPolicies('client', 'company', 'export')
  @RawResponse()
  @OwnTransaction()
  @AuditsItself()
  @ApiOperation({
    operationId: 'exportRecords',
    summary: 'Every record of the company, from one snapshot, as NDJSON',
    description:
      'One JSON object per line: every record of the exported collections, as its list route shows it (with the same `include`), meetings, calls, emails, then chat, each in ascending id (byte order), all from one snapshot. The last line is `{"object": "export", "records": {…}, "feed_cursor": "cur_…"}`; a stream without it was cut: resume with `after=<the last id stored>`. Follow `GET /v1/changes` afterwards from the `Feed-Cursor` of the first stream: it yields, at least once, every object changed that the snapshot did not see. A resumed stream (one with `after`) reads a newer snapshot and names no cursor (no `Feed-Cursor` header, and `feed_cursor` is `null` in its trailer), since the feed from a newer one would skip what changed between the two snapshots. Also governed by the `export` rate-limit policy, by at most `EXPORT_CONCURRENCY` exports at once per company, and by at most `EXPORT_POOL_SIZE` at once per instance across companies (each refusal `429` with `Retry-After`, at once, and without spending the `export` quota). A stream is cut (no trailer; resume with `after=`) when its reader takes nothing for `EXPORT_IDLE_SECONDS`, when it has run `EXPORT_MAX_SECONDS`, or when its reader accepted fewer than `EXPORT_MIN_BYTES_PER_MINUTE` bytes a minute (measured on the wire over each window of `EXPORT_RATE_WINDOW_SECONDS` after the first). `HEAD` answers the status and headers a `GET` starts with (after the same checks; no `Feed-Cursor`), reads nothing, takes no slot and spends no `export` quota.',
  })
  @ApiExtraModels(MeetingDto, CallDto, EmailConversationDto, ChatConversationDto, ExportTrailerDto)
  @ApiResponse({
    status: 200,
    description:
      'The stream. Header `Feed-Cursor` (on a first stream, without `after`): a `GET /v1/changes` cursor bound to every type the token can read.',
    headers: {
      'Feed-Cursor': {
        description:
          'Where to follow the change feed from after this export. Sent only when the request has no `after`: a resumed stream names no cursor (keep the first stream\'s).',
        required: false,
        schema: { type: 'string', pattern: '^cur_[A-Za-z0-9_-]+$' },
      },
    },
    content: {
      'application/x-ndjson': {
        schema: {
          description: 'Each line one of these: a record as its list shows it, then the trailer.',
          oneOf: [MeetingDto, CallDto, EmailConversationDto, ChatConversationDto, ExportTrailerDto].map((dto) => ({
            $ref: getSchemaPath(dto),
          })),
        },
      },
    },
  })
  async export(@Query() query: ExportQuery, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.exports.stream(query, req, res);
  }
}
