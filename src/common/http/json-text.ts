/**
 * A resource's JSON text as PostgreSQL rendered it, passed through to the client as it is:
 * never parsed, presented and serialized again. `id` is the resource's public id, which the
 * audit trail records without reading the text.
 */
export class JsonText {
  constructor(
    readonly text: string,
    readonly id: string,
    /** The ids the audit trail records for it: its own, unless it is a list rendered whole (a record's answers). */
    readonly resourceIds: readonly string[] = [id],
  ) {}
}

/**
 * `resource` with `included` (the parts `include` asked for) added as its last property, spliced
 * into its text: the resource's own properties stay byte for byte as rendered. Unchanged when
 * nothing was asked.
 */
export function withIncluded(resource: JsonText, included: object | undefined): JsonText {
  return withIncludedText(resource, included === undefined ? undefined : JSON.stringify(included));
}

/** The same with `included` already JSON text (rendered by PostgreSQL). */
export function withIncludedText(resource: JsonText, included: string | undefined): JsonText {
  if (included === undefined) return resource;
  return new JsonText(`${resource.text.slice(0, resource.text.lastIndexOf('}'))},"included":${included}}`, resource.id);
}

/**
 * A strings' total above which V8 allocates a string in its large-object space, which only a
 * full collection frees: a page of 100 meetings (about 180 KB) written as one string raised the
 * service's resident memory past 350 MB under load. Bodies are kept as parts below it.
 */
export const PART_CHARS = 64 * 1024;

/** The Content-Type of the API's answers, unless a route renders another format. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * A whole response body, serialized, as consecutive parts each under PART_CHARS (their
 * concatenation is the body), with the ids of the resources it shows (for the audit trail).
 * The HTTP adapter writes the parts as they are, as `contentType`: JSON, or the format a route
 * rendered (captions as WebVTT), which the envelope interceptor leaves as it is.
 */
export class SerializedBody {
  constructor(
    readonly parts: readonly string[],
    readonly resourceIds: string[],
    readonly contentType: string = JSON_CONTENT_TYPE,
  ) {}

  /** `items` spliced between `head` and `tail`, separated by commas, in parts under PART_CHARS. */
  static of(head: string, items: readonly JsonText[], separator: string, tail: string): SerializedBody {
    const parts: string[] = [];
    let current = head;
    for (const [i, item] of items.entries()) {
      const piece = i === 0 ? item.text : separator + item.text;
      if (current.length + piece.length > PART_CHARS && current.length > 0) {
        parts.push(current);
        current = '';
      }
      current += piece;
    }
    parts.push(current + tail);
    return new SerializedBody(
      parts,
      items.flatMap((i) => i.resourceIds),
    );
  }

  /** The whole body (tests, and nothing on the request path). */
  get text(): string {
    return this.parts.join('');
  }
}
