import { SCOPES } from '@voxgate/kit';
import { QUOTA_GROUPS, RATE_LIMIT_GROUPS } from '@voxgate/kit/limits/catalogue';
import type { Route } from '../route';

// the limit documents' selections come from the billing catalogue, so a new limit is one edit
const graphName = (g: string) => g.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
const groupSelection = (groups: Record<string, readonly string[]>) =>
  Object.entries(groups).map(([g, fields]) => `${graphName(g)} { ${fields.join(' ')} }`).join(' ');
export const RATE_LIMIT_FIELDS = `${groupSelection(RATE_LIMIT_GROUPS)} globalRequests`;
export const QUOTA_FIELDS = groupSelection(QUOTA_GROUPS);
const PLAN_FIELDS = `id slug name active displayOrder quotas { ${QUOTA_FIELDS} } rateLimits { ${RATE_LIMIT_FIELDS} } permissions createdAt updatedAt`;
const SUBSCRIPTION_FIELDS = 'id userUuid plan { id slug name } status currentPeriodStart currentPeriodEnd canceledAt createdAt updatedAt';
const OVERRIDE_FIELDS = `userId rateLimits { ${RATE_LIMIT_FIELDS} } quotas { ${QUOTA_FIELDS} }`;

const subs = 'Subscriptions';
const limits = 'Rate limits';
const admin = 'Subscription administration';
const usage = 'Usage';
const USAGE_FIELDS = 'periodStart periodEnd quotas { group quota used reserved limit remaining }';

