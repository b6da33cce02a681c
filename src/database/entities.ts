import { Company } from '../companies/company.entity';

/** Every entity of the service, listed once for all data sources. */
export const ENTITIES = [Company];
