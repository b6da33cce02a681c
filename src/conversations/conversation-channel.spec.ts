import { CHAT_CHANNEL } from '../chat/chat-channel';
import { EMAIL_CHANNEL } from '../emails/email-channel';
import { conversationChannel } from './conversation-channel';

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

    it.each([EMAIL_CHANNEL, CHAT_CHANNEL].map((c) => [c.path, c] as const))(
      '%s: its samples show every field of a conversation and of a message set at least once',
      (_path, channel) => {
        const fields = (items: object[]) => {
          const keys = new Set(items.flatMap((item) => Object.keys(item)));
          return [...keys].filter(
            (key) => !items.some((item) => ![null, undefined].includes((item as Record<string, unknown>)[key] as never)),
          );
        };
        const { conversations, messages } = channel.formatSamples as { conversations: never[]; messages: never[] };
        expect(fields(conversations.map((row) => channel.present(row) as object))).toEqual([]);
        expect(fields(messages.map((row) => channel.presentMessage(row) as object))).toEqual([]);
      },
    );
  });
});
