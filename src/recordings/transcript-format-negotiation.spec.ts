import { TranscriptFormat } from './recording.vocabulary';
import { acceptedFormat, transcriptFormatOf } from './transcript-renditions';

describe('transcript renditions', () => {
  describe('negotiation', () => {
    it.each<[string | undefined, TranscriptFormat]>([
      [undefined, 'json'],
      ['', 'json'],
      ['*/*', 'json'],
      ['application/json', 'json'],
      ['application/*', 'json'],
      ['text/vtt', 'vtt'],
      ['TEXT/VTT', 'vtt'],
      ['text/vtt; charset=utf-8', 'vtt'],
      ['application/x-subrip', 'srt'],
      ['text/plain', 'text'],
      // A wildcard of several: the most general text.
      ['text/*', 'text'],
      ['text/*, text/plain;q=0', 'vtt'],
      // Weights decide; a more specific range overrides a wildcard's weight.
      ['text/vtt;q=0.5, application/x-subrip;q=0.8', 'srt'],
      ['application/json;q=0.9, text/vtt', 'vtt'],
      ['*/*;q=0.1, text/vtt;q=0.2', 'vtt'],
      ['text/*;q=0.5, application/json;q=0.4', 'text'],
      ['text/*;q=0.3, */*;q=0.1', 'text'],
      ['text/plain, */*;q=0', 'text'],
      ['text/vtt;q=0.5, */*', 'json'],
      // Equal weights: the more specific range, then the one listed first.
      ['text/*, application/json', 'json'],
      ['text/vtt, application/json', 'vtt'],
      ['application/json, text/vtt', 'json'],
      ['application/x-subrip, text/vtt', 'srt'],
      // A browser's: JSON through */*.
      ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'json'],
      // Nothing admitted, or nothing readable: JSON.
      ['text/html', 'json'],
      ['image/png;q=0.1', 'json'],
      ['application/json;q=0', 'json'],
      ['text/vtt;q=0', 'json'],
      ['*/*;q=0', 'json'],
      // Malformed ranges are skipped, the others still count.
      ['text/vtt;q=2', 'json'],
      ['text/vtt;q=0.1234', 'json'],
      ['text/vtt;q=', 'json'],
      ['text/vtt;q=abc, text/plain', 'text'],
      ['vtt', 'json'],
      ['*/vtt', 'json'],
      ['text/vtt/x', 'json'],
      [',,, text/vtt ,', 'vtt'],
      // A quoted parameter may hold a comma or a semicolon; parameters after the weight are extensions.
      ['text/vtt; x="a, b; q=0", application/json;q=0.5', 'vtt'],
      ['text/vtt;q=0.7;level=1, application/json;q=0.6', 'vtt'],
      ['text/vtt;Q=0.4, application/json;q=0.5', 'json'],
    ])('Accept %j: %s', (accept, format) => {
      expect(acceptedFormat(accept)).toBe(format);
    });

    it('lets `format` win over Accept', () => {
      expect(transcriptFormatOf('srt', 'text/vtt')).toBe('srt');
      expect(transcriptFormatOf('json', 'text/vtt')).toBe('json');
      expect(transcriptFormatOf('text', 'application/json')).toBe('text');
      expect(transcriptFormatOf(undefined, 'text/vtt')).toBe('vtt');
      expect(transcriptFormatOf(undefined, undefined)).toBe('json');
    });
  });
});
