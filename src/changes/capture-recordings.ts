/** The capture of meetings and calls (`recordings`, one table, a `kind`) and of their parts. */
import { CapturedTable, EPOCH, idKept, movedObjects, notNoted, objectPart, objectTable, parts, record, RECORD } from './capture-builders';
import { OLD_AND_NEW } from './capture-transition-rows';

/** A record that left a route (another kind or company) or joined one. */
const recordsMoved = `${OLD_AND_NEW} WHERE (n.company_id, n.kind) IS DISTINCT FROM (o.company_id, o.kind)`;

/**
 * A record may change kind once a transaction when it takes an id of its new kind: a second
 * change would give the same object (kind and row) two ids in one transaction, and the log holds
 * one entry per object and transaction (the old id's `deleted` would be lost). Refused.
 */
const KIND_ONCE = `${idKept('record', ' AND n.kind = o.kind')}
IF EXISTS (SELECT 1 FROM ${recordsMoved}
    AND EXISTS (SELECT 1 FROM change_log c WHERE c.company_id = n.company_id AND c.object = n.kind AND c.object_key = n.id
      AND c.epoch = ${EPOCH} AND c.xid = pg_current_xact_id() AND c.object_id <> n.public_id)) THEN
  RAISE EXCEPTION 'a record changes kind at most once a transaction when its id changes with it'
    USING ERRCODE = 'feature_not_supported', HINT = 'Commit the first change of kind, then make the next one.';
END IF;`;

const moved = movedObjects(RECORD, recordsMoved);

/** An updated record: `details`, and `transcript` or `answers` when what they are read by changed. */
const RECORDINGS = objectTable(
  RECORD,
  `${KIND_ONCE}
${record(`SELECT ROW(n.company_id, n.kind, n.public_id, NULL, 'updated',
    ${parts(['details'])}
      || CASE WHEN n.transcript_status IS DISTINCT FROM o.transcript_status THEN ${parts(['transcript'])} ELSE '{}' END
      || CASE WHEN n.template_id IS DISTINCT FROM o.template_id THEN ${parts(['answers'])} ELSE '{}' END, n.id)::change_row
  FROM ${OLD_AND_NEW}
  WHERE n.company_id = o.company_id AND n.kind = o.kind AND to_jsonb(n) IS DISTINCT FROM to_jsonb(o)
    AND ${notNoted('recordings', 'n.id')}
${moved.rows}`)}
${moved.back}`,
);

/** Recordings and their parts, each part with what it changes of its record. */
export const RECORDING_TABLES: CapturedTable[] = [
  RECORDINGS,
  objectPart('transcripts', RECORD, ['details', 'transcript']),
  objectPart('recording_evaluations', RECORD, ['details', 'evaluation']),
  objectPart('recording_answers', RECORD, ['details', 'answers']),
  ...[
    'recording_tags',
    'recording_competitors',
    'recording_accounts',
    'recording_enablements',
    'recording_speaking_durations',
    'recording_skill_scores',
  ].map((t) => objectPart(t, RECORD, ['details'])),
];
