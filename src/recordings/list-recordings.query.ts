import {
  BooleanFilter,
  DateTimeParam,
  EmailFilter,
  EnumFilter,
  idSetBinding,
  IncludeParam,
  LaterThan,
  PageQuery,
} from '../common/validation/query-params';
import { Instant } from '../common/validation/instant';
import {
  Audience,
  AUDIENCES,
  CAPTION_FORMATS,
  CaptionFormat,
  MEDIA_TYPES,
  MediaType,
  RECORDING_PARTS,
  RecordingPart,
} from './recording.vocabulary';

const INCLUDE =
  'Parts to embed in each record under `included`, each exactly as its own route answers it (`transcript` needs `transcriptions.read`).';

/** Query of `GET /v1/meetings` and `GET /v1/calls`. Bounds are exclusive. */
export class ListRecordingsQuery extends PageQuery {
  @DateTimeParam('Records created after this instant.')
  created_after?: Instant;

  @DateTimeParam('Records created before this instant.')
  @LaterThan('created_after')
  created_before?: Instant;

  @DateTimeParam('Records whose event instant (`meeting_at`) is after this instant.')
  meeting_after?: Instant;

  @DateTimeParam('Records whose event instant (`meeting_at`) is before this instant.')
  @LaterThan('meeting_after')
  meeting_before?: Instant;

  @EmailFilter("Exact, case-insensitive match on the owner's email.")
  owner_email?: string;

  @EnumFilter(MEDIA_TYPES, 'Media the record was captured as.')
  type?: MediaType;

  @EnumFilter(AUDIENCES, 'Whether participants from outside the company took part.')
  audience?: Audience;

  @BooleanFilter('`true`: records whose transcript is readable; `false`: the others.')
  has_transcript?: boolean;

  @IncludeParam(RECORDING_PARTS, INCLUDE)
  include?: RecordingPart[];

  /** Declared, with its collection's id kind, by each collection's controller (recordings.controller.ts). */
  ids?: string[];

  /** The filters as the cursor binds them: normalized, `limit`, `cursor` and `include` left out. */
  filters(): Record<string, string | boolean | undefined> {
    return {
      created_after: this.created_after?.iso,
      created_before: this.created_before?.iso,
      meeting_after: this.meeting_after?.iso,
      meeting_before: this.meeting_before?.iso,
      owner_email: this.owner_email,
      type: this.type,
      audience: this.audience,
      has_transcript: this.has_transcript,
      ids: idSetBinding(this.ids),
    };
  }
}

/** Query of a single meeting or call: `include` only. */
export class GetRecordingQuery {
  @IncludeParam(RECORDING_PARTS, INCLUDE)
  include?: RecordingPart[];
}

/** Query of a meeting's or a call's captions (`…/transcript/captions`): the format only. */
export class CaptionsQuery {
  @EnumFilter(
    CAPTION_FORMATS,
    'The format of the answer: `vtt` (WebVTT, the default), `srt` (SubRip) or `text` (a `Speaker: text` line per utterance). Without it, the `Accept` header chooses (`text/vtt`, `application/x-subrip`, `text/plain`; anything else WebVTT); with it, `Accept` is not read.',
  )
  format?: CaptionFormat;
}
