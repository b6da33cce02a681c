import { Command } from 'nest-commander';
import { DemoSeeder } from '../seeding/demo-seeder';
import { AdminCommand } from './admin-command';

@Command({ name: 'seed:demo', description: 'create a demo company with data in every documented state, and a client holding every scope' })
export class SeedDemoCommand extends AdminCommand {
  constructor(private readonly demo: DemoSeeder) {
    super();
  }

  protected async execute(): Promise<void> {
    const created = await this.demo.seed();
    this.output.result(
      created,
      [
        `created demo company ${created.company_id}`,
        `client_id:     ${created.client_id}`,
        `client_secret: ${created.client_secret}   (shown only now)`,
      ].join('\n'),
    );
  }
}
