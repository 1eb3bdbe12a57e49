// The help text of the command line.
export const USAGE = `Usage: passkey-server <command> [options]

Commands:
  serve [--config <file>] [--host <h>] [--port <n>] [--no-demo]
                           start the service (the default command; what "npm start" runs)
  check-config [--config <file>]
                           validate the configuration, print every problem (exit 1 when there are any)
  migrate [--config <file>]
                           apply pending database migrations (needed before serving on PostgreSQL)
  local-keys rotate [--config <file>]
                           add a new newest local-blob key to the secrets file (older keys keep opening)
  secrets init [--config <file>] [--file <path>]
                           create a secrets file (for deployments where secrets are never generated)
  apps list [--config <file>] [--json]
                           list the configured applications
  metadata check ...       check a FIDO metadata BLOB (see docs/attestation.md)
  help                     this text

Without --config the built-in default configuration is used (SQLite in ./data, the demo application).
Environment variables override single settings: see docs/configuration.md.
`;
