import { msgIds, normalizeMsgId, threadKey, threadSubject } from './email-thread';

describe('email thread identity', () => {
  it('names a thread by the first References id', () => {
    expect(threadKey({ messageId: '<c@x.com>', inReplyTo: '<b@x.com>', references: '<a@x.com> <b@x.com>' })).toBe('a@x.com');
  });

  it('falls back to In-Reply-To, then to the message own id', () => {
    expect(threadKey({ messageId: '<c@x.com>', inReplyTo: '<b@x.com>' })).toBe('b@x.com');
    expect(threadKey({ messageId: '<c@x.com>', inReplyTo: null, references: '' })).toBe('c@x.com');
  });

  it('gives the root, its replies and a reply captured in another mailbox one key', () => {
    const root = threadKey({ messageId: '<root@mail.acme.com>' });
    const reply = threadKey({ messageId: '<r1@mail.cliente.com>', inReplyTo: '<root@mail.acme.com>' });
    const deep = threadKey({
      messageId: '<r2@x>',
      inReplyTo: '<r1@mail.cliente.com>',
      references: '<root@MAIL.ACME.COM>\r\n <r1@mail.cliente.com>',
    });
    expect(new Set([root, reply, deep])).toEqual(new Set(['root@mail.acme.com']));
  });

  it('keeps the local part case-sensitive and lowercases the domain', () => {
    expect(normalizeMsgId('<AbC@Example.COM>')).toBe('AbC@example.com');
    expect(normalizeMsgId('<AbC@Example.COM>')).not.toBe(normalizeMsgId('<abc@example.com>'));
  });

  it('reads folded headers and bare ids', () => {
    expect(msgIds('<a@x>\r\n\t<b@y>')).toEqual(['a@x', 'b@y']);
    expect(msgIds('a@x b@y')).toEqual(['a@x', 'b@y']);
    expect(msgIds(undefined)).toEqual([]);
  });

  it('refuses an email without any id', () => {
    expect(() => threadKey({ messageId: '' })).toThrow(/Message-ID/);
  });

  it.each([
    ['Re: Proposta comercial', 'Proposta comercial'],
    ['RES: RES: Proposta comercial', 'Proposta comercial'],
    ['Fwd: Re: [EXT] Proposta', 'Proposta'],
    ['ENC: Contrato', 'Contrato'],
    ['Re[2]: Contrato', 'Contrato'],
    ['Reunião de segunda', 'Reunião de segunda'],
    ['Resumo: reunião', 'Resumo: reunião'],
  ])('strips reply and forward prefixes: %s', (subject, expected) => {
    expect(threadSubject(subject)).toBe(expected);
  });
});
