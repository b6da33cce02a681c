import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { transformSync } from '@swc/core';
import { CHAT_CHANNEL } from '../chat/chat-channel';
import { ChatMessageDto } from '../chat/chat.dto';
import * as chatPresenters from '../chat/chat.presenter';
import { presentChatMessage } from '../chat/chat.presenter';
import { ChatMessageRow } from '../chat/chat.sql';
import { EMAIL_CHANNEL } from '../emails/email-channel';
import * as emailPresenters from '../emails/email.presenter';
import { AddressEntry } from '../emails/email.sql';
import { conversationChannel } from './conversation-channel';
import { presenterCode } from './presenter-code';

/** A chat message row as the statements return it: with media, not deleted. */
const MESSAGE = {
  id: '1',
  position_micros: '1',
  public_id: 'wamsg_sample',
  conversation_public_id: 'chat_sample',
  sent_at: '2026-07-01T10:00:00.000000Z',
  direction: 'inbound',
  author_phone: '+55 11 98888-7777',
  author_name: 'Cliente',
  type: 'audio',
  text: 'Olá',
  media: { file_name: null, mime_type: 'audio/ogg', size_bytes: 10 },
  transcription: 'olá',
  edited_at: null,
  deleted_at: null,
  deleted_reason: null,
} as unknown as ChatMessageRow;

