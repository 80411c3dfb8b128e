/** The streaming side of the sessions domain, run by the edge next to its audio WebSocket. */
export { StreamingSessionRunner, type SessionTransport, type ClientMeta } from './runner';
export { EngineChannels } from './engines';
export { SessionRecords } from './records';
export { LiveSessions, heartbeatMs } from './live-sessions';
export { OrphanSweeper } from './sweeper';
export * from './protocol';
export type { StreamingDeps, TenantSettingsSource } from './streaming-deps';
