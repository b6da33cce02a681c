/** Secrets the service needs, from the environment or, outside production, generated once in DATA_DIR. */
export class RuntimeSecrets {
  constructor(
    readonly cursorSecret: string,
    readonly jwtPrivateKey: string,
    readonly jwtPublicKeys: string[],
    /** Encrypts webhook signing secrets at rest; absent in production unless WEBHOOK_SECRET_KEY is set. */
    readonly webhookSecretKey?: string,
  ) {}
}
