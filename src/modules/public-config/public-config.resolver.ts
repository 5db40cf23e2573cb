import { Ctx, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import type { PublicConfig } from './public-config.service.js';
import { PublicConfigType } from './public-config.types.js';

@Resolver()
export class PublicConfigResolver {
  @Query(() => PublicConfigType, { description: 'Registration switch, about, help center and client-side limits' })
  config(@Ctx() ctx: GraphQLContext): PublicConfig {
    return ctx.services.publicConfig.get();
  }
}
