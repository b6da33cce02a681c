import { readFileSync } from 'node:fs';
import { CAPTURE_FUNCTIONS, CAPTURE_TRIGGERS, CAPTURED_TABLES, renderCaptureSql } from './capture-sql';
import { CAPTURE_SQL_PATH, SHARED_ROWS_PATH, statementsOf, transition } from './render-capture-sql';
import { renderSharedRows, reshows, SHARED_ROWS, sharedRowLocks } from './shared-rows';

describe('capture.sql', () => {
  it('is capture-sql.ts rendered (run `npm run capture:render` after an edit)', () => {
    expect(readFileSync(CAPTURE_SQL_PATH, 'utf8')).toBe(renderCaptureSql());
  });

  it('splits back into its statements: every function, every trigger and its ENABLE ALWAYS', () => {
    const statements = statementsOf(renderCaptureSql());
    expect(statements).toEqual([
      ...CAPTURE_FUNCTIONS,
      ...CAPTURE_TRIGGERS.flatMap((t) => [t.sql, `ALTER TABLE ${t.table} ENABLE ALWAYS TRIGGER ${t.name}`]),
    ]);
  });

  it('moves a database between two captures: drops the triggers and functions the target lacks, around its statements', () => {
    const from = [
      'CREATE OR REPLACE FUNCTION app_old(a text, b integer) RETURNS void LANGUAGE sql AS $$ SELECT 1; $$',
      'CREATE OR REPLACE FUNCTION app_kept() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$',
      'CREATE OR REPLACE TRIGGER t_old AFTER INSERT ON things FOR EACH STATEMENT EXECUTE FUNCTION app_kept()',
    ];
    const made = 'CREATE OR REPLACE TRIGGER t_new AFTER UPDATE ON things FOR EACH STATEMENT EXECUTE FUNCTION app_kept()';
    const to = [from[1], made, 'ALTER TABLE things ENABLE ALWAYS TRIGGER t_new'];
    // The function both hold word for word is left alone; the new trigger is made and enabled.
    expect(transition(from, to)).toEqual(['DROP TRIGGER t_old ON things', made, to[2], 'DROP FUNCTION app_old(text, integer)']);
  });

  it('makes a capture migration of what changed only: today’s capture with one function edited moves by that function', () => {
    const today = statementsOf(renderCaptureSql());
    const at = today.findIndex((sql) => sql.startsWith('CREATE OR REPLACE FUNCTION app_changes_recordings()'));
    const edited = today.map((sql, i) => (i === at ? sql.replace('RETURN NULL;', 'RETURN NULL; -- edited') : sql));
    expect(transition(today, today)).toEqual([]);
    expect(transition(today, edited)).toEqual([edited[at]]);
    expect(transition(edited, today)).toEqual([today[at]]);
  });

  it('shared-rows.md is shared-rows.ts rendered', () => {
    expect(readFileSync(SHARED_ROWS_PATH, 'utf8')).toBe(renderSharedRows());
  });
});

describe('the shared rows’ locks', () => {
  const fired = (table: string) => new Map(CAPTURED_TABLES.map((t) => [t.table, t.ops.map((op) => op.toUpperCase())])).get(table) ?? [];

  it('are taken by a trigger that exists: every attaching and re-showing write is a captured operation', () => {
    for (const shared of SHARED_ROWS) {
      // A row attaches on INSERT and on UPDATE (re-pointed): both must take the lock.
      for (const { table } of shared.attachedBy) expect([table, fired(table)]).toEqual([table, expect.arrayContaining(['INSERT', 'UPDATE'])]);
      for (const r of shared.reshownBy) for (const op of r.ops) expect([r.table, op, fired(r.table)]).toEqual([r.table, op, expect.arrayContaining([op])]);
      expect([shared.table, fired(shared.table)]).toEqual([shared.table, expect.arrayContaining(['UPDATE'])]);
    }
  });

  it('are the first statements of the trigger, shared tables in table order, rows by id', () => {
    const body = CAPTURED_TABLES.find((t) => t.table === 'team_memberships')!.fn;
    const locks = sharedRowLocks('team_memberships', 'INSERT');
    expect(locks).toEqual([
      "PERFORM app_require_read_committed('team_memberships');",
      'PERFORM 1 FROM teams s WHERE s.id IN (SELECT team_id FROM new_rows) ORDER BY s.id FOR SHARE;',
      'PERFORM 1 FROM users s WHERE s.id IN (SELECT user_id FROM new_rows) ORDER BY s.id FOR NO KEY UPDATE;',
    ]);
    expect(body).toContain(`IF TG_OP = 'INSERT' THEN\n    ${locks.join('\n    ')}\n    PERFORM app_record_changes`);
  });

  it('lock nothing on a delete of an attaching row, and only the re-pointed rows on an update of a table with ids', () => {
    expect(sharedRowLocks('recording_tags', 'DELETE')).toEqual([]);
    expect(sharedRowLocks('recordings', 'UPDATE')).toEqual([
      'PERFORM 1 FROM users s WHERE s.id IN (SELECT n.owner_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.owner_id IS DISTINCT FROM o.owner_id) ORDER BY s.id FOR SHARE;',
      'PERFORM 1 FROM templates s WHERE s.id IN (SELECT n.template_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.template_id IS DISTINCT FROM o.template_id) ORDER BY s.id FOR SHARE;',
    ]);
  });

  it('refuse a re-showing write below READ COMMITTED, and only those', () => {
    expect(['users', 'teams', 'tags', 'accounts', 'mailboxes', 'templates', 'template_questions'].every((t) => reshows(t, 'UPDATE'))).toBe(true);
    expect(reshows('team_memberships', 'DELETE')).toBe(true);
    expect(reshows('users', 'INSERT')).toBe(false);
    expect(reshows('recordings', 'UPDATE')).toBe(false);
    expect(reshows('chat_conversations', 'INSERT')).toBe(false);
  });
});
