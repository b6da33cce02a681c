import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { AccessTokens } from './access-tokens';
import { BearerStrategy } from './bearer.strategy';
import { CredentialsRepository } from './credentials.repository';
import { CredentialsService } from './credentials.service';
import { TokenBodyMiddleware } from './token-body.middleware';
import { TokenController } from './token.controller';
import { TokenService } from './token.service';

/**
 * The API side of credentials: the token endpoint and bearer authentication. The global
 * guards (BearerAuthGuard, ScopesGuard) are registered in AppModule, in their order.
 */
@Module({
  imports: [PassportModule],
  controllers: [TokenController],
  providers: [AccessTokens, CredentialsRepository, CredentialsService, TokenService, BearerStrategy],
  exports: [AccessTokens, BearerStrategy],
})
export class AuthModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(TokenBodyMiddleware).forRoutes({ path: 'oauth/token', method: RequestMethod.POST });
  }
}
