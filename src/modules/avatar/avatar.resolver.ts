import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { malformedRequest, Upload, type PendingUpload } from '../../graphql/uploads.js';
import { UserType } from '../account/account.types.js';
import type { UserView } from '../account/user.view.js';

@Resolver()
export class AvatarResolver {
  @Mutation(() => UserType, {
    description: 'Replaces the avatar (GraphQL multipart request; needs the Apollo-Require-Preflight header)',
  })
  async uploadAvatar(@Arg('file', () => Upload) file: PendingUpload, @Ctx() ctx: GraphQLContext): Promise<UserView> {
    const principal = await ctx.principal();
    return ctx.services.avatars.upload(principal, () => file.open(), ctx.client).catch(malformedRequest);
  }
}
