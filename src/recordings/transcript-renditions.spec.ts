import fc from 'fast-check';
import { parseSync } from 'subtitle';
import { WebVTTParser } from 'webvtt-parser';
import HTML_ENTITIES from 'webvtt-parser/html-entities.json';
import {
  oneLine,
  renderSrt,
  renderText,
  renderTranscript,
  renderVtt,
  speakerName,
  SRT_EMPTY_TEXT,
  timestamp,
  Utterance,
} from './transcript-renditions';

const u = (speaker: string | null, text: string, start_ms: number, end_ms: number): Utterance => ({ speaker, text, start_ms, end_ms });

describe('transcript renditions', () => {
  describe('timestamps', () => {
    it.each([
      [0, '00:00:00.000', '00:00:00,000'],
      [1, '00:00:00.001', '00:00:00,001'],
      [999, '00:00:00.999', '00:00:00,999'],
      [59_999, '00:00:59.999', '00:00:59,999'],
      [60_000, '00:01:00.000', '00:01:00,000'],
      [3_599_999, '00:59:59.999', '00:59:59,999'],
      [3_600_000, '01:00:00.000', '01:00:00,000'],
      [3_723_004, '01:02:03.004', '01:02:03,004'],
      [99 * 3_600_000 + 59 * 60_000 + 59_999, '99:59:59.999', '99:59:59,999'],
      [100 * 3_600_000 + 7, '100:00:00.007', '100:00:00,007'],
      [-1500, '00:00:00.000', '00:00:00,000'],
    ])('%i ms is %s in WebVTT and %s in SRT', (ms, vtt, srt) => {
      expect([timestamp(ms, '.'), timestamp(ms, ',')]).toEqual([vtt, srt]);
    });
  });

  describe('text normalisation', () => {
    it.each([
      ['Bom dia.', 'Bom dia.'],
      ['  Bom dia.  ', 'Bom dia.'],
      ['Bom\ndia.', 'Bom dia.'],
      ['Bom\r\ndia.', 'Bom dia.'],
      ['Bom\rdia.', 'Bom dia.'],
      ['Bom \n\n\n dia.', 'Bom dia.'],
      ['Bom\n \t \r\n\ndia.', 'Bom dia.'],
      ['\n\nBom dia.\n\n', 'Bom dia.'],
      ['Bom  dia.', 'Bom  dia.'], // a run without a line break stays
      ['Bom\tdia.', 'Bom\tdia.'],
      ['Bom\u2028dia\u2029e\u0085boa\vtarde\fa\u001ctodos.', 'Bom dia e boa tarde a todos.'],
      ['', ''],
      ['\n \n', ''],
    ])('writes %j as %j', (text, line) => {
      expect(oneLine(text)).toBe(line);
    });

    it.each([
      [null, null],
      ['', null],
      ['  \n ', null],
      ['Ana', 'Ana'],
      ['  Ana \n\t Souza  ', 'Ana Souza'],
      ['Ana  Souza', 'Ana Souza'],
    ])('writes the speaker %j as %j', (speaker, name) => {
      expect(speakerName(speaker)).toBe(name);
    });
  });

  describe('WebVTT', () => {
    it('starts with WEBVTT and a blank line, then a cue per utterance with a voice span for a known speaker', () => {
      expect(renderVtt([u('Ana', 'Olá.', 0, 1500), u(null, 'Bom dia.', 1600, 2400)])).toBe(
        'WEBVTT\n\n00:00:00.000 --> 00:00:01.500\n<v Ana>Olá.\n\n00:00:01.600 --> 00:00:02.400\nBom dia.\n',
      );
      expect(renderVtt([])).toBe('WEBVTT\n');
    });

    it('escapes &, < and > in the text and in the voice name, so no tag and no --> can appear', () => {
      const vtt = renderVtt([u('Ana & <Bo>', 'a < b && c --> d <i>e</i>', 0, 1)]);
      expect(vtt).toBe(
        'WEBVTT\n\n00:00:00.000 --> 00:00:00.001\n<v Ana &amp; &lt;Bo&gt;>a &lt; b &amp;&amp; c --&gt; d &lt;i&gt;e&lt;/i&gt;\n',
      );
      expect(vtt.split('\n').filter((line) => line.includes('-->'))).toEqual(['00:00:00.000 --> 00:00:00.001']);
    });

    it("never lets a voice name ending in - meet its tag's > as -->: a space between them, stripped by readers", () => {
      // fast-check found it: a speaker named "--" with no text wrote the cue line `<v -->`, a timing line to every reader.
      const vtt = renderVtt([u('--', '', 0, 1), u('Ana -', 'x', 1, 2)]);
      expect(vtt).toBe('WEBVTT\n\n00:00:00.000 --> 00:00:00.001\n<v -- >\n\n00:00:00.001 --> 00:00:00.002\n<v Ana - >x\n');
      expect(vtt.split('\n').filter((line) => line.includes('-->'))).toHaveLength(2);
      const parsed = new WebVTTParser().parse(vtt, 'subtitles');
      expect(parsed.errors).toEqual([]);
      expect(parsed.cues.map((cue) => (cue.tree.children[0] as { value?: string } | undefined)?.value)).toEqual(['--', 'Ana -']);
    });

    it('keeps a cue one block: line breaks and blank lines in the text become one space', () => {
      expect(renderVtt([u('Ana', 'um\n\ndois\r\n\r\ntrês\n', 5, 6)])).toBe(
        'WEBVTT\n\n00:00:00.005 --> 00:00:00.006\n<v Ana>um dois três\n',
      );
    });

    it('leaves the cue empty for an empty text (legal WebVTT), keeping its voice span', () => {
      expect(renderVtt([u(null, '', 0, 1000), u('Ana', ' \n ', 1000, 2000), u(null, 'x', 2000, 3000)])).toBe(
        'WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n\n\n00:00:01.000 --> 00:00:02.000\n<v Ana>\n\n00:00:02.000 --> 00:00:03.000\nx\n',
      );
    });

    it('keeps the JSON order and overlapping times, past an hour exact to the millisecond', () => {
      expect(renderVtt([u('A', 'um', 3_600_000, 3_725_001), u('B', 'dois', 3_600_500, 3_601_000)])).toBe(
        'WEBVTT\n\n01:00:00.000 --> 01:02:05.001\n<v A>um\n\n01:00:00.500 --> 01:00:01.000\n<v B>dois\n',
      );
    });
  });

  describe('SRT', () => {
    it('numbers cues from 1, with comma milliseconds and `Speaker: text`', () => {
      expect(renderSrt([u('Ana', 'Olá.', 0, 1500), u(null, 'Bom dia.', 3_723_004, 3_723_500)])).toBe(
        '1\n00:00:00,000 --> 00:00:01,500\nAna: Olá.\n\n2\n01:02:03,004 --> 01:02:03,500\nBom dia.\n',
      );
      expect(renderSrt([])).toBe('');
    });

    it('writes --> as → (SRT has no escape), and <, >, & as they are', () => {
      expect(renderSrt([u('A-->B', 'x --> y <b>z</b> & ---->', 0, 1)])).toBe(
        '1\n00:00:00,000 --> 00:00:00,001\nA→B: x → y <b>z</b> & --→\n',
      );
    });

    it('never leaves a blank line inside a cue, nor an empty cue', () => {
      expect(renderSrt([u('Ana', 'um\n\ndois', 0, 1), u('Ana', '', 1, 2), u(null, '\n', 2, 3), u(null, 'fim', 3, 4)])).toBe(
        `1\n00:00:00,000 --> 00:00:00,001\nAna: um dois\n\n2\n00:00:00,001 --> 00:00:00,002\nAna:\n\n3\n00:00:00,002 --> 00:00:00,003\n${SRT_EMPTY_TEXT}\n\n4\n00:00:00,003 --> 00:00:00,004\nfim\n`,
      );
    });
  });

  describe('text', () => {
    it('writes a `Speaker: text` line per utterance, the text alone without a speaker, nothing altered but line breaks', () => {
      expect(
        renderText([u('Ana', 'Olá,\n\nCarlos.', 0, 1), u(null, 'a --> b <i> &amp;', 1, 2), u('Ana', '', 2, 3), u(null, '', 3, 4)]),
      ).toBe('Ana: Olá, Carlos.\na --> b <i> &amp;\nAna:\n\n');
      expect(renderText([])).toBe('');
    });
  });

  it('sends each format with its media type, in UTF-8', () => {
    expect(Object.fromEntries((['vtt', 'srt', 'text'] as const).map((f) => [f, renderTranscript(f, []).contentType]))).toEqual({
      vtt: 'text/vtt; charset=utf-8',
      srt: 'application/x-subrip; charset=utf-8',
      text: 'text/plain; charset=utf-8',
    });
  });

  describe('read back by real parsers', () => {
    /** Texts with what the formats must survive: line breaks and blank lines, markup, escapes, arrows, colons. */
    const tricky = fc.array(
      fc.oneof(
        fc.constantFrom(
          '\n',
          '\r\n',
          '\n\n',
          ' ',
          '\t',
          '<',
          '>',
          '&',
          '-->',
          '&amp;',
          '&lt;',
          '<v x>',
          '</v>',
          '<b>',
          ':',
          '→',
          '1',
          '\u2028',
          'é',
        ),
        fc.string({ maxLength: 6 }),
      ),
      { maxLength: 8 },
    );
    const text = tricky.map((parts) => parts.join(''));
    /** Utterances as WebVTT's authoring rules want them: starts ascending, each ending after it starts (overlaps allowed). */
    const utterances = fc
      .array(
        fc.record({
          speaker: fc.oneof(fc.constant(null), text),
          text,
          gap: fc.integer({ min: 1, max: 4_000_000 }),
          length: fc.integer({ min: 1, max: 400_000_000 }),
        }),
        { maxLength: 12 },
      )
      .map((items) => {
        let start = 0;
        return items.map(({ speaker, text, gap, length }) => u(speaker, text, (start += gap), start + length));
      });

    const decodeEscapes = (annotation: string) =>
      annotation.replace(/&(amp|lt|gt);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>' })[name]!);

    it('WebVTT: webvtt-parser reads each utterance back, voice included, without a single error', () => {
      fc.assert(
        fc.property(utterances, (list) => {
          const parsed = new WebVTTParser(HTML_ENTITIES as Record<`&${string}`, string>).parse(renderVtt(list), 'subtitles');
          expect(parsed.errors).toEqual([]);
          const read = parsed.cues.map((cue) => {
            const [node] = cue.tree.children;
            const voice = node?.type === 'object' && node.name === 'v' ? node : undefined;
            const texts = (voice ? voice.children : cue.tree.children).map((n) => (n.type === 'text' ? n.value : `<${n.type}>`));
            return u(
              voice ? decodeEscapes(voice.value) : null,
              texts.join(''),
              Math.round(cue.startTime * 1000),
              Math.round(cue.endTime * 1000),
            );
          });
          expect(read).toEqual(list.map((x) => u(speakerName(x.speaker), oneLine(x.text), x.start_ms, x.end_ms)));
        }),
        { numRuns: 300 },
      );
    });

    it('SRT: subtitle reads each cue back as `Speaker: text`, --> as →, an empty one as U+200B', () => {
      fc.assert(
        fc.property(utterances, (list) => {
          const read = parseSync(renderSrt(list)).map((node) => (node.type === 'cue' ? node.data : node));
          const expected = list.map((x) => {
            const [speaker, line] = [speakerName(x.speaker), oneLine(x.text)];
            const labelled = speaker === null ? line : line === '' ? `${speaker}:` : `${speaker}: ${line}`;
            return { start: x.start_ms, end: x.end_ms, text: labelled.replaceAll('-->', '→') || '\u200B' };
          });
          expect(read).toEqual(expected);
        }),
        { numRuns: 300 },
      );
    });
  });
});
