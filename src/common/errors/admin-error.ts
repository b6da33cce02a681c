/**
 * A refused admin operation (CLI commands, seeds), with a stable code such as
 * `CLIENT_NOT_FOUND` or `ROTATION_IN_PROGRESS`; the CLI prints it as `{"error": {"code", "message"}}`.
 */
export class AdminError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
