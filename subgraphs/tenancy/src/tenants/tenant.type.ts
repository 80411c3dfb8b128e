import { Directive, Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { OidcProviderInput } from '../oidc/oidc-provider.type';

/** TenantResponse; nested fields (roles, provider, users) are resolved in TenantResolver. */
@Directive('@key(fields: "id")')
@ObjectType('Tenant')
export class Tenant {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: 'unique slug' }) name!: string;
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => Boolean) enabled!: boolean;
  @Field(() => String, { description: 'ISO 8601' }) createdAt!: string;
  @Field(() => Boolean) speechServiceFileInternalPublishEnabled!: boolean;
  @Field(() => Boolean) speechServiceFileDirectShareEnabled!: boolean;
  @Field(() => Int) speechServiceSessionMaxConcurrent!: number;
  @Field(() => Boolean) speechServiceSessionRecordingEnabled!: boolean;
  // carried for the nested resolvers, not exposed
  firstLoginRoleId!: string;
  defaultRoleId!: string;
}

@ObjectType('TenantPage')
export class TenantPage {
  @Field(() => [Tenant]) tenants!: Tenant[];
  @Field(() => Int) page!: number;
  @Field(() => Int, { description: 'items in this page' }) size!: number;
  @Field(() => Number, { description: 'total tenants (64-bit)' }) total!: number;
}

@InputType('TenantCreateInput')
export class TenantCreateInput {
  @Field(() => String, { description: 'unique system name (slug), max 64 chars' }) name!: string;
  @Field(() => String, { description: 'max 64 chars' }) displayName!: string;
  @Field(() => String, { nullable: true, description: 'max 256 chars' }) description?: string | null;
  @Field(() => ID) firstLoginRoleId!: string;
  @Field(() => ID) defaultRoleId!: string;
  @Field(() => OidcProviderInput, { nullable: true }) oidcProvider?: OidcProviderInput | null;
  @Field(() => Boolean, { nullable: true, description: 'default true' }) speechServiceFileInternalPublishEnabled?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'default true' }) speechServiceFileDirectShareEnabled?: boolean | null;
  @Field(() => Int, { nullable: true, description: 'default 50' }) speechServiceSessionMaxConcurrent?: number | null;
  @Field(() => Boolean, { nullable: true, description: 'default false' }) speechServiceSessionRecordingEnabled?: boolean | null;
}

@InputType('TenantUpdateInput', { description: 'All fields optional; name is not updatable.' })
export class TenantUpdateInput {
  @Field(() => String, { nullable: true }) displayName?: string | null;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => ID, { nullable: true, description: 'when changed, its hierarchy must be lower than the caller\'s role' }) firstLoginRoleId?: string | null;
  @Field(() => ID, { nullable: true, description: 'its hierarchy must be at most that of the first-login role' }) defaultRoleId?: string | null;
  @Field(() => Boolean, { nullable: true }) speechServiceFileInternalPublishEnabled?: boolean | null;
  @Field(() => Boolean, { nullable: true }) speechServiceFileDirectShareEnabled?: boolean | null;
  @Field(() => Int, { nullable: true }) speechServiceSessionMaxConcurrent?: number | null;
  @Field(() => Boolean, { nullable: true }) speechServiceSessionRecordingEnabled?: boolean | null;
}