describe('conversation channels', () => {
  it('bind their cursors to the routes they always did: a cursor a client holds outlives a deploy', () => {
    expect([EMAIL_CHANNEL, CHAT_CHANNEL].map((c) => [c.listRoute, c.messagesRoute])).toEqual([
      ['GET /v1/emails', 'GET /v1/emails/{email_id}/messages'],
      ['GET /v1/chat', 'GET /v1/chat/{chat_id}/messages'],
    ]);
  });

  describe('the read model format', () => {
    /** The channel's input again, without what conversationChannel derives. */
    const inputOf = ({ listRoute: _l, messagesRoute: _m, documentFormat: _f, ...input }: typeof EMAIL_CHANNEL) => input;

    it('is the same for the same statements and presenters, and differs between channels', () => {
      expect(conversationChannel(inputOf(EMAIL_CHANNEL)).documentFormat).toBe(EMAIL_CHANNEL.documentFormat);
      expect(Number.isInteger(EMAIL_CHANNEL.documentFormat)).toBe(true);
      expect(EMAIL_CHANNEL.documentFormat).not.toBe(CHAT_CHANNEL.documentFormat);
    });

    it('changes when a presenter presents anything differently, and when a statement changes', () => {
      const input = inputOf(EMAIL_CHANNEL);
      const changes = [
        { ...input, presentMessage: (row: never) => ({ ...input.presentMessage(row), cc: [] }) },
        { ...input, present: (row: never) => ({ ...input.present(row), mailboxes: [] }) },
        { ...input, tables: { ...input.tables, messageColumns: `${input.tables.messageColumns}, m.id AS extra` } },
      ];
      for (const changed of changes) expect(conversationChannel(changed as never).documentFormat).not.toBe(EMAIL_CHANNEL.documentFormat);
    });

    it('changes when a presenter changes in a branch the old sample rows never reached (a chat message without media)', () => {
      const input = inputOf(CHAT_CHANNEL as never);
      /** presentChatMessage with one branch changed: a message without media (and not deleted) shows an empty media object. */
      function presentChatMessageVariant(row: ChatMessageRow): ChatMessageDto {
        const tombstone = row.deleted_at !== null;
        return {
          id: row.public_id,
          object: 'chat_message',
          conversation_id: row.conversation_public_id,
          sent_at: row.sent_at,
          direction: row.direction,
          author: { phone: row.author_phone, name: row.author_name },
          type: row.type,
          text: tombstone ? null : row.text,
          media: tombstone
            ? null
            : !row.media
              ? ({ file_name: null, mime_type: null, size_bytes: 0 } as never)
              : { file_name: row.media.file_name ?? null, mime_type: row.media.mime_type, size_bytes: row.media.size_bytes },
          transcription: tombstone ? null : row.transcription,
          edited_at: row.edited_at,
          deleted_at: row.deleted_at,
          deleted_reason: row.deleted_reason,
        };
      }
      const text = { ...MESSAGE, media: null, type: 'text' } as ChatMessageRow;
      // The same output wherever media is set or the message deleted (every old sample row), another for this one.
      for (const row of [MESSAGE, { ...MESSAGE, deleted_at: MESSAGE.sent_at, deleted_reason: 'revoked_for_everyone' }] as ChatMessageRow[])
        expect(presentChatMessageVariant(row)).toEqual(presentChatMessage(row));
      expect(presentChatMessageVariant(text)).not.toEqual(presentChatMessage(text));
      const changed = conversationChannel({ ...input, presentMessage: presentChatMessageVariant } as never);
      expect(changed.documentFormat).not.toBe(CHAT_CHANNEL.documentFormat);
    });

    it('changes when a helper the presenters call changes, and not when only the layout of the code does', () => {
      const input = inputOf(EMAIL_CHANNEL);
      const presenters = input.presenters as typeof emailPresenters;
      const helper = (a: AddressEntry) => ({ address: a.address, name: a.name ?? null, internal: a.internal !== false });
      expect(conversationChannel({ ...input, presenters: { ...presenters, presentAddress: helper } }).documentFormat).not.toBe(
        EMAIL_CHANNEL.documentFormat,
      );
      // The same code laid out otherwise (another compiler's spacing, trailing commas, a comment), as the engine keeps its text: the same format.
      const relaid = new Function(
        'return function presentAddress(a) { /* the same */ return {address:a.address,name:a.name??null,internal:a.internal===true,}; }',
      )() as typeof helper;
      expect(presenterCode({ presentAddress: relaid })).toBe(presenterCode({ presentAddress: presenters.presentAddress }));
      expect(presenterCode({ presentAddress: relaid })).not.toBe(presenterCode({ presentAddress: helper }));
    });

    it.each([
      ['src/emails/email.presenter.ts', emailPresenters],
      ['src/chat/chat.presenter.ts', chatPresenters],
    ])('%s declares nothing it does not export: every function of it is in the format', (file, module) => {
      const source = readFileSync(join(__dirname, '../..', file), 'utf8');
      const topLevel = source.split('\n').filter((line) => /^(?:async\s+)?(?:function|const|let|var|class)\b/.test(line));
      expect(topLevel).toEqual([]);
      const declared = [...source.matchAll(/^export (?:async )?function (\w+)/gm)].map((m) => m[1]).sort();
      expect(
        presenterCode(module)
          .split('\n')
          .map((line) => line.split('=')[0]),
      ).toEqual(declared);
    });

    it('is the same for the code as tsc (the build, ts-node) and swc (the tests, their processes) compile it', () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const ts = require('typescript/lib/typescript.js') as typeof import('typescript');
      const load = (code: string) => {
        const exports = {};
        new Function('exports', 'require', code)(exports, (name: string) => {
          throw new Error(`a presenter module requires ${name} at run time`);
        });
        return exports;
      };
      for (const file of ['src/emails/email.presenter.ts', 'src/chat/chat.presenter.ts']) {
        const path = join(__dirname, '../..', file);
        const source = readFileSync(path, 'utf8');
        const byTsc = ts.transpileModule(source, {
          fileName: path,
          compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, removeComments: false },
        }).outputText;
        const bySwc = transformSync(source, { filename: path, swcrc: true, sourceMaps: false }).code;
        expect(byTsc).not.toBe(bySwc); // laid out differently…
        expect(presenterCode(load(bySwc))).toBe(presenterCode(load(byTsc))); // …the same code
      }
    });
  });
});
