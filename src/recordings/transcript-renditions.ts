import { CaptionFormat } from './recording.vocabulary';

/**
 * A transcript's utterances as WebVTT, SubRip (SRT) or plain text (the captions routes,
 * `GET …/transcript/captions`), and which format a request asked for. Pure functions of the utterances the JSON answer holds, in its order, so a
 * rendition shows exactly that answer's utterances, overlaps included. What a format cannot
 * carry is normalised, the same way in all three (docs/API.md, "Transcript formats"):
 *
 * - a text is written as one line: its leading and trailing whitespace removed, and every run of
 *   whitespace holding a line break replaced by one space (a blank line would end a cue, and the
 *   text format is a line per utterance);
 * - a speaker has every whitespace run replaced by one space and is trimmed (WebVTT's parsers
 *   read a voice name so); one left empty is written as no speaker;
 * - times are whole milliseconds, `HH:MM:SS.mmm` (WebVTT) or `HH:MM:SS,mmm` (SRT), hours in at
 *   least two digits; a negative time is written as zero.
 */

/** One utterance, as the JSON answer holds it. */
export interface Utterance {
  speaker: string | null;
  text: string;
  start_ms: number;
  end_ms: number;
}

/** Each format's media type: what `Accept` names it by and `Content-Type` sends (with `; charset=utf-8`). */
export const CAPTION_MEDIA_TYPES: Readonly<Record<CaptionFormat, string>> = {
  vtt: 'text/vtt',
  srt: 'application/x-subrip',
  text: 'text/plain',
};

/** A rendition's body and its Content-Type. */
export interface Rendition {
  text: string;
  contentType: string;
}

export function renderTranscript(format: CaptionFormat, utterances: readonly Utterance[]): Rendition {
  const render = { vtt: renderVtt, srt: renderSrt, text: renderText }[format];
  return { text: render(utterances), contentType: `${CAPTION_MEDIA_TYPES[format]}; charset=utf-8` };
}

/**
 * WebVTT: the `WEBVTT` line, then a cue per utterance, each after a blank line: its timings and
 * the text, behind a voice span (`<v Speaker>`, whose end tag a cue of one span may omit) when
 * the speaker is known. Text and voice name are escaped (`&amp;`, `&lt;`, `&gt;`), so no cue
 * holds a tag of its own or `-->` (nor does a name ending in `-` before the voice tag's `>`). An empty text leaves the cue empty, which WebVTT allows.
 */
export function renderVtt(utterances: readonly Utterance[]): string {
  let vtt = 'WEBVTT\n';
  for (const u of utterances) {
    const speaker = speakerName(u.speaker);
    // A name ending in `-` would meet the tag's `>` as `-->`, which no cue may hold: a space
    // goes between them, and readers strip it from the annotation.
    const voice = speaker === null ? '' : `<v ${escapeVtt(speaker)}${speaker.endsWith('-') ? ' ' : ''}>`;
    vtt += `\n${timestamp(u.start_ms, '.')} --> ${timestamp(u.end_ms, '.')}\n${voice}${escapeVtt(oneLine(u.text))}\n`;
  }
  return vtt;
}

/**
 * What an SRT cue holds when an utterance has neither speaker nor text: U+200B ZERO WIDTH SPACE.
 * SRT has no empty cue (the blank line after the timings ends the cue, and readers that expect a
 * text line take the next cue's number for it); U+200B shows nothing and is not whitespace to
 * the trimming readers do (JavaScript's `trim`, Python's `strip`), so every reader keeps the cue.
 */
export const SRT_EMPTY_TEXT = '\u200B';

/**
 * SubRip: a cue per utterance, numbered from 1, blank lines between them; the text as the text
 * format writes it (`Speaker: text`). SRT has no escapes: `<`, `>` and `&` stay as they are (an
 * escape would be shown literally; players that honour SRT's informal `<i>`-style tags may show
 * such text as markup), and `-->`, which readers take for a timing line, is written `→`.
 */
export function renderSrt(utterances: readonly Utterance[]): string {
  return utterances
    .map((u, i) => {
      const text = labelled(u).replaceAll('-->', '→') || SRT_EMPTY_TEXT;
      return `${i + 1}\n${timestamp(u.start_ms, ',')} --> ${timestamp(u.end_ms, ',')}\n${text}\n`;
    })
    .join('\n');
}

/** Plain text: a line per utterance, `Speaker: text`, or the text alone when the speaker is unknown. */
export function renderText(utterances: readonly Utterance[]): string {
  return utterances.map((u) => `${labelled(u)}\n`).join('');
}

/** `Speaker: text`; `Speaker:` for an empty text; the text alone without a speaker. */
function labelled(u: Utterance): string {
  const speaker = speakerName(u.speaker);
  const text = oneLine(u.text);
  if (speaker === null) return text;
  return text === '' ? `${speaker}:` : `${speaker}: ${text}`;
}

/**
 * Line breaks: WebVTT's (CR, LF) and what other readers split lines on (Unicode's, as Python's
 * `splitlines`, whose list holds the control characters U+001C–U+001E).
 */
