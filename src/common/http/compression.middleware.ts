import { constants } from 'node:zlib';
import compression from 'compression';
import type { RequestHandler } from 'express';
import { OAUTH_TOKEN_PATH } from './request-surface.middleware';

/**
 * Answers compressed when the client asks (`Accept-Encoding: br` or `gzip`), from 1 KiB up,
 * with `Vary: Accept-Encoding` on every answer that could be. Tuned by measurement on a page of
 * 100 meetings (184 KB, docs/BENCHMARKS.md): gzip level 1 keeps 9.6% of the bytes for 0.39 ms
 * of CPU where level 6 keeps 7.7% for 0.90 ms, and brotli quality 4 keeps 6.1% for 0.57 ms.
 * A single meeting (about 2 KB) halves for 0.03 ms; an error body (about 130 bytes) would save
 * a few bytes, hence the threshold. Every other header is left as the route wrote it.
 */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * Brotli's window, as a power of two: 256 KiB, past the size of a page of 100. The library's
 * default (4 MiB, a ring buffer of twice that per stream) compressed that page to the same byte,
 * but 50 concurrent streams cost 40% of the brotli answers' throughput, and the freed buffers
 * stayed resident: 90 MB more after one pass of brotli pages, past the 350 MB bound.
 */
export const BROTLI_WINDOW_BITS = 18;

/**
 * Text the library's own filter would pass by, mime-db not calling it compressible: the export
 * stream's NDJSON and captions as SubRip (`text/vtt` and `text/plain` it compresses).
 */
const UNLISTED_TEXT = ['application/x-ndjson', 'application/x-subrip'];
const isUnlistedText = (contentType: unknown) => typeof contentType === 'string' && UNLISTED_TEXT.some((t) => contentType.startsWith(t));

const compress = compression({
  threshold: COMPRESSION_THRESHOLD_BYTES,
  filter: (req, res) => isUnlistedText(res.getHeader('Content-Type')) || compression.filter(req, res),
  level: 1,
  brotli: { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_LGWIN]: BROTLI_WINDOW_BITS } },
});

/**
 * A request that accepts no encoding is only told `Vary: Accept-Encoding` (what the library
 * would say of a JSON answer), without wrapping its response: that wrapping cost about 5% of a
 * single read's CPU for answers it would never compress. The token endpoint's answers are never
 * compressed: they carry a fresh access token, and compressing a secret beside anything a
 * requester chose is what BREACH-style length attacks measure (docs/SECURITY.md).
 */
export const compressionMiddleware: RequestHandler = (req, res, next) => {
  if (req.headers['accept-encoding'] && req.path !== OAUTH_TOKEN_PATH) return compress(req, res, next);
  res.vary('Accept-Encoding');
  next();
};
