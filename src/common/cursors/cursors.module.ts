import { Global, Module } from '@nestjs/common';
import { RuntimeSecrets } from '../../config/runtime-secrets';
import { CursorCodec } from './cursor-codec';

@Global()
@Module({
  providers: [
    { provide: CursorCodec, inject: [RuntimeSecrets], useFactory: (secrets: RuntimeSecrets) => new CursorCodec(secrets.cursorSecret) },
  ],
  exports: [CursorCodec],
})
export class CursorsModule {}
