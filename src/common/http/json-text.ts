/**
 * A resource's JSON text as PostgreSQL rendered it, passed through to the client as it is:
 * never parsed, presented and serialized again. `id` is the resource's public id, which the
 * audit trail records without reading the text.
 */
export class JsonText {
  constructor(
    readonly text: string,
    readonly id: string,
  ) {}
}

/**
 * A whole response body, serialized, with the ids of the resources it shows (for the audit
 * trail). The HTTP adapter writes it as `application/json` without touching it.
 */
export class SerializedBody {
  constructor(
    readonly text: string,
    readonly resourceIds: string[],
  ) {}
}
