import { Injectable, NestMiddleware } from '@nestjs/common';
import { urlencoded } from 'body-parser';
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../common/errors/api-error';

export const TOKEN_MEDIA_TYPE = 'application/x-www-form-urlencoded';
/** API-DECISIONS.md: the token endpoint accepts at most 8 KiB. */
export const TOKEN_BODY_LIMIT_BYTES = 8 * 1024;

/**
 * Body parsing for `POST /oauth/token` only (the app has no global body parser: `/v1`
 * takes no body). Wrong media type: 415; over 8 KiB: 413 (a declared length is refused
 * before reading); unreadable: 400. Errors go to the exception filter, which answers in
 * the OAuth shape.
 */
@Injectable()
export class TokenBodyMiddleware implements NestMiddleware {
  private readonly parse = urlencoded({ extended: false, limit: TOKEN_BODY_LIMIT_BYTES, parameterLimit: 32, type: () => true });

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (mediaType !== TOKEN_MEDIA_TYPE) {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `Send the token request as ${TOKEN_MEDIA_TYPE}.`);
    }
    await new Promise<void>((resolve, reject) => this.parse(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
    next();
  }
}
