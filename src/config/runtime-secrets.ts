/** Secrets the service needs, from the environment or, outside production, generated once in DATA_DIR. */
export class RuntimeSecrets {
  constructor(
    readonly cursorSecret: string,
    readonly jwtPrivateKey: string,
    readonly jwtPublicKeys: string[],
  ) {}
}
