import GraphQLUpload from 'graphql-upload/GraphQLUpload.mjs';
import type { FileUpload } from 'graphql-upload/processRequest.mjs';
import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { UserType } from '../account/account.types.js';
import type { UserView } from '../account/user.view.js';

@Resolver()
export class AvatarResolver {
  @Mutation(() => UserType, {
    description: 'Replaces the avatar (GraphQL multipart request; needs the Apollo-Require-Preflight header)',
  })
  async uploadAvatar(@Arg('file', () => GraphQLUpload) file: Promise<FileUpload>, @Ctx() ctx: GraphQLContext): Promise<UserView> {
    const principal = await ctx.principal();
    const upload = await file;
    return ctx.services.avatars.upload(principal, () => upload.createReadStream(), ctx.client);
  }
}
