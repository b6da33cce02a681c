import { NestExpressApplication } from '@nestjs/platform-express';
import { parseSync } from 'subtitle';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { WebVTTParser } from 'webvtt-parser';
import HTML_ENTITIES from 'webvtt-parser/html-entities.json';
import { Company } from '../../src/companies/company.entity';
import { loadConfig } from '../../src/config/app-config';
import { DemoSeeder } from '../../src/seeding/demo-seeder';
import { RecordingsFactory, Utterance } from '../../src/seeding/recordings.factory';
import { RecordingKind } from '../../src/recordings/recording.vocabulary';
import { tokenFor } from '../support/credentials';
import { expectError } from '../support/http';
import { rateLimitOf } from '../support/rate-limit-headers';
import { createTestApp, ownerDataSource } from '../support/test-app';

type TextFormat = 'vtt' | 'srt' | 'text';
const TEXT_FORMATS: TextFormat[] = ['vtt', 'srt', 'text'];
const MEDIA_TYPES = { vtt: 'text/vtt', srt: 'application/x-subrip', text: 'text/plain' } as const;

const COLLECTIONS = [
  { kind: 'meeting' as RecordingKind, path: '/v1/meetings', template: '/v1/meetings/{meeting_id}/transcript' },
  { kind: 'call' as RecordingKind, path: '/v1/calls', template: '/v1/calls/{call_id}/transcript' },
];
/** The operation of its own the captions have, beside the transcript's (`…/transcript` answers JSON only). */
const CAPTIONS = '/captions';
const varyOf = (res: request.Response) =>
  String(res.headers.vary ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** An utterance as read back: a format without times (text) leaves them out. */
type Read = { speaker: string | null; text: string; start_ms?: number; end_ms?: number };

/*
 * docs/API.md's normalisation, written from its words (not with the service's functions): a text is
 * trimmed and each run of whitespace holding a line break becomes one space; a speaker has each
 * whitespace run one space, trimmed, and is none when empty; SRT writes `-->` as `→`.
 */
const BREAK = '\\n\\r\\v\\f\\u001c-\\u001e\\u0085\\u2028\\u2029';
const SPACE = '\\s\\u001c-\\u001e\\u0085';
const asLine = (text: string) => text.replace(new RegExp(`[${SPACE}]*[${BREAK}][${SPACE}]*`, 'g'), ' ').trim();
const asSpeaker = (speaker: string | null) =>
  speaker === null ? null : speaker.replace(new RegExp(`[${SPACE}]+`, 'g'), ' ').trim() || null;

/** What a format must read back as, for the utterances of the JSON answer. */
function expectedOf(format: TextFormat, utterances: Utterance[]): Read[] {
  return utterances.map((u) => {
    const [speaker, text] = [asSpeaker(u.speaker), asLine(u.text)];
    if (format === 'text') return { speaker, text };
    if (format === 'vtt') return { speaker, text, start_ms: u.start_ms, end_ms: u.end_ms };
    const arrow = (s: string) => s.replaceAll('-->', '→');
    return { speaker: speaker && arrow(speaker), text: arrow(text), start_ms: u.start_ms, end_ms: u.end_ms };
  });
}

/** A `Speaker: text` line read as docs/API.md says: split at the first `: `; ending in `:` without one, a speaker with no text. */
function readLabelled(line: string): { speaker: string | null; text: string } {
  const at = line.indexOf(': ');
  if (at >= 0) return { speaker: line.slice(0, at), text: line.slice(at + 2) };
  if (line.endsWith(':')) return { speaker: line.slice(0, -1), text: '' };
  return { speaker: null, text: line };
}

/** WebVTT through webvtt-parser (the W3C validator's parser, with the HTML entities, as its README says for spec behaviour): no error allowed. */
function readVtt(body: string): Read[] {
  expect(body.startsWith('WEBVTT\n\n') || body === 'WEBVTT\n').toBe(true);
  const parsed = new WebVTTParser(HTML_ENTITIES as Record<`&${string}`, string>).parse(body, 'subtitles');
  expect(parsed.errors).toEqual([]);
  return parsed.cues.map((cue) => {
    const [first] = cue.tree.children;
    const voice = first?.type === 'object' && first.name === 'v' ? first : undefined;
    const nodes = voice ? voice.children : cue.tree.children;
    const text = nodes.map((n) => (n.type === 'text' ? n.value : `<${n.type}>`)).join('');
    // The parser hands the voice name as written; WebVTT's parsing rules decode its escapes, as in the text.
    const speaker = voice ? voice.value.replace(/&(amp|lt|gt);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>' })[e]!) : null;
    return { speaker, text, start_ms: Math.round(cue.startTime * 1000), end_ms: Math.round(cue.endTime * 1000) };
  });
}

/** SubRip through `subtitle`: cues numbered from 1, `Speaker: text`, U+200B for an empty cue. */
function readSrt(body: string): Read[] {
  const numbers = [...body.matchAll(/^(\d+)\n\d{2,}:\d{2}:\d{2},\d{3} --> /gm)].map((m) => Number(m[1]));
  expect(numbers).toEqual(numbers.map((_, i) => i + 1));
  return parseSync(body).map((node) => {
    if (node.type !== 'cue') throw new Error(`not a cue: ${JSON.stringify(node)}`);
    const { start, end, text } = node.data;
    return { ...readLabelled(text === '\u200B' ? '' : text), start_ms: start, end_ms: end };
  });
}

/** Plain text: one line per utterance, each ending in a line feed. */
function readText(body: string): Read[] {
  if (body === '') return [];
  expect(body.endsWith('\n')).toBe(true);
  return body.slice(0, -1).split('\n').map(readLabelled);
}

const READERS: Record<TextFormat, (body: string) => Read[]> = { vtt: readVtt, srt: readSrt, text: readText };

/** The record of the spec's hard cases: unknown and blank speakers, empty texts, overlaps, markup, escapes, arrows, blank lines, past an hour. */
const TRICKY: Utterance[] = [
  { speaker: null, text: 'Sem identificação de quem fala.', start_ms: 0, end_ms: 1200 },
  { speaker: 'Ana & <Bia>', text: 'a < b && c > d --> e ---> f', start_ms: 1000, end_ms: 4000 },
  {
    speaker: '  Carlos\n Souza ',
    text: 'Primeira linha.\n\nSegunda, depois de uma linha em branco.\r\n\r\n',
    start_ms: 1500,
    end_ms: 2500,
  },
  { speaker: 'Ana & <Bia>', text: '', start_ms: 5000, end_ms: 5400 },
  { speaker: null, text: '', start_ms: 6000, end_ms: 6500 },
  { speaker: null, text: ' \n\n ', start_ms: 7000, end_ms: 7100 },
  { speaker: '', text: 'Orador em branco.', start_ms: 8000, end_ms: 9000 },
  { speaker: 'Dora', text: '<i>itálico</i> &amp; &lt; <v Outro>voz</v> 00:00:01,000 --> 00:00:02,000', start_ms: 9500, end_ms: 9600 },
  { speaker: 'Eva', text: '1\n\n2\n00:00:01.000 --> 00:00:02.000\nNOTE fim', start_ms: 3_600_001, end_ms: 3_725_999 },
];

describe('GET …/transcript/captions in WebVTT, SRT and text; GET …/transcript in JSON only', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let company: Company;
  let token: string;
  let factory: RecordingsFactory;

  const get = (url: string) => http.get(url).set('Authorization', `Bearer ${token}`);
  /** A text answer's body as a string, whatever its media type (superagent buffers only text/* by itself). */
  const getText = (url: string) =>
    get(url)
      .buffer(true)
      .parse((res, done) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => done(null, body));
      });

  beforeAll(async () => {
    [db, app] = await Promise.all([ownerDataSource(), createTestApp()]);
    http = request(app.getHttpServer());
    const demo = await DemoSeeder.over(db, loadConfig({ NODE_ENV: 'test' })).seed();
    company = await db.getRepository(Company).findOneByOrFail({ publicId: demo.company_id });
    token = await tokenFor(http, { clientId: demo.client_id, clientSecret: demo.client_secret, scopes: [] });
    factory = new RecordingsFactory(db, company.id);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await db?.destroy();
  });

  /** Each format of a readable transcript's captions, read back by its parser, against the transcript's JSON utterances. */
  async function expectSameUtterances(url: string): Promise<void> {
    const json = await get(url).expect(200);
    expect(json.body.data.available).toBe(true);
    const utterances: Utterance[] = json.body.data.utterances;
    for (const format of TEXT_FORMATS) {
      const res = await getText(`${url}${CAPTIONS}?format=${format}`).expect(200);
      expect([format, res.headers['content-type']]).toEqual([format, `${MEDIA_TYPES[format]}; charset=utf-8`]);
      expect([format, READERS[format](res.body as string)]).toEqual([format, expectedOf(format, utterances)]);
    }
  }

  describe.each(COLLECTIONS)('$path', (c) => {
    it('reads back every demo transcript in each format as the JSON answer’s utterances; an unavailable one is 404 in each', async () => {
      const list = await get(`${c.path}?limit=100`).expect(200);
      expect(list.body.pagination.has_more).toBe(false);
      let readable = 0;
      for (const record of list.body.data as Array<{ id: string; transcript: { available: boolean; status: string } }>) {
        const url = `${c.path}/${record.id}/transcript`;
        if (record.transcript.available) {
          await expectSameUtterances(url);
          readable++;
        } else {
          for (const format of TEXT_FORMATS) {
            const res = await get(`${url}${CAPTIONS}?format=${format}`);
            expectError(res, 404, 'RESOURCE_NOT_FOUND');
            expect(res.body.error.detail).toBe(`The ${c.kind}'s transcript is not available: its status is ${record.transcript.status}.`);
          }
        }
      }
      expect(readable).toBeGreaterThanOrEqual(10);
    });

    describe('a transcript with every hard case', () => {
      let url: string;
      beforeAll(async () => {
        const record = await factory.recording(c.kind, { owner: await factory.user(), transcript: 'enhanced', utterances: TRICKY });
        url = `${c.path}/${record.publicId}/transcript`;
      });

      it('reads back in each format as the JSON answer’s utterances, normalised as documented', async () => {
        const json = await get(url).expect(200);
        expect(json.body.data.utterances).toEqual(TRICKY);
        await expectSameUtterances(url);
      });

      it('escapes WebVTT, keeps each cue one block, and writes times exact to the millisecond past an hour', async () => {
        const vtt: string = (await getText(`${url}${CAPTIONS}?format=vtt`).expect(200)).body;
        expect(vtt).toContain(
          '\n00:00:01.000 --> 00:00:04.000\n<v Ana &amp; &lt;Bia&gt;>a &lt; b &amp;&amp; c &gt; d --&gt; e ---&gt; f\n\n',
        );
        expect(vtt).toContain(
          '\n00:00:01.500 --> 00:00:02.500\n<v Carlos Souza>Primeira linha. Segunda, depois de uma linha em branco.\n\n',
        );
        expect(vtt).toContain('\n00:00:05.000 --> 00:00:05.400\n<v Ana &amp; &lt;Bia&gt;>\n\n');
        expect(vtt).toContain('\n01:00:00.001 --> 01:02:05.999\n<v Eva>1 2 00:00:01.000 --&gt; 00:00:02.000 NOTE fim\n');
        expect(vtt.split('\n').filter((line) => line.includes('-->'))).toHaveLength(TRICKY.length);
        // A block per cue after the header: an empty cue is its timings alone, and no text holds a blank line.
        expect(vtt.split(/\n\n+/).filter(Boolean)).toHaveLength(TRICKY.length + 1);
      });

      it('writes SRT without an escape, --> as →, no blank line inside a cue and U+200B for an empty one', async () => {
        const srt: string = (await getText(`${url}${CAPTIONS}?format=srt`).expect(200)).body;
        expect(srt.startsWith('1\n00:00:00,000 --> 00:00:01,200\nSem identificação de quem fala.\n\n2\n')).toBe(true);
        expect(srt).toContain('\n00:00:01,000 --> 00:00:04,000\nAna & <Bia>: a < b && c > d → e -→ f\n\n');
        expect(srt).toContain('\n5\n00:00:06,000 --> 00:00:06,500\n\u200B\n\n6\n00:00:07,000 --> 00:00:07,100\n\u200B\n\n');
        expect(srt).toContain('\n9\n01:00:00,001 --> 01:02:05,999\nEva: 1 2 00:00:01.000 → 00:00:02.000 NOTE fim\n');
        expect(srt.split('\n').filter((line) => line.includes('-->'))).toHaveLength(TRICKY.length);
        expect(srt.split('\n\n')).toHaveLength(TRICKY.length);
      });

      it('writes text as a `Speaker: text` line per utterance', async () => {
        const text: string = (await getText(`${url}${CAPTIONS}?format=text`).expect(200)).body;
        expect(text).toBe(
          [
            'Sem identificação de quem fala.',
            'Ana & <Bia>: a < b && c > d --> e ---> f',
            'Carlos Souza: Primeira linha. Segunda, depois de uma linha em branco.',
            'Ana & <Bia>:',
            '',
            '',
            'Orador em branco.',
            'Dora: <i>itálico</i> &amp; &lt; <v Outro>voz</v> 00:00:01,000 --> 00:00:02,000',
            'Eva: 1 2 00:00:01.000 --> 00:00:02.000 NOTE fim',
            '',
          ].join('\n'),
        );
      });
    });

    describe('choosing the format', () => {
      let id: string;
      let url: string;
      let captions: string;
      beforeAll(async () => {
        const record = await factory.recording(c.kind, { owner: await factory.user(), transcript: 'original' });
        id = record.publicId;
        url = `${c.path}/${id}/transcript`;
        captions = `${url}${CAPTIONS}`;
      });

      const formatOf = (res: request.Response) => String(res.headers['content-type']).split(';')[0];

      it.each([
        [undefined, 'text/vtt'],
        ['*/*', 'text/vtt'],
        ['application/json', 'text/vtt'],
        ['text/vtt', 'text/vtt'],
        ['application/x-subrip', 'application/x-subrip'],
        ['text/plain', 'text/plain'],
        ['text/*', 'text/vtt'],
        ['text/vtt;q=0.5, application/x-subrip', 'application/x-subrip'],
        ['text/plain, text/vtt', 'text/plain'],
        ['application/json;q=0.9, text/*;q=0.2, text/vtt;q=0', 'text/plain'],
        ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'text/vtt'],
        ['image/png', 'text/vtt'],
      ])('captions: Accept %s answers %s, Vary: Accept', async (accept, type) => {
        const req = getText(captions);
        const res = await (accept === undefined ? req : req.set('Accept', accept)).expect(200);
        expect(formatOf(res)).toBe(type);
        expect(varyOf(res)).toContain('Accept');
      });

      it('lets format win over Accept', async () => {
        expect(formatOf(await getText(`${captions}?format=srt`).set('Accept', 'text/vtt').expect(200))).toBe('application/x-subrip');
        expect(formatOf(await getText(`${captions}?format=text`).set('Accept', 'application/x-subrip').expect(200))).toBe('text/plain');
        expect(formatOf(await getText(`${captions}?format=vtt`).set('Accept', 'text/plain').expect(200))).toBe('text/vtt');
      });

      it('answers the transcript route in JSON only, byte for byte what include=transcript embeds, whatever Accept asks, without Vary: Accept', async () => {
        const embedded = (await get(`${c.path}/${id}?include=transcript`).expect(200)).body.data.included.transcript;
        for (const accept of [
          undefined,
          'application/json',
          'text/vtt',
          'application/x-subrip',
          'text/plain',
          'text/*',
          '*/*',
          'text/html',
        ]) {
          const req = getText(url);
          const res = await (accept === undefined ? req : req.set('Accept', accept)).expect(200);
          expect([accept, res.headers['content-type']]).toEqual([accept, 'application/json; charset=utf-8']);
          expect(res.body).toBe(`{"data":${JSON.stringify(embedded)},"request_id":"${res.headers['x-request-id']}"}`);
          expect([accept, varyOf(res)]).toEqual([accept, varyOf(res).filter((v) => v !== 'Accept')]);
        }
      });

      it.each(['vtt', 'json', 'srt', 'VTT'])(
        'refuses format=%s on the transcript route as an unknown parameter: 400 INVALID_REQUEST in JSON',
        async (format) => {
          const res = await get(`${url}?format=${format}`).set('Accept', 'text/vtt');
          expectError(res, 400, 'INVALID_REQUEST');
          expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
          expect(res.body.error.detail).toBe('Unknown query parameter "format".');
        },
      );

      it.each(['VTT', 'json', 'html', 'vtt,srt', 'webvtt'])(
        'answers captions format=%s 400 INVALID_FILTER in the JSON envelope, even asked for text/vtt',
        async (format) => {
          const res = await get(`${captions}?format=${encodeURIComponent(format)}`).set('Accept', 'text/vtt');
          expectError(res, 400, 'INVALID_FILTER');
          expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
          expect(res.body.error.detail).toBe('format must be one of vtt, srt, text.');
        },
      );

      it('answers an empty or repeated format 400 INVALID_REQUEST, as any parameter', async () => {
        expectError(await get(`${captions}?format=`).set('Accept', 'text/vtt'), 400, 'INVALID_REQUEST');
        expectError(await get(`${captions}?format=vtt&format=srt`), 400, 'INVALID_REQUEST');
      });

      it('answers HEAD with the headers of the format and no body', async () => {
        const res = await http.head(`${captions}?format=srt`).set('Authorization', `Bearer ${token}`).expect(200);
        expect(res.headers['content-type']).toBe('application/x-subrip; charset=utf-8');
        expect(Number(res.headers['content-length'])).toBeGreaterThan(0);
        expect(res.text ?? '').toBe('');
      });
    });

    describe('an unavailable transcript', () => {
      it.each(['not_started', 'processing', 'failed'] as const)(
        '(%s) is 404 with its status as captions, in every format, and 200 available: false on the transcript route',
        async (state) => {
          const record = await factory.recording(c.kind, { owner: await factory.user(), transcript: state });
          const url = `${c.path}/${record.publicId}/transcript`;
          for (const ask of [
            (r: request.Test) => r,
            (r: request.Test) => r.query({ format: 'text' }),
            (r: request.Test) => r.set('Accept', 'application/x-subrip'),
          ]) {
            const res = await ask(get(`${url}${CAPTIONS}`));
            expectError(res, 404, 'RESOURCE_NOT_FOUND');
            expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
            expect(res.body.error.detail).toBe(`The ${c.kind}'s transcript is not available: its status is ${state}.`);
            expect(varyOf(res)).toContain('Accept');
          }
          const json = await get(url).set('Accept', 'text/vtt').expect(200);
          expect(json.body.data).toMatchObject({ available: false, status: state, utterances: [] });
        },
      );
    });

    describe('the pipeline around a text answer', () => {
      let id: string;
      let url: string;
      beforeAll(async () => {
        const record = await factory.recording(c.kind, { owner: await factory.user(), transcript: 'enhanced', utterances: TRICKY });
        id = record.publicId;
        url = `${c.path}/${id}/transcript`;
      });

      it('carries the same request id, no-cache and rate-limit headers as the JSON answer', async () => {
        const json = await get(url).expect(200);
        for (const format of TEXT_FORMATS) {
          const res = await getText(`${url}${CAPTIONS}?format=${format}`).expect(200);
          expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]+$/);
          expect(res.headers['x-request-id']).not.toBe(json.headers['x-request-id']);
          for (const name of ['cache-control', 'pragma', 'x-content-type-options', 'ratelimit-policy'])
            expect([format, name, res.headers[name]]).toEqual([format, name, json.headers[name]]);
          const [text, asJson] = [rateLimitOf(res), rateLimitOf(json)];
          expect([...text.policy.keys()]).toEqual([...asJson.policy.keys()]);
          expect([...text.state.keys()]).toEqual([...asJson.state.keys()]);
          for (const [policy, params] of text.state)
            expect(Object.keys(params).sort()).toEqual(Object.keys(asJson.state.get(policy)!).sort());
        }
      });

      it('is compressed as the JSON answer is, when asked', async () => {
        const big = (
          await factory.recording(c.kind, { owner: await factory.user(), transcript: 'original', utterances: Array(6).fill(TRICKY).flat() })
        ).publicId;
        const json = await getText(`${c.path}/${big}/transcript`).set('Accept-Encoding', 'gzip').expect(200);
        expect([json.headers['content-encoding'], json.headers.vary]).toEqual(['gzip', 'Accept-Encoding']);
        for (const format of TEXT_FORMATS) {
          const res = await getText(`${c.path}/${big}/transcript${CAPTIONS}?format=${format}`).set('Accept-Encoding', 'gzip').expect(200);
          expect([format, res.headers['content-encoding']]).toEqual([format, 'gzip']);
          expect([format, String(res.headers.vary)]).toEqual([format, 'Accept, Accept-Encoding']);
        }
      });

      it('writes the audit row of a WebVTT read, naming the record', async () => {
        for (const [res, query] of [
          [await getText(`${url}${CAPTIONS}?format=vtt`).expect(200), { format: 'vtt' }],
          [await getText(`${url}${CAPTIONS}`).set('Accept', 'text/vtt').expect(200), {}],
        ] as const) {
          const rows = await db.query('SELECT * FROM audit_events WHERE request_id = $1', [res.headers['x-request-id']]);
          expect(rows).toHaveLength(1);
          expect(rows[0]).toMatchObject({
            route: `GET ${c.template}${CAPTIONS}`,
            status: 200,
            company: company.publicId,
            resource_ids: [id],
            query,
          });
        }
      });
    });
  });

  it('documents the captions as an operation of their own (one media type for the 200, `format`, Vary) and the transcript as JSON alone', async () => {
    const { body: document } = await http.get('/openapi.json').expect(200);
    for (const { template } of COLLECTIONS) {
      const id = `path:${template.split('{')[1].split('}')[0]}`;
      const captions = document.paths[`${template}${CAPTIONS}`].get;
      expect(captions.operationId).toBe(`get${template.startsWith('/v1/meetings') ? 'Meeting' : 'Call'}TranscriptCaptions`);
      const ok = captions.responses['200'];
      expect(ok.content).toEqual({ '*/*': { schema: expect.objectContaining({ type: 'string' }) } });
      for (const type of Object.values(MEDIA_TYPES)) expect(ok.description).toContain(type);
      expect(ok.headers.Vary.required).toBe(true);
      // Accept is no parameter: OpenAPI has a header parameter named Accept ignored.
      expect(captions.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`)).toEqual([id, 'query:format']);
      const format = captions.parameters.find((p: { name: string }) => p.name === 'format');
      expect(format).toMatchObject({ in: 'query', required: false, schema: { type: 'string', enum: ['vtt', 'srt', 'text'] } });
      expect(Object.keys(captions.responses['404'].content)).toEqual(['application/json']);
      expect(Object.keys(captions.responses['400'].content)).toEqual(['application/json']);

      const transcript = document.paths[template].get;
      expect(transcript.responses['200'].content).toEqual({
        'application/json': { schema: { $ref: '#/components/schemas/TranscriptEnvelope' } },
      });
      expect(transcript.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`)).toEqual([id]);
      expect(transcript.responses['200'].headers.Vary?.required ?? false).toBe(false);
      expect(transcript.security).toEqual(captions.security);
      expect(transcript['x-rate-limit-policies']).toEqual(captions['x-rate-limit-policies']);
    }
  });
});
