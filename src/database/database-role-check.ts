import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';

export interface RolePosture {
  role: string;
  superuser: boolean;
  bypassRls: boolean;
  /** Owner (or member of the owner) of a row-level-secured table: its owner policy lets it see every tenant. */
  ownsTenantTables: boolean;
}

export async function readRolePosture(dataSource: DataSource): Promise<RolePosture> {
  const [row] = await dataSource.query(`
    SELECT r.rolname AS role, r.rolsuper AS superuser, r.rolbypassrls AS bypass_rls,
      EXISTS (
        SELECT 1 FROM pg_class c
        WHERE c.relnamespace = 'public'::regnamespace AND c.relrowsecurity
          AND pg_has_role(current_user, c.relowner, 'MEMBER')
      ) AS owns_tenant_tables
    FROM pg_roles r WHERE r.rolname = current_user`);
  return { role: row.role, superuser: row.superuser, bypassRls: row.bypass_rls, ownsTenantTables: row.owns_tenant_tables };
}

/**
 * Row-level security is the second wall between tenants; it is only a wall if the API's
 * role cannot step around it. A role that can is refused in production and shouted about
 * elsewhere.
 */
@Injectable()
export class DatabaseRoleCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('Database');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const posture = await readRolePosture(this.dataSource);
    const reasons = [
      posture.superuser && 'is a superuser',
      posture.bypassRls && 'has BYPASSRLS',
      posture.ownsTenantTables && 'owns the tenant tables (use a separate API role, see MIGRATION_DATABASE_URL)',
    ].filter(Boolean);
    if (reasons.length === 0) return;
    const message = `DATABASE ROLE "${posture.role}" CAN BYPASS ROW-LEVEL SECURITY: it ${reasons.join(', ')}. Tenant isolation then rests on application filters alone.`;
    if (this.config.production) throw new Error(`${message} Refusing to start in production.`);
    this.logger.warn(`!!! ${message} !!!`);
  }
}
