export * from './rate-limiter';
export * from './concurrency-limiter';
export * from './token-bucket';
export * from './catalogue';
export * from './enforce';
