import { CaptionFormat } from './recording.vocabulary';
import { acceptedFormat, captionFormatOf } from './transcript-renditions';

describe('caption renditions', () => {
  describe('negotiation', () => {
    it.each<[string | undefined, CaptionFormat]>([
      // No header, or one that admits anything: WebVTT, the default.
      [undefined, 'vtt'],
      ['', 'vtt'],
      ['*/*', 'vtt'],
      ['text/vtt', 'vtt'],
      ['TEXT/VTT', 'vtt'],
      ['text/vtt; charset=utf-8', 'vtt'],
      ['application/x-subrip', 'srt'],
      ['text/plain', 'text'],
      // A wildcard of several: the default among them.
      ['text/*', 'vtt'],
      ['text/*, text/vtt;q=0', 'text'],
      ['application/*', 'srt'],
      // Weights decide; a more specific range overrides a wildcard's weight.
      ['text/vtt;q=0.5, application/x-subrip;q=0.8', 'srt'],
      ['application/json;q=0.9, text/plain', 'text'],
      ['*/*;q=0.1, text/plain;q=0.2', 'text'],
      ['text/*;q=0.5, application/x-subrip;q=0.4', 'vtt'],
      ['text/plain, */*;q=0', 'text'],
      ['text/plain;q=0.5, */*', 'vtt'],
      ['*/*, text/vtt;q=0', 'text'],
      // Equal weights: the more specific range, then the one listed first.
      ['text/*, application/x-subrip', 'srt'],
      ['text/plain, text/vtt', 'text'],
      ['application/x-subrip, text/vtt', 'srt'],
      // A browser's: WebVTT through */*.
      ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'vtt'],
      // Nothing admitted, or nothing readable: WebVTT.
      ['application/json', 'vtt'],
      ['text/html', 'vtt'],
      ['image/png;q=0.1', 'vtt'],
      ['text/plain;q=0', 'vtt'],
      ['*/*;q=0', 'vtt'],
      // Malformed ranges are skipped, the others still count.
      ['text/plain;q=2', 'vtt'],
      ['text/plain;q=0.1234', 'vtt'],
      ['text/plain;q=', 'vtt'],
      ['text/plain;q=abc, application/x-subrip', 'srt'],
      ['plain', 'vtt'],
      ['*/plain', 'vtt'],
      ['text/plain/x', 'vtt'],
      [',,, text/plain ,', 'text'],
      // A quoted parameter may hold a comma or a semicolon; parameters after the weight are extensions.
      ['text/plain; x="a, b; q=0", text/vtt;q=0.5', 'text'],
      ['text/plain;q=0.7;level=1, text/vtt;q=0.6', 'text'],
      ['text/plain;Q=0.4, text/vtt;q=0.5', 'vtt'],
    ])('Accept %j: %s', (accept, format) => {
      expect(acceptedFormat(accept)).toBe(format);
    });

    it('lets `format` win over Accept', () => {
      expect(captionFormatOf('srt', 'text/vtt')).toBe('srt');
      expect(captionFormatOf('vtt', 'text/plain')).toBe('vtt');
      expect(captionFormatOf('text', 'application/x-subrip')).toBe('text');
      expect(captionFormatOf(undefined, 'text/plain')).toBe('text');
      expect(captionFormatOf(undefined, undefined)).toBe('vtt');
    });
  });
});