export const billingRoutes: Route[] = [
  {
    method: 'get', path: '/subscription', operationId: 'getMySubscription', tag: subs, scope: SCOPES.subscriptionsRead,
    summary: "The caller's active subscription (204 when there is none)",
    document: `query { mySubscription { ${SUBSCRIPTION_FIELDS} } }`,
    result: 'mySubscription', status: 200, emptyStatus: 204, errors: [401, 403],
  },
  {
    method: 'get', path: '/subscription-plans', operationId: 'listSubscriptionPlans', tag: subs, scope: SCOPES.plansRead,
    summary: "Active plans of the caller's tenant, by display order",
    document: `query { subscriptionPlans { ${PLAN_FIELDS} } }`,
    result: 'subscriptionPlans', status: 200, errors: [401, 403], renameGroups: true,
  },
  {
    method: 'get', path: '/subscription-plans/:slug', operationId: 'getSubscriptionPlan', tag: subs, scope: SCOPES.plansRead,
    summary: 'One active plan by slug (404 when missing or inactive)',
    document: `query ($slug: String!) { subscriptionPlan(slug: $slug) { ${PLAN_FIELDS} } }`,
    params: { slug: 'slug' }, result: 'subscriptionPlan', status: 200, errors: [401, 403, 404], renameGroups: true,
  },
  {
    method: 'get', path: '/rate-limits', operationId: 'getMyRateLimits', tag: limits, scope: null,
    summary: "The caller's effective limits: user override, then subscription plan, tenant default, platform default",
    document: `query { myRateLimits { ${RATE_LIMIT_FIELDS} } }`,
    result: 'myRateLimits', status: 200, errors: [401], renameGroups: true,
  },
  {
    method: 'get', path: '/admin/rate-limits/defaults', operationId: 'getRateLimitDefaults', tag: limits, scope: SCOPES.rateLimitsRead,
    summary: 'Tenant-wide rate-limit defaults',
    document: `query { rateLimitDefaults { ${RATE_LIMIT_FIELDS} } }`,
    result: 'rateLimitDefaults', status: 200, errors: [401, 403], renameGroups: true,
  },
  {
    method: 'patch', path: '/admin/rate-limits/defaults', operationId: 'updateRateLimitDefaults', tag: limits, scope: SCOPES.rateLimitsWrite,
    summary: 'Change tenant-wide defaults: only provided fields change, null resets to the platform default',
    document: `mutation ($input: RateLimitsInput!) { updateRateLimitDefaults(input: $input) { ${RATE_LIMIT_FIELDS} } }`,
    body: 'input', result: 'updateRateLimitDefaults', status: 200, errors: [400, 401, 403], renameGroups: true,
  },
  {
    method: 'get', path: '/admin/quotas/defaults', operationId: 'getQuotaDefaults', tag: limits, scope: SCOPES.subscriptionsAdminRead,
    summary: 'Tenant-wide quota defaults (QuotaLimitsResponse)',
    document: `query { quotaDefaults { ${QUOTA_FIELDS} } }`,
    result: 'quotaDefaults', status: 200, errors: [401, 403], renameGroups: true,
  },
  {
    method: 'patch', path: '/admin/quotas/defaults', operationId: 'updateQuotaDefaults', tag: limits, scope: SCOPES.subscriptionsAdminWrite,
    summary: 'Change tenant-wide quota defaults: only provided fields change, null resets to the platform default',
    document: `mutation ($input: QuotaLimitsInput!) { updateQuotaDefaults(input: $input) { ${QUOTA_FIELDS} } }`,
    body: 'input', result: 'updateQuotaDefaults', status: 200, errors: [400, 401, 403], renameGroups: true,
  },
  {
    method: 'get', path: '/admin/subscription-plans', operationId: 'adminListSubscriptionPlans', tag: admin, scope: SCOPES.subscriptionsAdminRead,
    summary: 'Every plan of the tenant, inactive ones included',
    document: `query { adminSubscriptionPlans { ${PLAN_FIELDS} } }`,
    result: 'adminSubscriptionPlans', status: 200, errors: [401, 403], renameGroups: true,
  },
  {
    method: 'post', path: '/admin/subscription-plans', operationId: 'createSubscriptionPlan', tag: admin, scope: SCOPES.subscriptionsAdminWrite,
    summary: 'Create a plan (slug unique in the tenant)',
    document: `mutation ($input: SubscriptionPlanCreateInput!) { createSubscriptionPlan(input: $input) { ${PLAN_FIELDS} } }`,
    body: 'input', result: 'createSubscriptionPlan', status: 201, errors: [400, 401, 403, 409], renameGroups: true,
  },
  {
    method: 'patch', path: '/admin/subscription-plans/:id', operationId: 'updateSubscriptionPlan', tag: admin, scope: SCOPES.subscriptionsAdminWrite,
    summary: 'Change a plan: provided fields only; quotas and rateLimits are replaced whole; the slug is immutable',
    document: `mutation ($id: ID!, $input: SubscriptionPlanUpdateInput!) { updateSubscriptionPlan(id: $id, input: $input) { ${PLAN_FIELDS} } }`,
    params: { id: 'id' }, body: 'input', result: 'updateSubscriptionPlan', status: 200, errors: [400, 401, 403, 404], renameGroups: true,
  },
  {
    method: 'post', path: '/admin/subscription-plans/:id/deactivate', operationId: 'deactivateSubscriptionPlan', tag: admin, scope: SCOPES.subscriptionsAdminWrite,
    summary: 'Stop new subscriptions to a plan; existing subscriptions keep it',
    document: `mutation ($id: ID!) { deactivateSubscriptionPlan(id: $id) { ${PLAN_FIELDS} } }`,
    params: { id: 'id' }, result: 'deactivateSubscriptionPlan', status: 200, errors: [401, 403, 404], renameGroups: true,
  },
  {
    method: 'get', path: '/admin/users/:userId/subscription', operationId: 'adminGetUserSubscription', tag: admin, scope: SCOPES.subscriptionsAdminRead,
    summary: "A user's active subscription (204 when none)",
    document: `query ($userId: ID!) { userSubscription(userId: $userId) { ${SUBSCRIPTION_FIELDS} } }`,
    params: { userId: 'userId' }, result: 'userSubscription', status: 200, emptyStatus: 204, errors: [401, 403, 404],
  },
  {
    method: 'put', path: '/admin/users/:userId/subscription', operationId: 'assignSubscription', tag: admin, scope: SCOPES.subscriptionsAdminWrite,
    summary: 'Put a user on an active plan; a previous subscription is canceled; the period starts now',
    document: `mutation ($userId: ID!, $input: AssignSubscriptionInput!) { assignSubscription(userId: $userId, input: $input) { ${SUBSCRIPTION_FIELDS} } }`,
    params: { userId: 'userId' }, body: 'input', result: 'assignSubscription', status: 200, errors: [400, 401, 403, 404, 409],
  },
  {
    method: 'post', path: '/admin/users/:userId/subscription/cancel', operationId: 'cancelSubscription', tag: admin, scope: SCOPES.subscriptionsAdminWrite,
    summary: "Cancel a user's active subscription (it will not renew)",
    document: `mutation ($userId: ID!) { cancelSubscription(userId: $userId) { ${SUBSCRIPTION_FIELDS} } }`,
    params: { userId: 'userId' }, result: 'cancelSubscription', status: 200, errors: [401, 403, 404],
  },
  {
    method: 'get', path: '/admin/users/:userId/limit-overrides', operationId: 'getUserLimitOverrides', tag: admin, scope: SCOPES.subscriptionsAdminRead,
    summary: "A user's own rate-limit and quota overrides (null: inherit)",
    document: `query ($userId: ID!) { userLimitOverrides(userId: $userId) { ${OVERRIDE_FIELDS} } }`,
    params: { userId: 'userId' }, result: 'userLimitOverrides', status: 200, errors: [401, 403, 404], renameGroups: true,
  },
  {
    method: 'patch', path: '/admin/users/:userId/limit-overrides', operationId: 'updateUserLimitOverrides', tag: admin, scope: SCOPES.subscriptionsAdminWrite,
    summary: "Change a user's overrides: provided fields only, null resets to inherit",
    document: `mutation ($userId: ID!, $input: UserLimitOverridesInput!) { updateUserLimitOverrides(userId: $userId, input: $input) { ${OVERRIDE_FIELDS} } }`,
    params: { userId: 'userId' }, body: 'input', result: 'updateUserLimitOverrides', status: 200, errors: [400, 401, 403, 404], renameGroups: true,
  },
  {
    method: 'get', path: '/usage', operationId: 'getMyUsage', tag: usage, scope: null,
    summary: "The caller's current-period usage against each monthly quota (period: the active subscription's, else the UTC calendar month)",
    document: `query { myUsage { ${USAGE_FIELDS} } }`,
    result: 'myUsage', status: 200, errors: [401],
  },
];
