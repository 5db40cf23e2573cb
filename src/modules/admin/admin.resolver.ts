import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { Role } from '../account/role.js';
import type { AdminUserView } from './admin.service.js';
import { AdminUserType } from './admin.types.js';

/** The operators' fields; each checks the caller's role (AdminService.authorize), as the REST routes do. */
@Resolver()
export class AdminResolver {
  @Query(() => AdminUserType, { description: 'One account (SUPPORT or ADMIN)' })
  async adminUser(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<AdminUserView> {
    return ctx.services.admin.user(await ctx.principal(), id);
  }

  @Mutation(() => AdminUserType, { description: 'Blocks the account and ends its sessions (ADMIN); reason 1-500 characters' })
  async adminBlockUser(@Arg('id', () => ID) id: string, @Arg('reason') reason: string, @Ctx() ctx: GraphQLContext): Promise<AdminUserView> {
    return ctx.services.admin.block(await ctx.principal(), id, reason, ctx.client);
  }

  @Mutation(() => AdminUserType, { description: 'Lifts the block (ADMIN)' })
  async adminUnblockUser(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<AdminUserView> {
    return ctx.services.admin.unblock(await ctx.principal(), id, ctx.client);
  }

  @Mutation(() => AdminUserType, { description: "Gives another account a role (ADMIN; never one's own)" })
  async adminSetRole(@Arg('id', () => ID) id: string, @Arg('role', () => Role) role: Role, @Ctx() ctx: GraphQLContext): Promise<AdminUserView> {
    return ctx.services.admin.setRole(await ctx.principal(), id, role, ctx.client);
  }

  @Mutation(() => Boolean, { description: 'Ends every session of the account (SUPPORT or ADMIN)' })
  async adminRevokeSessions(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await ctx.services.admin.revokeSessions(await ctx.principal(), id, ctx.client);
    return true;
  }
}
