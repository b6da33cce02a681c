import { ApiProperty } from '@nestjs/swagger';
import { PaginationDto } from './pagination.dto';

/** The spec's three envelopes as OpenAPI schemas, each named for the document. */

const REQUEST_ID = { pattern: '^req_[0-9A-Za-z]+$' };

/** `{data, request_id}` around `type`, named for the document. */
export function SingleEnvelope(type: new () => unknown, name: string): new () => unknown {
  class Envelope {
    @ApiProperty({ type }) data: unknown;
    @ApiProperty(REQUEST_ID) request_id: string;
  }
  Object.defineProperty(Envelope, 'name', { value: name });
  return Envelope;
}

/** `{data: [...], request_id}`: a list answered whole. */
export function ListEnvelope(type: new () => unknown, name: string): new () => unknown {
  class Envelope {
    @ApiProperty({ type: [type] }) data: unknown[];
    @ApiProperty(REQUEST_ID) request_id: string;
  }
  Object.defineProperty(Envelope, 'name', { value: name });
  return Envelope;
}

/** `{data: [...], pagination, request_id}`: one page of a keyset list. */
export function PageEnvelope(type: new () => unknown, name: string): new () => unknown {
  class Envelope {
    @ApiProperty({ type: [type] }) data: unknown[];
    @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
    @ApiProperty(REQUEST_ID) request_id: string;
  }
  Object.defineProperty(Envelope, 'name', { value: name });
  return Envelope;
}