// eslint-disable-next-line no-control-regex -- those separators are the point
const LINE_BREAK = /[\n\r\v\f\u001c-\u001e\u0085\u2028\u2029]/;
// eslint-disable-next-line no-control-regex -- the same separators count as whitespace
const WHITESPACE_RUN = /[\s\u001c-\u001e\u0085]+/;

/** A text as one line: trimmed, each run of whitespace holding a line break one space. Linear: split, never a backtracking pattern. */
export function oneLine(text: string): string {
  return text
    .split(LINE_BREAK)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
}

/** A speaker as written: whitespace runs one space, trimmed; null when nothing is left. */
export function speakerName(speaker: string | null): string | null {
  const name = (speaker ?? '')
    .split(WHITESPACE_RUN)
    .filter((word) => word !== '')
    .join(' ');
  return name === '' ? null : name;
}

const VTT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

export function escapeVtt(text: string): string {
  return text.replace(/[&<>]/g, (c) => VTT_ESCAPES[c]);
}

/** `HH:MM:SS.mmm` (WebVTT) or `HH:MM:SS,mmm` (SRT), exact to the millisecond; hours grow past two digits. */
export function timestamp(ms: number, separator: '.' | ','): string {
  const t = Math.max(0, Math.trunc(ms));
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  const [h, m, s] = [Math.floor(t / 3_600_000), Math.floor(t / 60_000) % 60, Math.floor(t / 1000) % 60];
  return `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}${separator}${pad(t % 1000, 3)}`;
}

/**
 * The format to answer in: the query's `format` when given (it wins over `Accept`), else the
 * one the `Accept` header prefers, else WebVTT.
 */
export function captionFormatOf(format: CaptionFormat | undefined, accept: string | undefined): CaptionFormat {
  return format ?? acceptedFormat(accept);
}

/**
 * Formats in the order they are preferred when `Accept` ranks several equally: WebVTT first (the
 * default: what the full wildcard and no header get), then plain text, then SubRip.
 */
const PREFERENCE: readonly CaptionFormat[] = ['vtt', 'text', 'srt'];

/**
 * The format `Accept` prefers (RFC 9110 §12.5.1): each format takes the weight of the most
 * specific media range that matches it (`text/vtt` over `text/*` over the full wildcard; the highest weight
 * among equally specific ones); the heaviest wins, a tie going to the more specific range, then
 * the range listed first, then PREFERENCE. Parameters other than `q` are ignored (every
 * rendition is UTF-8). A malformed range is skipped; a header that admits no format, or none,
 * gets WebVTT: a `406` would only break clients whose Accept is narrow for other reasons.
 */
export function acceptedFormat(accept: string | undefined): CaptionFormat {
  const ranges = mediaRanges(accept ?? '');
  let best: { format: CaptionFormat; q: number; specificity: number; position: number } | undefined;
  for (const format of PREFERENCE) {
    const [type, subtype] = CAPTION_MEDIA_TYPES[format].split('/');
    let match: { q: number; specificity: number; position: number } | undefined;
    for (const range of ranges) {
      const specificity = range.type === '*' ? 1 : range.type !== type ? 0 : range.subtype === '*' ? 2 : range.subtype === subtype ? 3 : 0;
      if (specificity === 0) continue;
      if (!match || specificity > match.specificity || (specificity === match.specificity && range.q > match.q)) {
        match = { q: range.q, specificity, position: range.position };
      }
    }
    if (!match || match.q === 0) continue;
    const better =
      !best ||
      match.q > best.q ||
      (match.q === best.q &&
        (match.specificity > best.specificity || (match.specificity === best.specificity && match.position < best.position)));
    if (better) best = { format, ...match };
  }
  return best?.format ?? 'vtt';
}

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
  /** Its place in the header. */
  position: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** The well-formed media ranges of an Accept header, with their weights, in order. */
function mediaRanges(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const [position, element] of splitOutsideQuotes(accept, ',').entries()) {
    const [range, ...parameters] = splitOutsideQuotes(element, ';').map((part) => part.trim());
    const [type, subtype, ...rest] = range.toLowerCase().split('/');
    if (rest.length > 0 || !TOKEN.test(type) || !TOKEN.test(subtype ?? '') || (type === '*' && subtype !== '*')) continue;
    let q: number | undefined = 1;
    for (const parameter of parameters) {
      const [name, value] = parameter.split('=', 2).map((s) => s.trim());
      if (name.toLowerCase() !== 'q') continue;
      q = value !== undefined && QVALUE.test(value) ? Number(value) : undefined;
      break; // what follows the weight are extensions
    }
    if (q !== undefined) ranges.push({ type, subtype, q, position });
  }
  return ranges;
}

/** `text` split at each `separator` outside a quoted string (a parameter's value may hold one). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let [current, quoted, escaped] = ['', false, false];
  for (const c of text) {
    if (escaped) escaped = false;
    else if (quoted && c === '\\') escaped = true;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && c === separator) {
      parts.push(current);
      current = '';
      continue;
    }
    current += c;
  }
  parts.push(current);
  return parts;
}
