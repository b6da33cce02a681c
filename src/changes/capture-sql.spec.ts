import { readFileSync } from 'node:fs';
import { CAPTURE_FUNCTIONS, CAPTURE_TRIGGERS, renderCaptureSql } from './capture-sql';
import { CAPTURE_SQL_PATH, statementsOf, transition } from './render-capture-sql';

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
});
