import { Field, ID, Int, ObjectType } from 'type-graphql';

/** RoleRef of the spec: a role with its privilege level. */
@ObjectType('Role')
export class Role {
  @Field(() => ID) id!: string;
  @Field(() => String) slug!: string;
  @Field(() => String) name!: string;
  @Field(() => Int, { description: 'Privilege level; higher outranks lower.' }) hierarchyOrder!: number;
  @Field(() => [String], { description: 'The scopes the role grants (see docs/scopes.md).' }) scopes!: string[];
}
