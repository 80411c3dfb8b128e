import { Directive, Field, ID, ObjectType } from 'type-graphql';

@Directive('@key(fields: "id")')
@ObjectType('User')
export class User {
  @Field(() => ID) id!: string;
  @Field(() => String) username!: string;
  @Field(() => String, { nullable: true }) email!: string | null;
  @Field(() => String, { nullable: true }) displayName!: string | null;
  @Field(() => ID) tenantId!: string;
  @Field(() => String, { description: 'ISO 8601' }) createdAt!: string;
  @Field(() => String, { nullable: true, description: 'ISO 8601' }) lastLoginAt!: string | null;
  roleId!: string;
}
