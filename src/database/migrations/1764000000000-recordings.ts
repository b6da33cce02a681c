import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Meetings and calls ("recordings", one table with a `kind`) and everything they show:
 * users, teams, accounts, tags, competitors, skills, templates with their questions,
 * answers, evaluations, enablement, skill scores and transcripts.
 *
 * Every table carries `company_id` under forced row-level security, and every reference
 * between tenant rows is a composite foreign key `(company_id, x_id)`, so not even a faulty
 * seed can link one company's record to another company's user, tag or template.
 *
 * Indexes for `GET /v1/meetings|calls`, all leading with the company and the kind and
 * ending with the keyset order `(created_at, id)`:
 * - recordings_list_idx: no filter, created_after/created_before (a range on the order itself);
 *   meeting_at is INCLUDEd so meeting_after/before filter inside the index;
 * - recordings_owner_idx: owner_email (resolved to owner ids first, users_company_email_idx);
 * - recordings_media_idx: type; recordings_audience_idx: audience;
 * - recordings_transcript_idx: has_transcript (on `transcript_status = 'completed'`).
 * A record's relations are read inside the record's own statement (correlated subqueries, see
 * recordings.repository.ts), each served by the leading `recording_id` of the child table's
 * primary key or index.
 */
export class Recordings1764000000000 implements MigrationInterface {
  name = 'Recordings1764000000000';

