export { subscriptionEndpoint, SUBSCRIPTIONS_PATH, MAX_SUBSCRIPTIONS_PER_CONNECTION, type SubscriptionDeps, type SubscriptionEndpoint } from './endpoint';
export { ChannelHub } from './channels';
export { EventStream, SOFT_LIMIT, HARD_LIMIT } from './event-stream';
