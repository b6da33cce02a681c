/** Where each kind of work connects. */
export class DatabaseUrls {
  constructor(
    /** The API role: reads under row-level security. */
    readonly api: string,
    /** The schema owner: migrations, CLI writes, seeds. */
    readonly owner: string,
    /** Where audit rows are written. */
    readonly audit: string,
    /** Who creates the audit table when the audit database is not the main one. */
    readonly auditOwner: string = owner,
  ) {}
}
