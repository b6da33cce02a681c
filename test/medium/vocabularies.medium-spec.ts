import { DataSource } from 'typeorm';
import { DIRECTIONS } from '../../src/conversations/conversation.vocabulary';
import {
  AUDIENCES,
  EVALUATION_STATUSES,
  MEDIA_TYPES,
  MEETING_TYPES,
  QUESTION_TYPES,
  RECORDING_KINDS,
  RECORDING_STATUSES,
  TEAM_ROLES,
  TRANSCRIPT_STATUSES,
  TRANSCRIPT_VARIANTS,
} from '../../src/recordings/recording.vocabulary';
import { ownerDataSource } from '../support/test-app';

/**
 * The migrations spell each vocabulary again in a CHECK constraint (a migration is history and
 * cannot import it): the migrated database must accept exactly the values the code defines.
 */
const COLUMNS: Array<[table: string, column: string, vocabulary: readonly string[]]> = [
  ['recordings', 'kind', RECORDING_KINDS],
  ['recordings', 'status', RECORDING_STATUSES],
  ['recordings', 'media_type', MEDIA_TYPES],
  ['recordings', 'audience', AUDIENCES],
  ['recordings', 'transcript_status', TRANSCRIPT_STATUSES],
  ['recording_evaluations', 'status', EVALUATION_STATUSES],
  ['recording_enablements', 'meeting_type', MEETING_TYPES],
  ['template_questions', 'type', QUESTION_TYPES],
  ['team_memberships', 'role', TEAM_ROLES],
  ['transcripts', 'variant', TRANSCRIPT_VARIANTS],
  ['email_conversations', 'last_message_direction', DIRECTIONS],
  ['email_messages', 'direction', DIRECTIONS],
  ['chat_conversations', 'last_message_direction', DIRECTIONS],
  ['chat_messages', 'direction', DIRECTIONS],
];

describe('vocabularies in the database', () => {
  let db: DataSource;

  beforeAll(async () => {
    db = await ownerDataSource();
  });
  afterAll(() => db.destroy());

  it.each(COLUMNS)('%s.%s accepts exactly the vocabulary', async (table, column, vocabulary) => {
    // The CHECK constraints on this column alone, as PostgreSQL normalized them:
    // `CHECK ((c = ANY (ARRAY['a'::text, 'b'::text])))`, or `CHECK ((c = 'a'::text))` for one value.
    const checks: Array<{ def: string }> = await db.query(
      `SELECT pg_get_constraintdef(k.oid) AS def FROM pg_constraint k
       JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = ANY (k.conkey)
       WHERE k.contype = 'c' AND k.conrelid = $1::regclass AND a.attname = $2 AND cardinality(k.conkey) = 1`,
      [table, column],
    );
    expect(checks).toHaveLength(1);
    const [{ def }] = checks;
    const shape = new RegExp(`^CHECK \\(\\(${column} = (?:ANY \\(ARRAY\\[(?:'[^']*'::text(?:, )?)+\\]\\)|'[^']*'::text)\\)\\)$`);
    expect(def).toMatch(shape);
    const accepted = [...def.matchAll(/'([^']*)'::text/g)].map((m) => m[1]);
    expect(accepted.sort()).toEqual([...vocabulary].sort());
  });
});
