import 'reflect-metadata';
import { isIP } from 'node:net';
import { IsIn, IsOptional, Matches, ValidateBy } from 'class-validator';
import { withDatabaseVariables } from './database-variables';
import { IntegerIn, isPublicBaseUrl, isRsaPrivateKey, isRsaPublicKeyList, isTrustProxy, Satisfies } from './environment-rules';
import { withLimitVariables } from './limit-variables';
import { withWebhookVariables } from './webhook-variables';

/** The service's own: its process, HTTP server, metrics, logs and token signing. */
class ServiceVariables {
  @IsOptional()
  @IsIn(['development', 'production', 'test'], { message: 'must be development, production or test' })
  NODE_ENV?: string;

  @IsOptional()
  @IntegerIn(0, 65535)
  PORT?: number;

  /** The Prometheus port: a number, or `off` for no metrics at all. */
  @IsOptional()
  @Matches(/^(off|\d{1,5})$/, { message: 'must be a port number or off' })
  METRICS_PORT?: string;

  /** The address the metrics port listens on: loopback unless a deployment opens it (Kubernetes: 0.0.0.0 behind its NetworkPolicy). */
  @IsOptional()
  @ValidateBy({
    name: 'ipAddress',
    validator: {
      validate: (v) => typeof v === 'string' && (isIP(v) !== 0 || v === 'localhost'),
      defaultMessage: () => 'must be an IP address (such as 127.0.0.1, 0.0.0.0 or ::) or localhost',
    },
  })
  METRICS_HOST?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'must be an http:// or https:// URL' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @IsOptional()
  @Satisfies(isRsaPrivateKey, 'must be a PEM-encoded RSA private key')
  JWT_PRIVATE_KEY?: string;

  @IsOptional()
  @Satisfies(isRsaPublicKeyList, 'must be one or more PEM-encoded RSA public keys')
  JWT_PUBLIC_KEYS?: string;

  @IsOptional()
  @Matches(/^\S{32,}$/, { message: 'must be at least 32 characters without spaces' })
  CURSOR_SECRET?: string;

  @IsOptional()
  @IntegerIn(1, 86400, ' seconds')
  TOKEN_TTL_SECONDS?: number;

  @IsOptional()
  @IntegerIn(0, 31536000, ' seconds')
  SECRET_GRACE_SECONDS?: number;

  @IsOptional()
  @Satisfies(isTrustProxy, 'must be comma-separated addresses or CIDRs, or loopback, linklocal, uniquelocal')
  TRUST_PROXY?: string;

  @IsOptional()
  @Satisfies(isPublicBaseUrl, 'must be an absolute http(s) URL without query or fragment, e.g. https://api.example.com')
  PUBLIC_BASE_URL?: string;

  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    message: 'must be one of fatal, error, warn, info, debug, trace, silent',
  })
  LOG_LEVEL?: string;

  @IsOptional()
  @IsIn(['json', 'pretty'], { message: 'must be json or pretty' })
  LOG_FORMAT?: string;

  @IsOptional()
  @IntegerIn(0, 120000, ' milliseconds')
  SHUTDOWN_DELAY_MS?: number;

  @IsOptional()
  @IntegerIn(1000, 600000, ' milliseconds')
  SHUTDOWN_GRACE_MS?: number;

  @IsOptional()
  @IntegerIn(500, 120000, ' milliseconds')
  HTTP_HEADERS_TIMEOUT_MS?: number;

  @IsOptional()
  @IntegerIn(1000, 600000, ' milliseconds')
  HTTP_REQUEST_TIMEOUT_MS?: number;

  @IsOptional()
  @IntegerIn(1000, 600000, ' milliseconds')
  HTTP_KEEP_ALIVE_TIMEOUT_MS?: number;

  @IsOptional()
  @IsIn(['0', '1'], { message: 'must be 0 or 1' })
  DEMO_ACTIVITY?: string;
}

/**
 * The environment as the service reads it: every variable of API-DECISIONS.md plus the
 * operational knobs, one class validated at once, declared by area (each area's file changes
 * with its feature). Messages name the variable and say what is expected, never the value.
 */
export class EnvironmentVariables extends withWebhookVariables(withLimitVariables(withDatabaseVariables(ServiceVariables))) {}
