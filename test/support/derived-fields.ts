import request from 'supertest';
import { traverse } from './http';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Get = (url: string) => request.Test;

const all = async (get: Get, url: string): Promise<Json[]> => (await traverse(get, url, [100])).records;
const byTimeThenId = (a: Json, b: Json) => (a.sent_at === b.sent_at ? (a.id < b.id ? -1 : 1) : a.sent_at < b.sent_at ? -1 : 1);

/**
 * Every documented derived field, read through the API, against what it derives from, also
 * read through the API: a record's `audience` against its participants, `transcript` and
 * `has_transcript` against the transcript route, `overall_evaluation` against the evaluation
 * route; a conversation's counts, activity instants, direction, attachments and participants
 * against its messages. Returns one line per disagreement (none when the data tells the truth).
 */
export async function derivedFieldDisagreements(get: Get): Promise<string[]> {
  const wrong: string[] = [];
  const expect = (ok: boolean, line: string) => void (ok || wrong.push(line));

  for (const collection of ['meetings', 'calls']) {
    const records = await all(get, `/v1/${collection}`);
    const withTranscript = new Set((await all(get, `/v1/${collection}?has_transcript=true`)).map((r) => r.id));
    const withoutTranscript = new Set((await all(get, `/v1/${collection}?has_transcript=false`)).map((r) => r.id));
    const internal = new Set((await all(get, `/v1/${collection}?audience=internal`)).map((r) => r.id));
    for (const r of records) {
      const audience = r.participants.length > 0 ? 'external' : 'internal';
      expect(r.audience === audience, `${r.id}: audience ${r.audience} with ${r.participants.length} outside participants`);
      expect(internal.has(r.id) === (audience === 'internal'), `${r.id}: the audience filter disagrees with its participants`);
      expect(
        r.participants.every((p: Json) => p.kind === 'external'),
        `${r.id}: a participant that is not external`,
      );
      const transcript = (await get(`/v1/${collection}/${r.id}/transcript`).expect(200)).body.data;
      expect(
        transcript.available === r.transcript.available && transcript.status === r.transcript.status,
        `${r.id}: transcript summary ${JSON.stringify(r.transcript)} vs route ${transcript.available}/${transcript.status}`,
      );
      expect(!transcript.available || transcript.utterances.length > 0, `${r.id}: an available transcript without utterances`);
      expect(withTranscript.has(r.id) === r.transcript.available, `${r.id}: has_transcript=true disagrees with available`);
      expect(withoutTranscript.has(r.id) === !r.transcript.available, `${r.id}: has_transcript=false disagrees with available`);
      const evaluation = (await get(`/v1/${collection}/${r.id}/evaluations/overall`).expect(200)).body.data;
      expect(
        evaluation.status === r.overall_evaluation.status && evaluation.justification === r.overall_evaluation.justification,
        `${r.id}: overall_evaluation disagrees with the evaluation route`,
      );
      expect(evaluation.id !== null || evaluation.status === 'not_started', `${r.id}: an evaluation without an id that has started`);
      if (r.template) {
        const answers = (await get(`/v1/${collection}/${r.id}/answers`).expect(200)).body.data;
        expect(
          JSON.stringify(r.template.answers.map((a: Json) => [a.field, a.answer])) ===
            JSON.stringify(answers.map((a: Json) => [a.question.id, a.answer])),
          `${r.id}: template answers disagree with the answers route`,
        );
      }
    }
  }

  for (const [collection, kind] of [
    ['emails', 'email'],
    ['chat', 'chat'],
  ] as const) {
    for (const c of await all(get, `/v1/${collection}`)) {
      const messages = (await all(get, `/v1/${collection}/${c.id}/messages`)).sort(byTimeThenId);
      const first = messages[0];
      const last = messages.at(-1);
      expect(messages.length > 0, `${c.id}: a conversation without messages`);
      expect(c.first_message_at === first?.sent_at, `${c.id}: first_message_at ${c.first_message_at} vs ${first?.sent_at}`);
      expect(c.last_message_at === last?.sent_at, `${c.id}: last_message_at ${c.last_message_at} vs ${last?.sent_at}`);
      expect(c.last_message_direction === last?.direction, `${c.id}: last_message_direction disagrees with its latest message`);
      if (kind === 'email') {
        expect(c.message_count === messages.length, `${c.id}: message_count ${c.message_count} vs ${messages.length} messages`);
        expect(
          c.has_attachments === messages.some((m) => m.attachments.length > 0),
          `${c.id}: has_attachments disagrees with its messages`,
        );
        const addresses = new Set(messages.flatMap((m) => [m.from, ...m.to, ...m.cc].map((a: Json) => a.address.toLowerCase())));
        const listed = new Set(c.participants.map((p: Json) => p.address.toLowerCase()));
        expect(
          addresses.size === listed.size && [...addresses].every((a) => listed.has(a)),
          `${c.id}: participants ${[...listed]} vs message addresses ${[...addresses]}`,
        );
      }
    }
  }
  return wrong;
}
