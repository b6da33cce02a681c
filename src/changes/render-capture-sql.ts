/**
 * `npm run capture:render`: writes `capture.sql`, today's capture rendered from capture-sql.ts, and
 * `shared-rows.md`, the table of shared rows of shared-rows.ts.
 * `npm run capture:render -- --migration Name [--timestamp N] [--previous file]`: also writes, before
 * it renders capture.sql anew, a migration that takes a database from the capture `capture.sql` held
 * (or `file`) to today's: only what changed (transition() below), in literal statements, so that
 * the migration never changes when capture-sql.ts does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderCaptureSql } from './capture-sql';
import { renderSharedRows } from './shared-rows';

const HERE = __dirname;
export const CAPTURE_SQL_PATH = join(HERE, 'capture.sql');
export const SHARED_ROWS_PATH = join(HERE, 'shared-rows.md');

/** The statements of a rendered file: a statement ends at a line ending in `;` outside dollar quotes; comments between statements are dropped. */
export function statementsOf(sql: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  for (const line of sql.split('\n')) {
    if (!current.length && (line.startsWith('--') || !line.trim())) continue;
    current.push(line);
    const text = current.join('\n');
    if (line.endsWith(';') && (text.match(/\$\$/g) ?? []).length % 2 === 0) {
      statements.push(text.slice(0, -1));
      current = [];
    }
  }
  return statements;
}

/** The functions (name and arguments) and triggers (name and table) a list of statements defines. */
function definitions(statements: string[]): { functions: Map<string, string>; triggers: Map<string, string> } {
  const functions = new Map<string, string>();
  const triggers = new Map<string, string>();
  for (const sql of statements) {
    const fn = /^CREATE OR REPLACE FUNCTION (\w+\([^)]*\))/.exec(sql);
    if (fn) functions.set(fn[1].replace(/\(.*\)/, ''), `DROP FUNCTION ${fn[1].replace(/(\w+) (\w+)/g, '$2')}`);
    const trigger = /^CREATE OR REPLACE TRIGGER (\w+) .*? ON (\w+) /.exec(sql);
    if (trigger) triggers.set(trigger[1], `DROP TRIGGER ${trigger[1]} ON ${trigger[2]}`);
  }
  return { functions, triggers };
}

/**
 * The statements that take a database from the capture `from` to the capture `to`: drop the
 * triggers `to` lacks, run the statements of `to` that `from` did not hold word for word (a
 * trigger made again is enabled again), drop the functions `to` lacks.
 *
 * This is what a capture migration holds: the difference, never the whole capture. To write one,
 * edit the builders (capture-sql.ts lists them), then run
 * `npm run capture:render -- --migration Name`: `from` is the committed capture.sql (or
 * `--previous file`), `to` the builders; it writes `UP = transition(from, to)` and
 * `DOWN = transition(to, from)` as literal text into src/database/migrations/<timestamp>-<name>.ts
 * and renders capture.sql anew. Then add the class to migrations/index.ts and say in its doc
 * comment what changed and why. Example: 1766600000001-kind-ids.ts (three functions up, their
 * text before down). test/medium/migrations.medium-spec.ts proves that a database migrated one
 * step at a time then runs capture.sql word for word.
 */
export function transition(from: string[], to: string[]): string[] {
  const [before, after] = [definitions(from), definitions(to)];
  const gone = <T>(a: Map<string, T>, b: Map<string, T>) => [...a].filter(([name]) => !b.has(name)).map(([, drop]) => drop);
  const held = new Set(from);
  const changed = to.filter((sql, i) => !held.has(sql) || (sql.startsWith('ALTER TABLE') && !held.has(to[i - 1])));
  return [...gone(before.triggers, after.triggers), ...changed, ...gone(before.functions, after.functions)];
}

const literal = (sql: string) => {
  if (/[`\\]|\$\{/.test(sql)) throw new Error(`cannot write as a template literal: ${sql.slice(0, 80)}`);
  return `  \`${sql}\`,`;
};

function migrationFile(name: string, timestamp: number, up: string[], down: string[]): string {
  return `import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Installs the change capture of src/changes/capture-sql.ts as it was on ${new Date().toISOString().slice(0, 10)} (rendered by
 * \`npm run capture:render -- --migration ${name}\`): what changed since the capture before, in literal statements,
 * never edited again.
 */
export class ${name}${timestamp} implements MigrationInterface {
  name = '${name}${timestamp}';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

/** Today's capture: the statements the capture before did not hold word for word, and the drops of what it no longer has. */
const UP: string[] = [
${up.map(literal).join('\n')}
];

/** The capture before this migration: the statements of it that this one changed or dropped. */
const DOWN: string[] = [
${down.map(literal).join('\n')}
];
`;
}

function main(argv: string[]): void {
  const rendered = renderCaptureSql();
  const at = argv.indexOf('--migration');
  if (at >= 0) {
    const name = argv[at + 1];
    if (!name || !/^[A-Z]\w+$/.test(name)) throw new Error('--migration needs a class name such as CaptureHoles');
    const previous = argv.includes('--previous') ? argv[argv.indexOf('--previous') + 1] : CAPTURE_SQL_PATH;
    const timestamp = argv.includes('--timestamp') ? Number(argv[argv.indexOf('--timestamp') + 1]) : Date.now();
    const kebab = name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
    const path = join(HERE, '..', 'database', 'migrations', `${timestamp}-${kebab}.ts`);
    const [up, down] = [statementsOf(rendered), statementsOf(readFileSync(previous, 'utf8'))];
    writeFileSync(path, migrationFile(name, timestamp, transition(down, up), transition(up, down)));
    process.stdout.write(`wrote ${path}: add it to src/database/migrations/index.ts\n`);
  }
  writeFileSync(CAPTURE_SQL_PATH, rendered);
  writeFileSync(SHARED_ROWS_PATH, renderSharedRows());
  process.stdout.write(`wrote ${CAPTURE_SQL_PATH} and ${SHARED_ROWS_PATH}\n`);
}

if (require.main === module) main(process.argv.slice(2));
