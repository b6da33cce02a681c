import { ApiProperty, ApiResponse } from '@nestjs/swagger';
import { ERROR_CODE_NAMES, ERROR_CODES } from '../errors/error-codes';

const ERROR_TYPES = [...new Set(Object.values(ERROR_CODES).map((e) => e.type))];

export class ErrorBody {
  @ApiProperty({ enum: ERROR_TYPES, description: 'Stable error class, coarser than `code`.' })
  type: string;

  @ApiProperty({ description: 'Short human text; may be reworded.' })
  title: string;

  @ApiProperty({ description: 'Human explanation; never parse it.' })
  detail: string;

  @ApiProperty({ enum: ERROR_CODE_NAMES, description: 'Stable, machine-readable code.' })
  code: string;

  @ApiProperty({ pattern: '^req_[0-9A-Za-z]+$' })
  request_id: string;
}

/** `{ error: { type, title, detail, code, request_id } }` */
export class ErrorEnvelope {
  @ApiProperty({ type: ErrorBody })
  error: ErrorBody;
}

/** `404 RESOURCE_NOT_FOUND` of a route with a resource id; `also`, what else the route answers it for. */
export const ApiNotFound = (also?: string) =>
  ApiResponse({
    status: 404,
    type: ErrorEnvelope,
    description: `RESOURCE_NOT_FOUND: absent, owned by another company, or an id of another collection${also ? `; ${also}` : ''}.`,
  });
