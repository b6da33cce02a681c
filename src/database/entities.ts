import { ApiClient } from '../clients/api-client.entity';
import { ClientSecret } from '../clients/client-secret.entity';
import { Company } from '../companies/company.entity';

/** Every entity of the service, listed once for all data sources. */
export const ENTITIES = [Company, ApiClient, ClientSecret];