  async up(q: QueryRunner): Promise<void> {
    const statements = [
      `CREATE TABLE users (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        public_id text NOT NULL UNIQUE,
        company_id bigint NOT NULL REFERENCES companies (id),
        name text NOT NULL,
        email text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (company_id, id)
      )`,
      `CREATE INDEX users_company_email_idx ON users (company_id, lower(email))`,
      `CREATE TABLE teams (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        public_id text NOT NULL UNIQUE,
        company_id bigint NOT NULL REFERENCES companies (id),
        name text NOT NULL,
        UNIQUE (company_id, id)
      )`,
      `CREATE TABLE team_memberships (
        company_id bigint NOT NULL,
        user_id bigint NOT NULL,
        team_id bigint NOT NULL,
        role text NOT NULL CHECK (role IN ('participant', 'leadership', 'observer')),
        is_default boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, team_id),
        FOREIGN KEY (company_id, user_id) REFERENCES users (company_id, id),
        FOREIGN KEY (company_id, team_id) REFERENCES teams (company_id, id)
      )`,
      `CREATE UNIQUE INDEX team_memberships_one_default_idx ON team_memberships (user_id) WHERE is_default`,
      ...['accounts', 'tags', 'competitors', 'skills', 'templates'].map(
        (table) => `CREATE TABLE ${table} (
          id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          public_id text NOT NULL UNIQUE,
          company_id bigint NOT NULL REFERENCES companies (id),
          ${table === 'accounts' ? 'domain text NOT NULL, cnpj text' : 'name text NOT NULL'},
          UNIQUE (company_id, id)
        )`,
      ),
      `CREATE TABLE template_questions (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        public_id text NOT NULL UNIQUE,
        company_id bigint NOT NULL,
        template_id bigint NOT NULL,
        text text NOT NULL,
        type text NOT NULL CHECK (type IN ('text', 'option', 'multi_select', 'boolean', 'number')),
        position integer NOT NULL,
        UNIQUE (template_id, position),
        UNIQUE (company_id, id),
        FOREIGN KEY (company_id, template_id) REFERENCES templates (company_id, id)
      )`,
      `CREATE TABLE recordings (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        public_id text NOT NULL UNIQUE,
        company_id bigint NOT NULL REFERENCES companies (id),
        kind text NOT NULL CHECK (kind IN ('meeting', 'call')),
        title text NOT NULL,
        status text NOT NULL DEFAULT 'completed' CHECK (status IN ('completed')),
        media_type text NOT NULL CHECK (media_type IN ('video', 'audio')),
        audience text NOT NULL CHECK (audience IN ('internal', 'external')),
        meeting_at timestamptz NOT NULL,
        duration_seconds integer NOT NULL CHECK (duration_seconds >= 0),
        no_show boolean NOT NULL DEFAULT false,
        owner_id bigint NOT NULL,
        template_id bigint,
        participants jsonb NOT NULL DEFAULT '[]',
        customer_questions jsonb NOT NULL DEFAULT '[]',
        bot_history jsonb,
        transcript_status text NOT NULL DEFAULT 'not_started' CHECK (transcript_status IN ('not_started', 'processing', 'completed', 'failed')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (company_id, id),
        CHECK ((kind = 'meeting') = (bot_history IS NOT NULL)),
        FOREIGN KEY (company_id, owner_id) REFERENCES users (company_id, id),
        FOREIGN KEY (company_id, template_id) REFERENCES templates (company_id, id)
      )`,
      `CREATE INDEX recordings_list_idx ON recordings (company_id, kind, created_at, id) INCLUDE (meeting_at)`,
      `CREATE INDEX recordings_owner_idx ON recordings (company_id, kind, owner_id, created_at, id)`,
      `CREATE INDEX recordings_media_idx ON recordings (company_id, kind, media_type, created_at, id)`,
      `CREATE INDEX recordings_audience_idx ON recordings (company_id, kind, audience, created_at, id)`,
      `CREATE INDEX recordings_transcript_idx ON recordings (company_id, kind, (transcript_status = 'completed'), created_at, id)`,
      ...[
        ['recording_tags', 'tag_id', 'tags'],
        ['recording_competitors', 'competitor_id', 'competitors'],
        ['recording_accounts', 'account_id', 'accounts'],
      ].map(
        ([table, column, target]) => `CREATE TABLE ${table} (
          company_id bigint NOT NULL,
          recording_id bigint NOT NULL,
          ${column} bigint NOT NULL,
          PRIMARY KEY (recording_id, ${column}),
          FOREIGN KEY (company_id, recording_id) REFERENCES recordings (company_id, id) ON DELETE CASCADE,
          FOREIGN KEY (company_id, ${column}) REFERENCES ${target} (company_id, id)
        )`,
      ),
      `CREATE TABLE recording_answers (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        public_id text NOT NULL UNIQUE,
        company_id bigint NOT NULL,
        recording_id bigint NOT NULL,
        question_id bigint NOT NULL,
        answer text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (recording_id, question_id),
        FOREIGN KEY (company_id, recording_id) REFERENCES recordings (company_id, id) ON DELETE CASCADE,
        FOREIGN KEY (company_id, question_id) REFERENCES template_questions (company_id, id)
      )`,
      `CREATE TABLE recording_evaluations (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        public_id text NOT NULL UNIQUE,
        company_id bigint NOT NULL,
        recording_id bigint NOT NULL UNIQUE,
        status text NOT NULL CHECK (status IN ('not_started', 'processing', 'completed', 'failed')),
        score integer,
        justification text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (status = 'completed' OR score IS NULL),
        FOREIGN KEY (company_id, recording_id) REFERENCES recordings (company_id, id) ON DELETE CASCADE
      )`,
      `CREATE TABLE recording_enablements (
        recording_id bigint PRIMARY KEY,
        company_id bigint NOT NULL,
        next_steps text,
        meeting_type text CHECK (meeting_type IN ('qualification', 'negotiation', 'proposal', 'closing', 'technical_meeting', 'questions_clarifications')),
        others_seconds integer CHECK (others_seconds >= 0),
        FOREIGN KEY (company_id, recording_id) REFERENCES recordings (company_id, id) ON DELETE CASCADE
      )`,
      `CREATE TABLE recording_speaking_durations (
        company_id bigint NOT NULL,
        recording_id bigint NOT NULL,
        user_id bigint NOT NULL,
        duration_seconds integer NOT NULL CHECK (duration_seconds >= 0),
        PRIMARY KEY (recording_id, user_id),
        FOREIGN KEY (company_id, recording_id) REFERENCES recordings (company_id, id) ON DELETE CASCADE,
        FOREIGN KEY (company_id, user_id) REFERENCES users (company_id, id)
      )`,
      `CREATE TABLE recording_skill_scores (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        company_id bigint NOT NULL,
        recording_id bigint NOT NULL,
        user_id bigint NOT NULL,
        skill_id bigint NOT NULL,
        score integer NOT NULL,
        justification text,
        UNIQUE (recording_id, user_id, skill_id),
        FOREIGN KEY (company_id, recording_id) REFERENCES recordings (company_id, id) ON DELETE CASCADE,
        FOREIGN KEY (company_id, user_id) REFERENCES users (company_id, id),
        FOREIGN KEY (company_id, skill_id) REFERENCES skills (company_id, id)
      )`,
      `CREATE TABLE transcripts (
        company_id bigint NOT NULL,
        recording_id bigint NOT NULL,
        variant text NOT NULL CHECK (variant IN ('original', 'enhanced')),
        utterances jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (recording_id, variant),
        FOREIGN KEY (company_id, recording_id) REFERENCES recordings (company_id, id) ON DELETE CASCADE
      )`,
    ];
    for (const sql of statements) await q.query(sql);
    for (const table of RECORDING_TABLES) await q.query(`SELECT app_enable_tenant_rls($1, 'company_id')`, [table]);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [...RECORDING_TABLES].reverse()) await q.query(`DROP TABLE ${table}`);
  }
}

const RECORDING_TABLES = [
  'users',
  'teams',
  'team_memberships',
  'accounts',
  'tags',
  'competitors',
  'skills',
  'templates',
  'template_questions',
  'recordings',
  'recording_tags',
  'recording_competitors',
  'recording_accounts',
  'recording_answers',
  'recording_evaluations',
  'recording_enablements',
  'recording_speaking_durations',
  'recording_skill_scores',
  'transcripts',
];
