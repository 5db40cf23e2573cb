// What gateway/gateway.config.mjs imports from `@graphql-hive/gateway`, the package of Hive Gateway's
// CLI and Docker image, which re-exports it from @graphql-mesh/plugin-jwt-auth: jest maps that import
// here (package.json, `moduleNameMapper`), so the tests run the committed configuration file itself
// without installing the CLI and all it bundles (OpenTelemetry, caches, Redis and NATS clients).
export { createRemoteJwksSigningKeyProvider, extractFromHeader } from '@graphql-mesh/plugin-jwt-auth';

/** The CLI's helper that only types a configuration. */
export const defineConfig = <T>(config: T): T => config;
